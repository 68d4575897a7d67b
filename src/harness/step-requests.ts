/**
 * What the model saw at every step of a case, for the reports (in the spirit of
 * codex's context snapshots): each request as sent, in short lines —
 *
 *   model: claude-sonnet-4-6 · max tokens 1024
 *   system: You are the after-sales support agent of …
 *   tools: lookup_order, add_note, issue_refund, notify_customer
 *   user: Where is ORD-1001?
 *   assistant: call lookup_order#look {"order_id":"ORD-1001"}
 *   user: result#look ok: {"id":"ORD-1001","status":"shipped",…}
 *
 * One line per message, as scenario expectations (`lastRequest`, `history`)
 * match them, so a line can be copied from a report into a scenario; white
 * space runs folded, every line cut at LINE_CHARS and redacted with the case's
 * secrets; a request of more than MAX_MESSAGE_LINES messages shows its first
 * and last ones. The
 * content is what the recording saw sent (run.requests); where it has no request
 * for a `model.request` event, the request recomputed from the log.
 */
import { createRedactor, recomputeRequest, type LogEvent, type RecordedRequest } from '../kernel/index.ts';
import type { StepRequest } from '../report/results.ts';
import { renderMessages } from './render.ts';
import type { ScenarioRun } from './second-host.ts';
import type { SentRequest } from './world/recording-model.ts';

/** Characters one line keeps; the full request is in the log (`loopgate replay --at`). */
export const LINE_CHARS = 400;
/**
 * Messages one request shows: past it, its first HEAD_LINES and the rest of them from its end, with a line saying
 * how many are left out — a long conversation's reports would grow with the square of its length (each request
 * carries the whole history).
 */
export const MAX_MESSAGE_LINES = 64;
const HEAD_LINES = 8;
/** model, system, tools: before the messages. */
const HEADER_LINES = 3;

export function stepRequests(run: Pick<ScenarioRun, 'log' | 'requests' | 'secrets'>): StepRequest[] {
  const redact = createRedactor({ secrets: run.secrets });
  const out: StepRequest[] = [];
  for (const e of run.log.events) {
    if (e.type !== 'model.request' || e.opaque) continue;
    const event = e as Extract<LogEvent, { type: 'model.request' }>;
    const request: RecordedRequest | undefined = run.requests[out.length] ?? recomputed(run, event.seq);
    out.push({
      turn: event.payload.turn,
      step: event.payload.step,
      attempt: event.payload.attempt,
      seq: event.seq,
      lines: request ? shown(requestLines(request), event.seq).map((line) => clip(redact(line))) : ['(the request could not be recomputed from the log)'],
    });
  }
  return out;
}

/**
 * What a loop behind the port sent the model at each step (a peer's, a team's own): the requests the harness
 * recorded, as short lines, the steps counted per turn. It keeps no event log: no seq, and a retry reads as a step.
 */
export function sentRequests(requests: readonly SentRequest[], turns: readonly number[], secrets: readonly string[]): StepRequest[] {
  const redact = createRedactor({ secrets });
  const steps = new Map<number, number>();
  const out: StepRequest[] = [];
  for (const [i, request] of requests.entries()) {
    // A request made while no turn ran (a warm-up, work a cancelled turn left going) is no step of a turn: the
    // invariants read it from the run; the report tells the steps of turns (review of stop 54: as turn -1 it made
    // results.json refuse the run's report).
    const turn = turns[i];
    if (turn === undefined || turn < 0) continue;
    const step = (steps.get(turn) ?? 0) + 1;
    steps.set(turn, step);
    out.push({ turn, step, attempt: 1, lines: shown(requestLines(request), undefined).map((line) => clip(redact(line))) });
  }
  return out;
}

function recomputed(run: Pick<ScenarioRun, 'log'>, seq: number): RecordedRequest | undefined {
  try {
    return recomputeRequest(run.log.events, seq);
  } catch {
    return undefined;
  }
}

/** A request as short lines, unclipped and unredacted. */
export function requestLines(request: RecordedRequest | SentRequest): string[] {
  return [
    `model: ${request.model} · max tokens ${request.maxTokens}${request.temperature !== undefined ? ` · temperature ${request.temperature}` : ''}`,
    `system: ${request.system}`,
    `tools: ${request.tools.map((t) => t.name).join(', ') || '(none)'}`,
    ...renderMessages(request.messages),
  ];
}

/** A request's lines with its messages past MAX_MESSAGE_LINES left out of the middle, saying so. */
function shown(lines: string[], seq: number | undefined): string[] {
  const messages = lines.length - HEADER_LINES;
  if (messages <= MAX_MESSAGE_LINES) return lines;
  const hidden = messages - MAX_MESSAGE_LINES;
  return [
    ...lines.slice(0, HEADER_LINES + HEAD_LINES),
    `… ${hidden} messages not shown${seq !== undefined ? ` (the whole request: loopgate replay --at ${seq})` : ''}`,
    ...lines.slice(HEADER_LINES + HEAD_LINES + hidden),
  ];
}

function clip(line: string): string {
  const flat = line.replace(/\s+/g, ' ').trim();
  return flat.length > LINE_CHARS ? `${flat.slice(0, LINE_CHARS - 1)}…` : flat;
}
