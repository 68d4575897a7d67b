/**
 * The invariants: one registry, checked on every case by `loopgate run` (scenario
 * files, table cells) and on every generated case by `loopgate fuzz` and
 * `fuzzAgent` — the same list, in this order. One file per invariant; the
 * numbered ones are DESIGN.md's.
 */
import { isAbsolute, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CheckResult } from '../../report/results.ts';
import { crashRecovery } from './crash-recovery.ts';
import { adapterFollowsTheWire } from './adapter-follows-the-wire.ts';
import { adapterSendsTheRequest } from './adapter-sends-the-request.ts';
import { argumentsValidated } from './arguments-validated.ts';
import { twoObjectsNeverRun } from './two-objects-never-run.ts';
import { argumentsReadAsSent } from './arguments-read-as-sent.ts';
import { callRecordsKeepTheirStep } from './call-records-keep-their-step.ts';
import { toolOutputCapped } from './tool-output-capped.ts';
import { compactionKeepsTurnsWhole } from './compaction-keeps-turns-whole.ts';
import { compactorOfferedWidestRange } from './compactor-offered-widest-range.ts';
import { fallbackMovesDownTheChain } from './fallback-moves-down-the-chain.ts';
import { retryAfterHonoured } from './retry-after-honoured.ts';
import { isPeerRun } from '../loop-port/peer-run.ts';
import type { AnyRun, Invariant, InvariantContext } from './invariant.ts';
import { requestsRecomputable } from './invariant-01-requests-recomputable.ts';
import { oneAppendFrozen } from './invariant-02-one-append-frozen.ts';
import { unknownTypesRejected } from './invariant-03-unknown-types-rejected.ts';
import { turnsClosedOnce } from './invariant-04-turns-closed-once.ts';
import { failedTurnsAddNothing } from './invariant-05-failed-turns-add-nothing.ts';
import { toolPairing } from './invariant-06-tool-pairing.ts';
import { denyNeverLifted } from './invariant-07-deny-never-lifted.ts';
import { policyDecidesAsWritten } from './policy-decides-as-written.ts';
import { approvalsTimeOutAsDeclared } from './approvals-time-out-as-declared.ts';
import { approverAnswersFollowed } from './approver-answers-followed.ts';
import { approverSawTheCall } from './approver-saw-the-call.ts';
import { approverAskedOnlyAboutStoredCalls } from './approver-asked-only-about-stored-calls.ts';
import { followersReplayTheLog } from './followers-replay-the-log.ts';
import { followersShowOnlyStored } from './followers-show-only-stored.ts';
import { deltasSpellTheMessage } from './deltas-spell-the-message.ts';
import { hostRefusesBadRequests } from './host-refuses-bad-requests.ts';
import { sseErrorsRedacted } from './sse-errors-redacted.ts';
import { hostKeepsSessionsBounded } from './host-keeps-sessions-bounded.ts';
import { denialsSayWhy } from './denials-say-why.ts';
import { spanMisuseRecorded } from './span-misuse-recorded.ts';
import { listenerFailuresRecorded } from './listener-failures-recorded.ts';
import { noOpenSpans } from './invariant-08-no-open-spans.ts';
import { inboxDeliveredOnce } from './invariant-09-inbox-delivered-once.ts';
import { overflowRetryOnlyIfShrank } from './invariant-10-overflow-retry-only-if-shrank.ts';
import { budgetsBeforeWork } from './invariant-11-budgets-before-work.ts';
import { nothingThrows } from './invariant-12-nothing-throws.ts';
import { sideEffectsOnce } from './invariant-13-side-effects-once.ts';
import { toolsGetOneKeyPerCall } from './tools-get-one-key-per-call.ts';
import { sideEffectsTold } from './invariant-14-side-effects-told.ts';
import { secretsNeverLeave } from './invariant-15-secrets-never-leave.ts';
import { secretFragmentsNeverLeave } from './secret-fragments-never-leave.ts';
import { credentialShapesRedacted } from './credential-shapes-redacted.ts';
import { outcomeFollowsTable } from './outcome-follows-table.ts';
import { costFollowsPriceTable } from './cost-follows-price-table.ts';
import { projectionEqualsReplay } from './projection-equals-replay.ts';
import { requestsHoldNoBlankText } from './requests-hold-no-blank-text.ts';
import { requestsHoldWellFormedText } from './requests-hold-well-formed-text.ts';
import { promptFollowsFragments } from './prompt-follows-fragments.ts';
import { agentCompactorProposesWholeTurns } from './agent-compactor-proposes-whole-turns.ts';
import { agentFragmentsGiveText } from './agent-fragments-give-text.ts';
import { outcomeFitsWhatHappened } from './outcome-fits-what-happened.ts';
import { snapshotResumesTheFold } from './snapshot-resumes-the-fold.ts';
import { startedCallsStayUnknown } from './started-calls-stay-unknown.ts';
import { toolsToldToStop } from './tools-told-to-stop.ts';
import { toolsStopWhenTold } from './tools-stop-when-told.ts';
import { cancelStopsTheWait } from './cancel-stops-the-wait.ts';
import { toolsTimeOutAsDeclared } from './tools-time-out-as-declared.ts';
import { modelCallsTimeOutAsDeclared } from './model-calls-time-out-as-declared.ts';
import { toolsAloneUnlessParallelSafe } from './tools-alone-unless-parallel-safe.ts';
import { failuresNotRetriedWhenTold } from './failures-not-retried-when-told.ts';
import { toolRetriesFollowPolicy } from './tool-retries-follow-policy.ts';
import { toolRetriesWaitTheirBackoff } from './tool-retries-wait-their-backoff.ts';
import { traceAgreesWithLog } from './trace-agrees-with-log.ts';
import { otelGenAiFollowsLog } from './otel-genai-follows-log.ts';
import { recoveredTurnsTraced } from './recovered-turns-traced.ts';
import { hostAnswersFollowOutcomes } from './host-answers-follow-outcomes.ts';
import { hostAnswersOnlyWhatIsStored } from './host-answers-only-what-is-stored.ts';
import { hostKeepsItsContract } from './host-keeps-its-contract.ts';
import { retriesAnsweredAsTheirMessage } from './retries-answered-as-their-message.ts';
import { conversationsKeptApart } from './conversations-kept-apart.ts';
import { clientAbortCancelsItsTurn } from './client-abort-cancels-its-turn.ts';
import { cutCallsNeverKept } from './cut-calls-never-kept.ts';
import { repliesComeFromTheModel } from './replies-come-from-the-model.ts';
import { usageAsTheModelReported } from './usage-as-the-model-reported.ts';

export { defineInvariant, firstViolation, type AnyRun, type Invariant, type InvariantContext, type PeerRun, type Verdict } from './invariant.ts';

export const INVARIANTS: readonly Invariant[] = [
  nothingThrows, // first: a run that threw makes every other verdict noise
  turnsClosedOnce,
  requestsRecomputable,
  requestsHoldNoBlankText,
  requestsHoldWellFormedText,
  oneAppendFrozen,
  listenerFailuresRecorded,
  unknownTypesRejected,
  failedTurnsAddNothing,
  repliesComeFromTheModel,
  usageAsTheModelReported,
  toolPairing,
  callRecordsKeepTheirStep,
  denyNeverLifted,
  policyDecidesAsWritten,
  approverAnswersFollowed,
  approverSawTheCall,
  approverAskedOnlyAboutStoredCalls,
  approvalsTimeOutAsDeclared,
  followersReplayTheLog,
  followersShowOnlyStored,
  hostRefusesBadRequests,
  sseErrorsRedacted,
  hostKeepsSessionsBounded,
  denialsSayWhy,
  argumentsValidated,
  argumentsReadAsSent,
  cutCallsNeverKept,
  twoObjectsNeverRun,
  toolOutputCapped,
  noOpenSpans,
  spanMisuseRecorded,
  traceAgreesWithLog,
  otelGenAiFollowsLog,
  recoveredTurnsTraced,
  inboxDeliveredOnce,
  hostAnswersFollowOutcomes,
  hostAnswersOnlyWhatIsStored,
  hostKeepsItsContract,
  retriesAnsweredAsTheirMessage,
  conversationsKeptApart,
  clientAbortCancelsItsTurn,
  overflowRetryOnlyIfShrank,
  fallbackMovesDownTheChain,
  retryAfterHonoured,
  modelCallsTimeOutAsDeclared,
  compactionKeepsTurnsWhole,
  compactorOfferedWidestRange,
  budgetsBeforeWork,
  sideEffectsOnce,
  toolsGetOneKeyPerCall,
  startedCallsStayUnknown,
  toolsToldToStop,
  toolsStopWhenTold,
  cancelStopsTheWait,
  toolsTimeOutAsDeclared,
  toolsAloneUnlessParallelSafe,
  failuresNotRetriedWhenTold,
  toolRetriesFollowPolicy,
  toolRetriesWaitTheirBackoff,
  sideEffectsTold,
  secretsNeverLeave,
  secretFragmentsNeverLeave,
  credentialShapesRedacted,
  // After the secrets' rules: a stream redacted apart from its message is first a leak, and named so.
  deltasSpellTheMessage,
  projectionEqualsReplay,
  snapshotResumesTheFold,
  promptFollowsFragments,
  agentFragmentsGiveText,
  agentCompactorProposesWholeTurns,
  outcomeFollowsTable,
  outcomeFitsWhatHappened,
  costFollowsPriceTable,
  adapterFollowsTheWire,
  adapterSendsTheRequest,
  crashRecovery,
];

/** Crash points `loopgate run` checks per case (the fuzzer checks a few per case, over many cases). */
export const RUN_CRASH_POINTS = 500;

/** Why an invariant does not apply to this run, or nothing. */
export function notApplicable(invariant: Invariant, run: AnyRun): string | undefined {
  const why = invariant.appliesTo?.(run);
  if (why !== undefined || !isPeerRun(run)) return why;
  return invariant.checkObservable ? undefined : `written for loopgate's own runs: it has no check from outside a loop (checkObservable)`;
}

/** Runs one invariant; a check that throws is a violation naming the error. */
export async function verdictOf(invariant: Invariant, run: AnyRun, context: InvariantContext): Promise<string | undefined> {
  let verdict: unknown;
  try {
    verdict = isPeerRun(run) ? await invariant.checkObservable?.(run) : await invariant.check(run, context);
  } catch (error) {
    // loopgate's own check throwing is loopgate's bug: its stack is what to report. A user's is told in one line.
    if (INVARIANTS.includes(invariant)) return `the check threw: ${(error as Error)?.stack ?? String(error)}`;
    return userCheckThrew(invariant, error);
  }
  if (verdict === undefined || (typeof verdict === 'string' && verdict !== '')) return verdict;
  // A verdict that says nothing is a bug of the check, reported as what it is (not as a violation with a blank message).
  const said =
    verdict === ''
      ? 'an empty string'
      : typeof verdict === 'object' && verdict !== null
        ? `an object (${JSON.stringify(verdict)?.slice(0, 80)})`
        : String(verdict);
  return `the check returned ${said}: return undefined when the invariant holds, a sentence saying what went wrong when it does not`;
}

/** `the check threw: Error: <message> (invariant <id>, at <file>:<line>:<column>)`: one line, the user's frame that threw, no stack. */
function userCheckThrew(invariant: Invariant, error: unknown): string {
  const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const where = error instanceof Error ? throwSite(error.stack) : undefined;
  return `the check threw: ${what.replace(/\s*\n\s*/g, ' ')} (invariant ${invariant.id}${where ? `, at ${where}` : ''})`;
}

/** The first frame of a stack outside Node's own code, as a path relative to the working directory when under it. */
function throwSite(stack: string | undefined): string | undefined {
  for (const line of (stack ?? '').split('\n')) {
    const frame = /^\s+at (?:.*? \()?(.+?):(\d+):(\d+)\)?$/.exec(line);
    if (!frame || frame[1]!.startsWith('node:') || frame[1] === 'native') continue;
    let file = frame[1]!;
    if (file.startsWith('file://')) {
      try {
        file = fileURLToPath(file);
      } catch {
        // kept as written
      }
    }
    const rel = relative(process.cwd(), file);
    return `${rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file}:${frame[2]}:${frame[3]}`;
  }
  return undefined;
}

/**
 * What is wrong with a list of invariants to check (an entry that is no
 * invariant, two with one id — a report could not tell them apart), or
 * undefined. `label` names the list in the message.
 */
export function invariantListProblem(list: readonly unknown[], label = 'invariants'): string | undefined {
  const seen = new Set<string>();
  for (const [i, entry] of list.entries()) {
    const x = entry as Partial<Invariant> | null;
    if (x === null || typeof x !== 'object' || typeof x.id !== 'string' || typeof x.check !== 'function')
      return `${label}[${i}]: expected an invariant: defineInvariant({ id, title, check(run) })`;
    if (seen.has(x.id)) {
      const builtIn = INVARIANTS.some((b) => b.id === x.id && b !== entry);
      return `${label}: two invariants have the id "${x.id}"${builtIn ? " (one of loopgate's)" : ''}: give yours an id of its own`;
    }
    seen.add(x.id);
  }
  return undefined;
}

/** How long checks may hold the thread before timers are let run. */
const YIELD_AFTER_MS = 50;

/**
 * Every applicable invariant as a check result (named by its id), in registry
 * order. An invariant that cannot judge the run (a peer's, or a part the agent
 * or the host supplies in place of the scenario's) is listed as such, with the
 * reason (a skip always says why).
 */
export async function checkInvariants(
  run: AnyRun,
  invariants: readonly Invariant[] = INVARIANTS,
  context: InvariantContext = { crashPoints: RUN_CRASH_POINTS, reopenFromSqlite: true },
): Promise<CheckResult[]> {
  const out: CheckResult[] = [];
  let heldSince = performance.now();
  for (const invariant of invariants) {
    // A long run makes each check long (every request carries the whole history): after checks that held the
    // thread for a while, timers run — the hang watchdog's heartbeat among them, which would otherwise take a
    // legal 2,700-turn case for stuck code (outside probe 35, F8).
    if (performance.now() - heldSince > YIELD_AFTER_MS) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      heldSince = performance.now();
    }
    const why = notApplicable(invariant, run);
    if (why !== undefined) {
      // Listed with its reason, on every run: an invariant that quietly drops out reads as one that held.
      out.push({ name: invariant.id, passed: true, message: `not judged: ${why}` });
      continue;
    }
    const violation = await verdictOf(invariant, run, context);
    out.push(violation === undefined ? { name: invariant.id, passed: true, message: 'holds' } : { name: invariant.id, passed: false, message: violation });
  }
  return out;
}
