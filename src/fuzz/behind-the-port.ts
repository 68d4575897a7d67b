/**
 * Fuzz cases for a loop behind the port (a team's own loop, or an adapter of a
 * framework's): the generated scenario cut down to what the port can hand such a
 * loop and what it declares it can do (capabilities.ts). What no loop behind the
 * port can be given (a steer, a crash, loopgate's production host, a policy or a
 * compactor the world does not hold) is dropped from the case; what the loop
 * does not declare (a per-tool timeout, tool retries, a model timeout, budgets) is
 * taken out of it the same way — a hang (a body slow in virtual time instead), a retryable failure's
 * word, a timed-out model call, arguments only a lenient repair reads or JSON
 * cannot carry. What is left is a case `loopgate run` runs unchanged against that
 * loop (peer-case.ts), which is how a counterexample is reproduced; one that
 * still needs what the loop lacks (`runnableOnLoop`: none is expected) is not run,
 * and the fuzz run says so.
 */
import type { Behaviour, InboxEntry, ProviderStep, Scenario, ScenarioTool } from '../harness/scenario/schema.ts';
import type { Capability } from '../harness/loop-port/capabilities.ts';
import { jsonSafe, requirementsOf, skipReason, type ToolTimeouts } from '../harness/loop-port/requirements.ts';
import type { FuzzCase, FuzzCaseOptions } from './generators/scenario.ts';
import { defineInvariant, type Invariant } from '../harness/invariants/index.ts';
import { nothingThrows } from '../harness/invariants/invariant-12-nothing-throws.ts';
import { isPeerRun } from '../harness/loop-port/peer-run.ts';
import { LOOP_REPORT, PERSISTED_HISTORY, peerRunProblem } from '../harness/loop-port/peer-case.ts';

/** A body's wait in place of a hang, where the tool declares no timeout: a minute of virtual time. */
const SLOW_IN_PLACE_OF_A_HANG_MS = 60_000;

/** What to generate for a loop behind the port: nothing only loopgate's own host can do. */
export function optionsForLoop(options: FuzzCaseOptions): FuzzCaseOptions {
  return {
    ...options,
    crashes: false,
    production: 0,
    bystander: 0,
    bystanderCrash: 0,
    // A told call needs a compactor; an overlap, two compactions: no loop behind the port holds one.
    aimedTold: 0,
    aimedOverlap: 0,
    // The executor is loopgate's loop's; the operator's settings are its production host's.
    skipsRedaction: 0,
    operator: 0,
    // Over the wire a loop behind the port waits in real time (its timers are its own there): a drawn retry-after of a
    // minute is a minute per case. Its wire scenarios are `loopgate run`'s.
    wire: 0,
  };
}

/** The case as the port hands it to a loop that supports `supports`: what it cannot be given, dropped. */
export function forLoop(fuzzCase: FuzzCase, supports: readonly Capability[], timeouts: ToolTimeouts): FuzzCase {
  const has = (c: Capability) => supports.includes(c);
  const s = fuzzCase.scenario;
  const {
    host: _host,
    hosts: _hosts,
    follow: _follow,
    bystander: _bystander,
    listener: _listener,
    operator: _operator,
    policy,
    approver,
    visibility,
    compaction,
    checkpoints,
    claim,
    errorHandlers,
    prompt,
    store,
    secretsOnReopen: _secretsOnReopen,
    ...rest
  } = s as Scenario & Record<string, unknown>;
  // A client's message id and the host it goes to are the production host's: the message itself is kept.
  const inbox = s.inbox.filter((e) => keptEntry(e, has, s.provider.kind === 'wire')).map(({ messageId: _id, via: _via, ...e }) => e);
  const { fallback, ...provider } = s.provider;
  const script = provider.script.flatMap((step): ProviderStep[] => {
    if (!has('model-timeout') && step.error?.kind === 'timeout') return [];
    if (!step.tool_use) return [step];
    // A call sent twice in one answer (fuzz draws one call in twenty so) only where the loop says it runs it once:
    // another loop runs both copies (the bundled safety/same-call-sent-twice-in-one-answer-runs-once shows it).
    const calls = step.tool_use.filter(
      (call, i, all) =>
        argsFor(call.args, has, s.provider.kind === 'wire') && (has('repeated-calls') || i === 0 || JSON.stringify(call) !== JSON.stringify(all[i - 1])),
    );
    return calls.length === 0 ? [] : [{ ...step, tool_use: calls }];
  });
  const scenario: Scenario = {
    ...(rest as Scenario),
    config: configFor(s.config, has),
    tools: s.tools.map((t) => toolFor(t, has, timeouts)),
    provider: { ...provider, script, ...(fallback && has('fallback') ? { fallback } : {}) },
    inbox: inbox.length > 0 ? inbox : [{ say: 'Hello.' }],
    ...(policy && has('policy') ? { policy } : {}),
    ...(approver && has('approver') ? { approver } : {}),
    ...(visibility && has('visibility') ? { visibility } : {}),
    ...(compaction && has('compaction') ? { compaction } : {}),
    ...(checkpoints && has('checkpoints') ? { checkpoints } : {}),
    ...(claim && has('claim') ? { claim } : {}),
    ...(errorHandlers && has('error-handlers') ? { errorHandlers } : {}),
    ...(prompt && has('prompt-fragments') ? { prompt } : {}),
    ...(store && has('store-faults') ? { store } : {}),
  };
  return { scenario, crashAt: undefined, ...(fuzzCase.arms ? { arms: fuzzCase.arms } : {}) };
}

/** Can the loop run the case as it is (nothing left it lacks)? */
export function runnableOnLoop(fuzzCase: FuzzCase, loop: string, supports: readonly Capability[], timeouts: ToolTimeouts): boolean {
  return skipReason(loop, requirementsOf(fuzzCase.scenario, timeouts), { supports, history: 'app-glue', time: 'patched-timers' }) === undefined;
}

/** Arguments the loop can be handed: JSON (unless it takes what JSON cannot carry); a raw text only over the wire or where the loop repairs it. */
function argsFor(args: unknown, has: (c: Capability) => boolean, wire: boolean): boolean {
  if (!has('non-json-args') && !jsonSafe(args)) return false;
  return typeof args !== 'string' || wire || has('lenient-args');
}

/** An inbox entry the port can deliver: a message, or a cancel, on triggers the harness sees from outside the loop. */
function keptEntry(entry: InboxEntry, has: (c: Capability) => boolean, wire: boolean): boolean {
  if (entry.disconnect !== undefined || entry.gone !== undefined) return false;
  if ((entry.at?.event !== undefined || entry.at?.toolRecorded !== undefined) && !has('event-triggers')) return false;
  if (entry.at?.delta !== undefined && !(wire && has('stream-triggers'))) return false;
  if (entry.say !== undefined || entry.cancel !== undefined) return true;
  if (entry.steer !== undefined) return has('steer');
  if (entry.inject !== undefined) return has('inject');
  if (entry.crash || entry.reopen) return has('crash');
  if (entry.shutdown) return has('shutdown');
  if (entry.undoCompaction) return has('compaction');
  return false;
}

function configFor(config: Scenario['config'], has: (c: Capability) => boolean): Scenario['config'] {
  const {
    maxToolCallsPerTurn,
    maxToolCallsPerSession,
    maxTokensPerTurn,
    maxTokensPerSession,
    modelTimeoutMs,
    sideEffectNotice,
    toolMaxOutputChars,
    toolRetryBackoffMs,
    ...rest
  } = config;
  return {
    ...rest,
    ...(has('budget:tool-calls') ? { maxToolCallsPerTurn, maxToolCallsPerSession } : {}),
    ...(has('budget:tokens') ? { maxTokensPerTurn, maxTokensPerSession } : {}),
    ...(has('model-timeout') ? { modelTimeoutMs } : {}),
    ...(has('side-effect-notice') ? { sideEffectNotice } : {}),
    ...(has('output-truncation') ? { toolMaxOutputChars } : {}),
    ...(has('tool-retry-backoff') ? { toolRetryBackoffMs } : {}),
  } as Scenario['config'];
}

/**
 * A tool as the loop can be asked to run it: without a per-tool timeout, no body outlasts its timeout — a hang
 * becomes a body slow in virtual time that still ends within it and, as the hang did, never reads its signal (a
 * cancel must stop the loop's wait for it: one whose trigger never fires cannot), a slower one as slow as the timeout
 * lets it be; without tool retries, no failure
 * says it may be retried; a value JSON cannot hold only where the loop answers one; never a broken executor
 * (loopgate's loop's).
 */
function toolFor(tool: ScenarioTool, has: (c: Capability) => boolean, timeouts: ToolTimeouts): ScenarioTool {
  const { executor: _executor, behaviour, ...rest } = tool;
  if (!behaviour) return rest;
  const timeout = tool.timeoutMs ?? timeouts.get(tool.name);
  const longest = timeout !== undefined ? timeout - 1 : SLOW_IN_PLACE_OF_A_HANG_MS;
  const kept = behaviour.flatMap((b): Behaviour[] => {
    // Deaf to its signal as the hang was: a cancel must stop the loop's wait, not the body (cancel-stops-the-wait).
    if (!has('tool-timeout') && b === 'hang') return longest > 0 ? [{ slow: longest, ignoresSignal: true }] : [];
    if (!has('tool-timeout') && typeof b === 'object' && 'slow' in b && timeout !== undefined && b.slow >= timeout)
      return longest > 0 ? [{ ...b, slow: longest }] : [];
    if (!has('non-json-output') && typeof b === 'object' && 'returnNotJson' in b) return [];
    if (!has('tool-retry') && typeof b === 'object' && 'fail' in b && b.fail.retryable === true) {
      const { retryable: _retryable, ...fail } = b.fail;
      return [{ fail }];
    }
    return [b];
  });
  return kept.length > 0 ? { ...rest, behaviour: kept } : rest;
}

/**
 * Behind the port, what the loop kept must be messages and what it reported counts before any invariant reads the
 * run — the `persisted history` and `loop report` checks `loopgate run` makes on every case of such a loop, as one
 * rule the fuzzer judges first and shrinks towards.
 */
export const LOOP_KEEPS_ITS_SHAPE: Invariant = defineInvariant({
  id: 'loop-keeps-messages-and-counts',
  title: 'what the loop kept is a list of messages, and what it reported of each turn is counts',
  appliesTo: (run) => (isPeerRun(run) ? undefined : "loopgate's own loop keeps an event log: the log's invariants judge it"),
  check: () => undefined,
  checkObservable: (run) => {
    const problem = peerRunProblem(run);
    return problem ? `${problem.check}: ${problem.message}` : undefined;
  },
});

/**
 * The checks of a run of the counterexample (as `loopgate run` runs it against the loop) that are the failure the
 * search found: the invariant's own, or — for the shape rule — the checks it stands for, or the case's throw.
 */
export function sameFailure<C extends { readonly name: string }>(failing: readonly C[], invariant: string): C[] {
  // A case starved is told by `loopgate run` as its harness check (runner.ts); the search names invariant 12.
  const names =
    invariant === LOOP_KEEPS_ITS_SHAPE.id
      ? [invariant, PERSISTED_HISTORY, LOOP_REPORT, 'the case threw']
      : invariant === nothingThrows.id
        ? [invariant, 'harness']
        : [invariant];
  return failing.filter((c) => names.includes(c.name));
}
