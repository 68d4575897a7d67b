/**
 * A case's timeline for people: turns, steps, model calls, tool calls with their
 * arguments, results and durations, retries, faults injected, the outcome.
 * Built from the log (virtual times) and the faults the world injected.
 */
import { outcomeLabel, type LogEvent } from '../kernel/index.ts';
import type { TimelineEntry } from '../report/results.ts';
import { redactForRun } from './run-redactor.ts';
import type { ScenarioRun } from './second-host.ts';

export function buildTimeline(run: ScenarioRun): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  // Each entry's place among the case's happenings, for entries at the same virtual time: a fault the
  // world injected sits between the events appended before and after it (a crash before the turn it cut).
  const order = new Map<TimelineEntry, number>();
  const placeOf = (seq: number): number => run.eventOrder?.get(seq) ?? Number.POSITIVE_INFINITY;
  let current = -1;
  const out = {
    push(entry: TimelineEntry) {
      entries.push(entry);
      order.set(entry, placeOf(current));
    },
  };
  const requestAt = new Map<string, { at: number; seq: number }>();
  const requestIndex = new Map<string, number>(); // the n-th model.request: its index in the case's `requests` (step-requests.ts)
  let requests = 0;
  const toolAt = new Map<string, { at: number; args: unknown; seq: number }>();
  for (const e of run.log.events) {
    if (e.opaque) continue;
    const event = e as LogEvent;
    current = event.seq;
    switch (event.type) {
      case 'inbox.received':
        out.push({ at: event.at, kind: 'inbox', label: `${event.payload.intent}: ${event.payload.text}`, detail: `from ${event.payload.source}` });
        break;
      case 'turn.opened':
        out.push({ at: event.at, kind: 'turn', turn: event.payload.turn, label: `turn ${event.payload.turn} opened` });
        break;
      case 'model.request': {
        const key = `${event.payload.turn}:${event.payload.step}:${event.payload.attempt}`;
        requestAt.set(key, { at: event.at, seq: event.seq });
        requestIndex.set(key, requests++);
        break;
      }
      case 'model.result': {
        const key = `${event.payload.turn}:${event.payload.step}:${event.payload.attempt}`;
        const request = requestAt.get(key);
        const start = request?.at ?? event.at;
        current = request?.seq ?? event.seq; // placed where it started, as its time is
        const r = event.payload.result;
        const ok = r.type === 'reply' || r.type === 'tool_use';
        out.push({
          at: start,
          kind: 'model_call',
          turn: event.payload.turn,
          step: event.payload.step,
          label: `step ${event.payload.step}${event.payload.attempt > 1 ? ` (attempt ${event.payload.attempt})` : ''}: ${r.type}${r.kind ? ` ${r.kind}` : ''}${r.at ? ` at ${r.at}` : ''}`,
          durationMs: event.at - start,
          status: ok ? 'ok' : r.kind === 'aborted' ? 'cancelled' : 'error',
          ...(requestIndex.has(key) ? { request: requestIndex.get(key)! } : {}),
          data: { ...(r.usage ? { usage: r.usage } : {}), ...(r.stopReason ? { stopReason: r.stopReason } : {}), ...(r.message ? { message: r.message } : {}) },
        });
        break;
      }
      case 'model.error_handled':
        out.push({
          at: event.at,
          kind: 'retry',
          turn: event.payload.turn,
          step: event.payload.step,
          label: `${event.payload.handler}: ${event.payload.action}${event.payload.delayMs ? ` after ${event.payload.delayMs} ms` : ''}`,
          detail: event.payload.detail,
        });
        break;
      case 'assistant.message': {
        const text = event.payload.content
          .filter((b) => b.type === 'text')
          .map((b) => (b as { text: string }).text)
          .join(' ');
        if (text)
          out.push({
            at: event.at,
            kind: 'step',
            turn: event.payload.turn,
            step: event.payload.step,
            label: `assistant: ${text.length > 120 ? `${text.slice(0, 119)}…` : text}`,
          });
        break;
      }
      case 'policy.decision':
        out.push({
          at: event.at,
          kind: 'policy',
          turn: event.payload.turn,
          step: event.payload.step,
          label: `${event.payload.tool}: ${event.payload.decision} by ${event.payload.by}`,
          detail: event.payload.rule,
          status: event.payload.decision === 'allow' ? 'ok' : 'error',
        });
        break;
      case 'tool.started':
        if (!toolAt.has(event.payload.callId)) toolAt.set(event.payload.callId, { at: event.at, args: event.payload.args, seq: event.seq });
        break;
      case 'tool.result': {
        const start = toolAt.get(event.payload.callId);
        current = start?.seq ?? event.seq;
        out.push({
          at: start?.at ?? event.at,
          kind: 'tool_call',
          turn: event.payload.turn,
          step: event.payload.step,
          label: `${event.payload.name}#${event.payload.callId} → ${event.payload.status}${event.payload.error ? ` ${event.payload.error.error_code}` : ''}`,
          detail: event.payload.content.length > 300 ? `${event.payload.content.slice(0, 299)}…` : event.payload.content,
          data: { args: start?.args ?? null, attempts: event.payload.attempts, ...(event.payload.error ? { error: event.payload.error } : {}) },
          durationMs: start ? event.at - start.at : 0,
          status: event.payload.status === 'ok' ? 'ok' : event.payload.status === 'unknown' ? 'unknown' : 'error',
        });
        break;
      }
      case 'projection.replaced':
        out.push({
          at: event.at,
          kind: 'compaction',
          label: `compacted [${event.payload.from}, ${event.payload.to}]: ${event.payload.tokensBefore} → ${event.payload.tokensAfter} tokens`,
        });
        break;
      case 'cancel.requested':
        out.push({ at: event.at, kind: 'cancel', label: `cancel by ${event.payload.by}`, detail: event.payload.reason });
        break;
      case 'log.listener_failed':
        out.push({ at: event.at, kind: 'fault', label: `a log listener threw (event ${event.payload.seq})`, detail: event.payload.error });
        break;
      case 'turn.closed':
        out.push({
          at: event.at,
          kind: 'outcome',
          turn: event.payload.turn,
          label: `turn ${event.payload.turn}: ${outcomeLabel(event.payload.outcome)}`,
          ...('detail' in event.payload.outcome && event.payload.outcome.detail ? { detail: event.payload.outcome.detail } : {}),
          status: event.payload.outcome.kind === 'replied' ? 'ok' : event.payload.outcome.kind === 'cancelled' ? 'cancelled' : 'error',
        });
        break;
      default:
        break;
    }
  }
  for (const f of run.faults) {
    const entry: TimelineEntry = { at: f.at, kind: 'fault', label: f.label };
    entries.push(entry);
    order.set(entry, f.order ?? Number.POSITIVE_INFINITY);
  }
  // The log holds no secret; the faults and anything a future entry adds pass the run's redactor all the same.
  return redactForRun(
    run,
    entries.sort((a, b) => a.at - b.at || (order.get(a)! < order.get(b)! ? -1 : order.get(a)! > order.get(b)! ? 1 : 0)),
  );
}
