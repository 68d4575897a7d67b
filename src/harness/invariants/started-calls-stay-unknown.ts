/**
 * A call that ran may have taken effect, and its result must say so: a tool call
 * whose body ran (the world counts every execution) is never answered with a
 * "never ran" code (NOT_RUN, CANCELLED, DENIED, …), and a call that started and
 * whose outcome nobody knows — INTERRUPTED, TIMEOUT, a PIPELINE_ERROR — is
 * `unknown`, never `failed`. (A start record alone is not a run: the loop may
 * still stop the call before its body, and then say so.) Telling the model a refund that went
 * through "failed" invites it to refund again; it is what an executor that
 * breaks its contract (a started call left without a result when the turn
 * closes, or a throw after the call ran) must never turn into.
 *
 * And the other way round: a call is refused as already started (ALREADY_STARTED:
 * "it may have run") only if its chain of repeats holds a start that counts — one
 * whose write-ahead record the store took. A start the store refused (its result:
 * failed after 0 attempts, NOT_RECORDED or NOT_RUN) never ran; refusing its repeat
 * would leave the work undone while the model is told it may be done. And the start
 * that counts came before: another call of its chain, or its own in an earlier
 * turn — a call's own attempt in the turn that answers it is how it ran, and its
 * result must say how that ended.
 *
 * A STATEFUL or CRITICAL call without a start record never ran (write-ahead): its result never says INTERRUPTED.
 * Nor, in one life, does a call whose body never began (the loop stopped it first, and knows it).
 *
 * And a result counts the attempts its call started: its `attempts` never
 * exceed the call's start records in its turn (since the id's previous result) —
 * a call crash recovery closes as NOT_RUN (no start record) made no attempt, and a
 * report, trace or model that reads "1 attempt" of a refund that never ran is told
 * it may have (outside probe 24, Q19) — and counts every one of them, but for a
 * last one stopped before its body began (a cancel after its start was stored, a
 * refused write-ahead; only when fewer bodies began than starts were recorded): a
 * retry that ran is part of what took effect, or may have (a pipeline that counted
 * only the first attempt passed every fuzz case).
 */
import { startRefused, type LogEvent } from '../../kernel/index.ts';
import { RESULT_LOSING_FAULTS } from '../scenario/schema.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { viewOf } from './support/log-view.ts';
import { repeatChains } from './support/model-call-ids.ts';

/** Codes that say the call never ran. */
const NEVER_RAN = new Set(['NOT_RUN', 'CANCELLED', 'DENIED', 'INVALID_ARGUMENTS', 'TOOL_NOT_AVAILABLE']);
/** Codes that say nobody knows whether a started call took effect. */
const MAY_HAVE_RUN = new Set(['INTERRUPTED', 'TIMEOUT', 'PIPELINE_ERROR']);

export const startedCallsStayUnknown = defineInvariant({
  id: 'started-calls-stay-unknown',
  title: 'a tool call that ran is never reported as not run, and one whose outcome is unknown is reported unknown',
  appliesTo: loopgateOnly('result codes and start records are in loopgate’s event log'),
  check: (run) => startedCallsHonest(run) ?? unstartedNeverInFlight(run) ?? interruptedOnlyIfRan(run) ?? refusedOnlyIfStarted(run) ?? attemptsCountStarts(run),
});

/**
 * In one life the loop knows whether a call's body began: a call it stopped before its body ran — a cancel after the
 * write-ahead, before the body — never ran, however its start record reads, and its result says CANCELLED, not
 * INTERRUPTED (outside probe 59, P12: the abort check before the body taken out, such a refund was told "it may have
 * taken effect", and only one bundled case's exact results saw it). Only a process that died (crash recovery, which
 * cannot know) or a tool executor breaking its contract (foreign code between the start and the body) may say
 * INTERRUPTED of a call whose body never ran.
 */
function interruptedOnlyIfRan(run: ScenarioRun): string | undefined {
  if (run.lives > 1) return undefined;
  // Only the faults that break the one-result contract put foreign code between a start and its body (a span misused
  // or a redaction skipped answers every call as the pipeline does).
  const foreign = new Set(run.scenario.tools.filter((t) => t.executor !== undefined && RESULT_LOSING_FAULTS.includes(t.executor as never)).map((t) => t.name));
  for (const turn of viewOf(run).turns) {
    if (turn.recovered) continue;
    for (const e of turn.events) {
      if (e.type !== 'tool.result' || e.payload.error?.error_code !== 'INTERRUPTED') continue;
      const { callId, name } = e.payload;
      if (foreign.has(name) || (run.executionsByToolCall.get(name)?.get(callId) ?? 0) > 0) continue;
      return `turn ${turn.turn}: call ${callId} to ${name} (seq ${e.seq}) never ran — no body of it began, and no crash hid one — but its result says INTERRUPTED, that it may have taken effect: the loop knew it stopped the call first (CANCELLED)`;
    }
  }
  return undefined;
}

/**
 * A STATEFUL or CRITICAL call runs only once its start record is stored (the write-ahead rule), so one without a
 * start record never ran: closed with its turn — by the loop, or by crash recovery in whichever host reopened the
 * store — it is NOT_RUN, never INTERRUPTED ("it may have taken effect"). Told a refund that never ran may have gone
 * through, the model checks for it, or gives up on it (outside probe 59, P13: the production host's recovery not
 * given the tools' levels closed every such call INTERRUPTED, and only exact bundled histories saw it).
 */
function unstartedNeverInFlight(run: ScenarioRun): string | undefined {
  const startedSinceResult = new Set<string>();
  for (const e of viewOf(run).known) {
    if (e.type === 'tool.started') startedSinceResult.add(e.payload.callId);
    if (e.type !== 'tool.result') continue;
    const { callId, name, error } = e.payload;
    const started = startedSinceResult.delete(callId);
    const level = run.sideEffectLevels.get(name);
    if (started || error?.error_code !== 'INTERRUPTED' || (level !== 'STATEFUL' && level !== 'CRITICAL')) continue;
    return `${level} call ${callId} to ${name} (seq ${e.seq}) has no start record — it never ran — but its result says INTERRUPTED, that it may have taken effect: it must be NOT_RUN`;
  }
  return undefined;
}

function attemptsCountStarts(run: ScenarioRun): string | undefined {
  for (const turn of viewOf(run).turns) {
    const starts = new Map<string, number>();
    for (const e of turn.events) {
      if (e.type === 'tool.started') starts.set(e.payload.callId, (starts.get(e.payload.callId) ?? 0) + 1);
      else if (e.type === 'tool.result') {
        const started = starts.get(e.payload.callId) ?? 0;
        starts.delete(e.payload.callId);
        const what = `turn ${turn.turn}: the result of call ${e.payload.callId} (${e.payload.name}, ${e.payload.status}${e.payload.error ? ` ${e.payload.error.error_code}` : ''}) counts ${e.payload.attempts} attempt(s)`;
        if (e.payload.attempts > started) return `${what}, but the call has ${started} start record(s)`;
        // A call that ran to its end counts every attempt it started. One stopped before a body began (a cancel after
        // the start was stored, a refused write-ahead) may leave out that attempt, and only that one — no retry follows
        // it — and only when a start of it never ran a body (the world counts every body that began).
        const bodies = run.executionsByToolCall.get(e.payload.name)?.get(e.payload.callId) ?? 0;
        const least = e.payload.status !== 'ok' && bodies < started ? started - 1 : started;
        if (e.payload.attempts < least)
          return `${what}, but the call has ${started} start record(s): ${started - e.payload.attempts} attempt(s) it started not counted`;
      }
    }
  }
  return undefined;
}

function startedCallsHonest(run: ScenarioRun): string | undefined {
  const known = viewOf(run).known;
  const started = new Set<string>();
  for (const e of known) if (e.type === 'tool.started') started.add(e.payload.callId);
  // A model may give a later call an earlier call's id: the world counts executions per id, so a result is held to
  // them only when its own occurrence of the id started (a start since the id's previous result).
  const startedSinceResult = new Set<string>();
  for (const e of known) {
    if (e.type === 'tool.started') startedSinceResult.add(e.payload.callId);
    if (e.type !== 'tool.result') continue;
    const { callId, name, status } = (e as Extract<LogEvent, { type: 'tool.result' }>).payload;
    const thisOccurrenceStarted = startedSinceResult.delete(callId);
    const code = e.payload.error?.error_code;
    if (code === undefined) continue;
    // The tool's body ran (the world counted it): whatever came of it, it may have taken effect.
    const ran = thisOccurrenceStarted && (run.executionsByToolCall.get(name)?.get(callId) ?? 0) > 0;
    const where = `call ${callId} to ${name} (seq ${e.seq})`;
    if (ran && NEVER_RAN.has(code)) return `${where} ran — it may have taken effect — but its result says ${code}: that it never ran`;
    if ((ran || started.has(callId)) && MAY_HAVE_RUN.has(code) && status !== 'unknown')
      return `${where} started and ended ${code}, but its result is ${status}: a call that may have taken effect is unknown, never failed`;
  }
  return undefined;
}

function refusedOnlyIfStarted(run: ScenarioRun): string | undefined {
  const known = viewOf(run).known;
  const chains = repeatChains(run);
  const refusedStart = new Set<string>();
  for (const e of known) {
    if (e.type !== 'tool.result') continue;
    if (startRefused(e.payload)) refusedStart.add(e.payload.callId);
  }
  const counted = new Set<string>(); // chains holding a start that counts
  // The store holds what a reopened log reads: a refused start it holds must come with the result that takes it back.
  const stored = run.store.peek(run.conversation);
  const storedResults = new Set(stored.filter((r) => r.type === 'tool.result').map((r) => (r.payload as { callId: string }).callId));
  for (const r of stored) {
    const callId = (r.payload as { callId?: string }).callId;
    if (r.type === 'tool.started' && callId !== undefined && refusedStart.has(callId) && !storedResults.has(callId))
      return `the store holds the start of call ${callId} (seq ${r.seq}), whose start record it refused, without the result saying so: reopened, the log claims a start that never ran`;
  }
  // Starts by call id and turn: a call's own attempt in the turn that answers it is no start "earlier".
  const startsOf = new Map<string, Set<number>>();
  for (const e of known) {
    if (e.type === 'tool.started' && !refusedStart.has(e.payload.callId)) {
      counted.add(chains.get(e.payload.callId) ?? e.payload.callId);
      startsOf.set(e.payload.callId, (startsOf.get(e.payload.callId) ?? new Set()).add(e.payload.turn));
    }
    if (e.type !== 'tool.result' || e.payload.error?.error_code !== 'ALREADY_STARTED') continue;
    const { callId, name, turn } = e.payload;
    const chain = chains.get(callId) ?? callId;
    if (!counted.has(chain) && !counted.has(callId))
      return `call ${callId} to ${name} (seq ${e.seq}) was refused ALREADY_STARTED, but no call of its chain (${chain}) has a start the store took: it never ran, and the model is told it may have`;
    // A start of another call of its chain, or of this one in an earlier turn (before a crash, say), is an earlier
    // start. Only its own attempt in this turn is not: the call ran here and its result must say how that attempt
    // ended — a STATEFUL body that threw is failed TOOL_ERROR (outside probe 38: a retry of a STATEFUL call, refused by
    // the pipeline's own guard, told the model "started earlier", and every invariant held).
    const others = [...startsOf.keys()].some((id) => id !== callId && (chains.get(id) ?? id) === chain);
    const ownEarlier = [...(startsOf.get(callId) ?? [])].some((t) => t !== turn);
    if (!others && !ownEarlier && startsOf.get(callId)?.has(turn))
      return `call ${callId} to ${name} (seq ${e.seq}) was answered ALREADY_STARTED ("an execution of this call already started earlier"), but the only start of its chain is its own attempt in this turn: the model must be told how that attempt ended`;
  }
  return undefined;
}
