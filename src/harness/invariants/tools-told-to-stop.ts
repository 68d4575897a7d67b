/**
 * A tool call the loop gives up on is told to stop: when a call is answered
 * `unknown` / `INTERRUPTED` (a cancel, a shutdown) or `unknown` / `TIMEOUT`, the
 * body still running for it has its abort signal aborted — the only way a
 * well-behaved tool (an HTTP request, a long export) learns that nobody waits for
 * it, and stops instead of finishing its side effect after the turn moved on.
 * Checked on the scripted tools' own signals: the last body run of each such call
 * either ended by the time the result was written, or saw its signal aborted.
 * Results crash recovery wrote are left out: the process that ran those bodies is
 * gone.
 *
 * And the converse: a body is never told it timed out (its signal aborted with a
 * `ToolTimeoutError`) after it had already ended — a tool that cleans up or
 * reports on abort would undo, or misreport, work that finished in time.
 *
 * Judged from outside another loop too (`checkObservable`): no body of a turn starts once the harness cancelled it,
 * and a body running then has the signal the loop gave it aborted while it runs.
 *
 * And before: once its turn is cancelled no call starts — no `tool.started`
 * record follows the turn's `cancel.requested`, and no body starts with its
 * signal already aborted (the second call of a batch run one by one, after a
 * cancel that landed while the first ran: a notify_customer the user stopped).
 */
import type { LogEvent } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, type PeerRun } from './invariant.ts';
import { viewOf } from './support/log-view.ts';
import { TOLD_TO_STOP_GRACE_MS } from '../world/scripted-tools.ts';

const GIVEN_UP = new Set(['INTERRUPTED', 'TIMEOUT']);

export const toolsToldToStop = defineInvariant({
  id: 'tools-told-to-stop',
  title: 'a tool call answered INTERRUPTED or TIMEOUT has its still-running body’s signal aborted; no body starts once told to stop',
  check: (run) => neverStartedStopped(run) ?? toldToStop(run) ?? toldTimedOutWhenDone(run),
  // From outside another loop: no body of a turn starts once the harness cancelled it, and one running then is told.
  checkObservable: (run) => noBodyAfterCancel(run) ?? runningBodiesTold(run),
});

/**
 * From outside: a body running when the harness cancelled its turn is told to stop — the signal the loop gave it
 * aborts while it runs (outside probe 54, H1: a loop that called its tools with no signal let the body write after
 * the user's Stop, and passed `loopgate run` and `loopgate fuzz`, this invariant judging only starts). Whether the
 * body then stops is the agent's code, not the loop's.
 */
function runningBodiesTold(run: PeerRun): string | undefined {
  for (const cancel of run.cancels ?? []) {
    if (cancel.ms === undefined) continue;
    const at = cancel.ms;
    for (const r of run.toolRuns) {
      if (r.turn !== cancel.turn || r.startedMs === undefined || r.startedMs > at) continue;
      if (r.endedMs !== undefined && r.endedMs <= at) continue; // ended before the cancel
      // Told while it ran, and soon: the cancel's abort, not a later one of the loop's own (review of stop 58, M1).
      const told = r.abortedMs !== undefined && r.abortedMs <= (r.endedMs ?? Number.POSITIVE_INFINITY);
      if (told && r.abortedMs! <= at + TOLD_TO_STOP_GRACE_MS) continue;
      if (told)
        return `turn ${cancel.turn}: the loop aborted the signal it gave the body of ${r.name} (call ${r.callId}) only at ${r.abortedMs} ms, ${r.abortedMs! - at} ms after the case cancelled the turn (at ${at} ms) while it ran — abort it with the cancel`;
      const ranOn = r.endedMs !== undefined ? `ran on to ${r.endedMs} ms` : 'was still running when the case ended';
      const gave = r.signalGiven === false ? 'no abort signal' : 'a signal it never aborted';
      return `turn ${cancel.turn}: the loop gave the body of ${r.name} (call ${r.callId}) ${gave}: the case cancelled the turn at ${at} ms while it ran, and it ${ranOn} — pass the turn's signal (or one the cancel aborts) to every tool it runs`;
    }
  }
  return undefined;
}

/**
 * Another framework's loop (or a team's own) seen from outside: once the harness aborted a turn's signal (a user's
 * Stop), no tool body of that turn starts (outside probe 37, F2: a loop that ran the refund the model asked for
 * after the cancel passed every invariant).
 */
function noBodyAfterCancel(run: PeerRun): string | undefined {
  for (const cancel of run.cancels ?? []) {
    const late = run.toolRuns.find((r) => r.turn === cancel.turn && r.startedAt !== undefined && r.startedAt > cancel.at);
    if (late)
      return `turn ${cancel.turn}: the body of ${late.name} (call ${late.callId}) started after the turn was cancelled by ${cancel.by}: a tool ran after it was told to stop`;
  }
  return undefined;
}

/**
 * Once its turn is cancelled, no call starts: no `tool.started` record follows the turn's `cancel.requested`
 * (the loop checks before each start record), and no body starts with its signal already aborted.
 */
function neverStartedStopped(run: ScenarioRun): string | undefined {
  for (const turn of viewOf(run).turns) {
    if (turn.recovered) continue;
    const cancel = turn.events.find((e) => e.type === 'cancel.requested');
    if (!cancel) continue;
    const late = turn.events.find((e) => e.type === 'tool.started' && e.seq > cancel.seq) as Extract<LogEvent, { type: 'tool.started' }> | undefined;
    if (late)
      return `turn ${turn.turn}: call ${late.payload.callId} to ${late.payload.name} started (seq ${late.seq}) after the turn was cancelled (cancel.requested, seq ${cancel.seq})`;
  }
  for (const [callId, bodies] of run.toolBodies ?? []) {
    const body = bodies.find((b) => b.startedStopped);
    if (body) {
      const reason = body.signal.reason as { message?: unknown } | undefined;
      return `call ${callId}: the body of ${body.tool} started at ${body.startedAt} ms with its signal already aborted (${String(reason?.message ?? reason)}): a tool ran after it was told to stop`;
    }
  }
  return undefined;
}

function toldToStop(run: ScenarioRun): string | undefined {
  const bodies = run.toolBodies;
  if (!bodies || bodies.size === 0) return undefined;
  const known = viewOf(run).known;
  const recovered = new Set<number>();
  for (const e of known) if (e.type === 'turn.closed' && e.payload.recovered === true) recovered.add(e.payload.turn);
  for (const e of known) {
    if (e.type !== 'tool.result' || e.payload.status !== 'unknown' || recovered.has(e.payload.turn)) continue;
    const { callId, name, error } = (e as Extract<LogEvent, { type: 'tool.result' }>).payload;
    if (!error || !GIVEN_UP.has(error.error_code)) continue;
    const last = (bodies.get(callId) ?? []).filter((b) => b.startedAt <= e.at).at(-1);
    if (!last || last.signal.aborted) continue;
    if (last.endedAt !== undefined && last.endedAt <= e.at) continue;
    const still = last.endedAt === undefined ? 'it never ended' : `it ran on until ${last.endedAt} ms`;
    return `call ${callId} to ${name} was answered unknown/${error.error_code} at ${e.at} ms, but its tool's signal was never aborted: ${still}`;
  }
  return undefined;
}

function toldTimedOutWhenDone(run: ScenarioRun): string | undefined {
  for (const [callId, bodies] of run.toolBodies ?? []) {
    for (const [i, body] of bodies.entries()) {
      const reason = body.signal.reason as { name?: unknown; message?: unknown } | undefined;
      if (body.abortedAfterEnd !== true || reason?.name !== 'ToolTimeoutError') continue;
      return `call ${callId}: run ${i + 1} of its tool's body ended at ${String(body.endedAt)} ms, then its signal was aborted as timed out (${String(reason.message)})`;
    }
  }
  return undefined;
}
