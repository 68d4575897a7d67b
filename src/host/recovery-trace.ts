/**
 * The trace of a turn crash recovery closed (recovery.ts). Each turn is a trace
 * the host exports; a turn whose process died never reached its own `finally`,
 * so without this the turns whose refund's fate is unknown were exactly the ones
 * missing from the export (outside probe 16, F3).
 *
 * It tells only what recovery wrote, as the loop would have traced it:
 * - the turn span (`turn <n>`, the trace named `<conversation>:<turn>`), ended
 *   `ok` like every turn span, with the close's outcome (`interrupted`), steps and
 *   tool-call count, and `recovered: true` with the `cause` (`crash`);
 * - one `tool` span per call recovery settled, named by its tool, with the
 *   attributes and status the tool pipeline gives the same result: `unknown`
 *   (`INTERRUPTED`) is `cancelled`, `failed` (`NOT_RUN`) is `error`; a started
 *   call's span shows its recorded arguments and side-effect level.
 *
 * The dead process's own spans (model calls, policy decisions) are gone and are
 * not made up. Start and end are the recovery's time. Strings pass the host's
 * redactor (the tracer's), as every trace does.
 */
import {
  type Clock,
  type EventLog,
  isKnown,
  type LogEvent,
  type SideEffect,
  type SpanStatus,
  type TraceRecord,
  Tracer,
  type W3cTracing,
} from '../kernel/index.ts';
import type { RecoveryReport } from './recovery.ts';

export interface RecoveryTraceOptions {
  readonly conversationId: string;
  readonly clock: Pick<Clock, 'now'>;
  readonly redact: (text: string) => string;
  readonly w3c?: W3cTracing;
  /** The tool's declared side-effect level (a call that never started records none). */
  readonly sideEffectOf: (toolName: string) => SideEffect | undefined;
}

/** As the tool pipeline shows a call's arguments on its span (at most this many characters). */
const SPAN_ARGS_CHARS = 2_000;

type Of<T extends LogEvent['type']> = Extract<LogEvent, { type: T }>;

/** The recovered turn's trace, or undefined when recovery closed nothing. */
export function recoveryTrace(log: EventLog, report: RecoveryReport, options: RecoveryTraceOptions): TraceRecord | undefined {
  if (!report.recovered || report.turn === undefined || report.fromSeq === undefined) return undefined;
  const turn = report.turn;
  const appended: LogEvent[] = [];
  for (let seq = report.fromSeq; seq < log.length; seq++) {
    const event = log.at(seq);
    if (event && isKnown(event)) appended.push(event);
  }
  const closed = appended.find((e): e is Of<'turn.closed'> => e.type === 'turn.closed' && e.payload.turn === turn);
  if (!closed) return undefined;
  const tracer = new Tracer({
    clock: options.clock,
    traceId: `${options.conversationId}:${turn}`,
    redact: options.redact,
    ...(options.w3c ? { w3c: options.w3c } : {}),
  });
  const span = tracer.startSpan('turn', `turn ${turn}`, undefined, { turn });
  for (const event of appended) {
    if (event.type !== 'tool.result' || event.payload.turn !== turn) continue;
    const p = event.payload;
    const started = log.positions.call(p.callId)?.started ? startOf(log, turn, p.callId) : undefined;
    const tool = span.child('tool', p.name, {
      tool: p.name,
      callId: p.callId,
      step: p.step,
      sideEffect: started?.payload.sideEffect ?? options.sideEffectOf(p.name) ?? 'unknown',
      ...(started ? { args: shownArgs(started.payload.args) } : {}),
      recovered: true,
    });
    const code = p.error?.error_code;
    const status: SpanStatus = p.status === 'ok' ? 'ok' : code === 'INTERRUPTED' || code === 'CANCELLED' ? 'cancelled' : 'error';
    tool.end(status, code !== undefined ? { status: p.status, attempts: p.attempts, errorCode: code } : { status: p.status, attempts: p.attempts });
  }
  const outcome = closed.payload.outcome as { kind: string; cause?: string };
  span.end('ok', {
    outcome: outcome.kind,
    steps: closed.payload.steps,
    toolCalls: closed.payload.toolCalls,
    recovered: true,
    cause: outcome.cause ?? 'crash',
  });
  return tracer.end();
}

/** The call's latest `tool.started` in the turn, read back from the end. */
function startOf(log: EventLog, turn: number, callId: string): Of<'tool.started'> | undefined {
  for (let i = log.length - 1; i >= 0; i--) {
    const e = log.at(i)!;
    if (!isKnown(e)) continue;
    if (e.type === 'turn.opened' && e.payload.turn === turn) break;
    if (e.type === 'tool.started' && e.payload.callId === callId) return e as Of<'tool.started'>;
  }
  return undefined;
}

function shownArgs(args: unknown): string {
  const json = JSON.stringify(args) ?? '';
  if (json.length <= SPAN_ARGS_CHARS) return json;
  let kept = SPAN_ARGS_CHARS;
  const last = json.charCodeAt(kept - 1);
  if (last >= 0xd800 && last <= 0xdbff) kept--;
  return `${json.slice(0, kept)}\n\n[output truncated: showing the first ${kept} of ${json.length} characters; ${json.length - kept} characters were cut. The full output is kept in the log.]`;
}
