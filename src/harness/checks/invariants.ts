/**
 * Checks made on every case, whatever it expects: the invariants of DESIGN.md that
 * can be seen from outside the loop, and the persisted history.
 */
import {
  checkToolPairing,
  decodeRecords,
  isOutcome,
  keepsCompletedSteps,
  project,
  ProjectionCache,
  recomputeRequest,
  requestSeqs,
  EventLog,
  type LogEvent,
  type Outcome,
} from '../../kernel/index.ts';
import type { CheckResult } from '../../report/results.ts';
import { applicableChecks } from '../../fuzz/checks/index.ts';
import type { ScenarioRun } from '../second-host.ts';

type Check = (run: ScenarioRun) => CheckResult;

const pass = (name: string, message: string): CheckResult => ({ name, passed: true, message });
const fail = (name: string, message: string, expected?: unknown, actual?: unknown): CheckResult => ({
  name,
  passed: false,
  message,
  ...(expected !== undefined ? { expected } : {}),
  ...(actual !== undefined ? { actual } : {}),
});

const known = (run: ScenarioRun) => run.log.events.filter((e): e is LogEvent => !e.opaque);

export const nothingThrown: Check = (run) =>
  run.thrown === undefined
    ? pass('invariant 12: nothing thrown', 'the loop settled every turn with an outcome')
    : fail('invariant 12: nothing thrown', `the run threw: ${(run.thrown as Error)?.stack ?? String(run.thrown)}`);

export const requestsRecomputable: Check = (run) => {
  const name = 'invariant 1: requests recomputable from the log';
  const seqs = requestSeqs(run.log.events);
  if (seqs.length !== run.requests.length)
    return fail(name, `${run.requests.length} requests were sent but the log records ${seqs.length}`, run.requests.length, seqs.length);
  for (let i = 0; i < seqs.length; i++) {
    const recomputed = recomputeRequest(run.log.events, seqs[i]!);
    const sent = run.requests[i]!;
    for (const field of ['messages', 'system', 'tools', 'model', 'maxTokens'] as const) {
      if (JSON.stringify(recomputed[field]) !== JSON.stringify(sent[field])) {
        return fail(
          name,
          `request ${i + 1} (seq ${seqs[i]}): the ${field} sent differ from the ${field} recomputed from the log`,
          recomputed[field],
          sent[field],
        );
      }
    }
  }
  return pass(name, `${seqs.length} requests recomputed exactly`);
};

export const storedEventsFrozen: Check = (run) => {
  const name = 'invariant 2: stored events frozen';
  const thawed = run.log.events.find((e) => !Object.isFrozen(e) || (typeof e.payload === 'object' && e.payload !== null && !Object.isFrozen(e.payload)));
  return thawed ? fail(name, `event seq ${thawed.seq} (${thawed.type}) is not frozen`) : pass(name, `${run.log.length} events frozen`);
};

export const turnsClosedOnce: Check = (run) => {
  const name = 'invariant 4: every turn closed exactly once';
  const opened = known(run)
    .filter((e) => e.type === 'turn.opened')
    .map((e) => (e.payload as { turn: number }).turn);
  const closed = known(run)
    .filter((e) => e.type === 'turn.closed')
    .map((e) => (e.payload as { turn: number }).turn);
  if (JSON.stringify(opened) !== JSON.stringify(closed))
    return fail(name, `turns opened ${JSON.stringify(opened)} but closed ${JSON.stringify(closed)}`, opened, closed);
  if (run.results.length !== opened.length) return fail(name, `${opened.length} turns in the log, ${run.results.length} results returned`);
  return pass(name, `${opened.length} turn(s) opened and closed`);
};

export const outcomesInAlphabet: Check = (run) => {
  const name = 'outcomes in the alphabet';
  const bad = run.results.find((r) => !isOutcome(r.outcome));
  return bad ? fail(name, `turn ${bad.turn} closed with ${JSON.stringify(bad.outcome)}`) : pass(name, 'every outcome is in the closed alphabet');
};

export const failedTurnsAddNothing: Check = (run) => {
  const name = 'invariant 5: failed turns add nothing to the history';
  const outcomes = new Map<number, Outcome>();
  for (const e of known(run)) if (e.type === 'turn.closed') outcomes.set(e.payload.turn, e.payload.outcome as Outcome);
  const droppedCalls = new Set<string>();
  for (const e of known(run)) {
    if (e.type !== 'assistant.message') continue;
    const outcome = outcomes.get(e.payload.turn);
    if (outcome && !keepsCompletedSteps(outcome)) for (const b of e.payload.content) if (b.type === 'tool_call') droppedCalls.add(b.id);
  }
  const messages = project(run.log.events);
  for (const m of messages) {
    for (const b of m.content) {
      const id = b.type === 'tool_call' ? b.id : b.type === 'tool_result' ? b.callId : undefined;
      if (id && droppedCalls.has(id)) return fail(name, `call ${id} from a failed turn is in the projected history`);
    }
  }
  // The incremental projection the loop used agrees with a replay of the whole log.
  const replayed = new ProjectionCache(new EventLog({ now: () => 0 }, run.log.events)).current();
  if (JSON.stringify(replayed) !== JSON.stringify(messages)) return fail(name, 'the incremental projection differs from a replay of the whole log');
  return pass(name, `${droppedCalls.size} call(s) of failed turns kept out of the history`);
};

export const toolPairing: Check = (run) => {
  const name = 'invariant 6: tool calls and results paired in every request';
  for (let i = 0; i < run.requests.length; i++) {
    const violation = checkToolPairing(run.requests[i]!.messages);
    if (violation) return fail(name, `request ${i + 1}, message ${violation.messageIndex}: ${violation.problem}`);
  }
  const final = checkToolPairing(project(run.log.events));
  if (final) return fail(name, `the final history, message ${final.messageIndex}: ${final.problem}`);
  return pass(name, `${run.requests.length} requests well paired`);
};

export const noOpenSpans: Check = (run) => {
  const name = 'invariant 8: no span left open';
  for (const trace of run.traces) {
    const open = trace.spans.find((s) => s.status === 'undetermined');
    if (open) return fail(name, `trace ${trace.traceId}: span ${open.kind} "${open.name}" was still open when the trace ended`);
    if (trace.violations.length > 0) return fail(name, `trace ${trace.traceId}: ${trace.violations.join('; ')}`);
  }
  return pass(name, `${run.traces.length} trace(s) complete`);
};

export const inboxDeliveredOnce: Check = (run) => {
  const name = 'invariant 9: no message lost or delivered twice';
  const held = new Map<string, number>();
  for (const e of known(run)) {
    if (e.type === 'user.message') held.set(e.payload.id, (held.get(e.payload.id) ?? 0) + 1);
    if (e.type === 'inbox.returned') for (const id of e.payload.ids) held.set(id, (held.get(id) ?? 0) - 1);
  }
  for (const [id, n] of held) if (n > 1) return fail(name, `inbox message ${id} was taken ${n} times without being returned`);
  const received = known(run)
    .filter((e) => e.type === 'inbox.received')
    .map((e) => (e.payload as { id: string }).id);
  const pending = new Set(run.log.positions.pending().map((m) => m.id));
  const lost = received.filter((id) => !pending.has(id) && (held.get(id) ?? 0) !== 1);
  if (lost.length > 0) return fail(name, `inbox message(s) ${lost.join(', ')} neither pending nor delivered`);
  return pass(name, `${received.length} message(s): each delivered once or still pending`);
};

export const sideEffectsAtMostOnce: Check = (run) => {
  const name = 'invariant 13: no STATEFUL or CRITICAL call executed twice';
  const callTool = new Map<string, string>();
  for (const e of known(run)) if (e.type === 'tool.started') callTool.set(e.payload.callId, e.payload.name);
  for (const [callId, count] of run.executionsByCall) {
    const tool = callTool.get(callId);
    const level = tool ? run.sideEffectLevels.get(tool) : undefined;
    if ((level === 'STATEFUL' || level === 'CRITICAL') && count > 1) return fail(name, `${tool} (${level}) ran ${count} times for call ${callId}`);
  }
  return pass(name, 'every side-effecting call ran at most once');
};

export const persistedHistory: Check = (run) => {
  const name = 'persisted history';
  let stored;
  try {
    stored = decodeRecords(run.store.peek('case'), 'store');
  } catch (error) {
    return fail(name, `the stored records do not decode: ${(error as Error).message}`);
  }
  if (stored.length > run.log.length) return fail(name, `the store holds ${stored.length} events, the log ${run.log.length}`);
  for (let i = 0; i < stored.length; i++) {
    if (JSON.stringify(stored[i]) !== JSON.stringify(run.log.events[i]))
      return fail(name, `stored event seq ${i} differs from the log`, run.log.events[i], stored[i]);
  }
  const persistenceFailed = run.results.some((r) => r.outcome.kind === 'failed' && r.outcome.reason === 'persistence');
  // The host's own last write (of a message posted after the last turn) may be the one that failed: no turn could report it.
  const lastWriteFailed = run.storeWrites.attempts > 0 && run.storeWrites.failed.includes(run.storeWrites.attempts);
  if (!persistenceFailed && !lastWriteFailed && stored.length !== run.log.length)
    return fail(name, `${run.log.length - stored.length} event(s) never reached the store`);
  return pass(name, `${stored.length} events stored, identical to the log`);
};

export const secretsKept: Check = (run) => {
  const name = 'secrets never reach the log or the trace';
  const secrets = run.scenario.secrets ?? [];
  if (secrets.length === 0) return pass(name, 'no secrets configured');
  const haystacks = [JSON.stringify(run.log.events), JSON.stringify(run.traces)];
  for (const secret of secrets) if (haystacks.some((h) => h.includes(secret))) return fail(name, `a configured secret (${secret.slice(0, 4)}…) was written`);
  return pass(name, `${secrets.length} secret(s) kept out`);
};

export const ALWAYS_CHECKED: readonly Check[] = [
  nothingThrown,
  outcomesInAlphabet,
  requestsRecomputable,
  storedEventsFrozen,
  turnsClosedOnce,
  failedTurnsAddNothing,
  toolPairing,
  noOpenSpans,
  inboxDeliveredOnce,
  sideEffectsAtMostOnce,
  persistedHistory,
  secretsKept,
];

export function checkInvariants(run: ScenarioRun): CheckResult[] {
  const checks: Check[] = [
    ...ALWAYS_CHECKED,
    // The fuzzer's properties beyond the checks above (src/fuzz/checks), so its counterexamples fail here too.
    ...applicableChecks(run).map(
      (c): Check =>
        () => {
          const violation = c.check(run);
          return violation === undefined ? pass(c.name, 'holds') : fail(c.name, violation);
        },
    ),
  ];
  return checks.map((check) => {
    try {
      return check(run);
    } catch (error) {
      return fail('harness', `a check threw: ${(error as Error).message}`);
    }
  });
}
