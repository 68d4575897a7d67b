/**
 * Each check the fuzzer adds holds on real runs of the unmodified loop and
 * fails — naming the problem — on a run tampered to break exactly its rule.
 * (The broken-variant tests in test/fuzz/ show the same end to end, through the
 * fuzzer, for the store, provider, error-chain, transition and permission checks.)
 */
import { describe, expect, it } from 'vitest';
import { EventLog, type AnyEvent, type LogEvent } from '../../kernel/index.ts';
import { parseScenario } from '../scenario/load.ts';
import { runScenario, type ScenarioRun } from '../second-host.ts';
import { bundledContext } from '../../../test/support/bundled.ts';
import type { Invariant, Verdict } from './invariant.ts';
import { INVARIANTS } from './index.ts';
import { requestsRecomputable } from './invariant-01-requests-recomputable.ts';
import { oneAppendFrozen } from './invariant-02-one-append-frozen.ts';
import { unknownTypesRejected as unknownTypes } from './invariant-03-unknown-types-rejected.ts';
import { turnsClosedOnce } from './invariant-04-turns-closed-once.ts';
import { denyNeverLifted as denyNotLifted, matchesPattern } from './invariant-07-deny-never-lifted.ts';
import { noOpenSpans } from './invariant-08-no-open-spans.ts';
import { inboxDeliveredOnce } from './invariant-09-inbox-delivered-once.ts';
import { overflowRetryOnlyIfShrank } from './invariant-10-overflow-retry-only-if-shrank.ts';
import { budgetsBeforeWork } from './invariant-11-budgets-before-work.ts';
import { nothingThrows } from './invariant-12-nothing-throws.ts';
import { sideEffectsOnce } from './invariant-13-side-effects-once.ts';
import { sideEffectsTold } from './invariant-14-side-effects-told.ts';
import { secretsNeverLeave } from './invariant-15-secrets-never-leave.ts';
import { projectionEqualsReplay as projectionReplay } from './projection-equals-replay.ts';
import { crashReopenResume } from './support/crash-reopen.ts';
import { traceAgreesWithLog } from './trace-agrees-with-log.ts';
import { toolPairing } from './invariant-06-tool-pairing.ts';
import { approverAnswersFollowed } from './approver-answers-followed.ts';
import { approvalsTimeOutAsDeclared } from './approvals-time-out-as-declared.ts';
import { modelCallsTimeOutAsDeclared } from './model-calls-time-out-as-declared.ts';
import { compactorOfferedWidestRange } from './compactor-offered-widest-range.ts';
import { documentedStatus, hostAnswersFollowOutcomes } from './host-answers-follow-outcomes.ts';
import { hostAnswersOnlyWhatIsStored } from './host-answers-only-what-is-stored.ts';
import { outcomeFollowsTable } from './outcome-follows-table.ts';
import { hostKeepsItsContract } from './host-keeps-its-contract.ts';
import { crashRecoveryAtEveryEvent } from './support/recover-and-check.ts';

/** An invariant's check as a plain function of a run (the synchronous ones). */
const verdict =
  (invariant: Invariant) =>
  (r: ScenarioRun): Verdict =>
    invariant.check(r, {}) as Verdict;
const appendProbes = verdict(oneAppendFrozen);
const unknownTypesRejected = verdict(unknownTypes);
const tracesCarryOutcomes = verdict(turnsClosedOnce);
const outcomesInAlphabet = verdict(turnsClosedOnce);
const denyNeverLifted = verdict(denyNotLifted);
const spansWellFormed = verdict(noOpenSpans);
const traceMatchesLog = verdict(traceAgreesWithLog);
const injectNeverWakes = verdict(inboxDeliveredOnce);
const inboxFollowsReference = verdict(inboxDeliveredOnce);
const overflowRetriesOnlyIfShrank = verdict(overflowRetryOnlyIfShrank);
const budgetsCheckedBeforeWork = verdict(budgetsBeforeWork);
const everythingSettles = verdict(nothingThrows);
const sideEffectsStartedOnce = verdict(sideEffectsOnce);
const sideEffectsToldToTheModel = verdict(sideEffectsTold);
const noSecretLeaves = verdict(secretsNeverLeave);
const projectionEqualsReplay = verdict(projectionReplay);
const requestsFromPrefix = verdict(requestsRecomputable);
const callsPaired = verdict(toolPairing);

const { registry } = await bundledContext();
const run = (yaml: string) => runScenario(parseScenario(yaml, 'test.yaml'), { seed: 1, agents: registry });

/** A run whose log is replaced by `events` (the EventLog constructor takes stored events as they are). */
function withEvents(r: ScenarioRun, events: readonly AnyEvent[]): ScenarioRun {
  return { ...r, log: new EventLog({ now: () => 0 }, events) };
}
/** The events with one replaced (a frozen copy, as stored events are). */
function edit(events: readonly AnyEvent[], seq: number, payload: (p: Record<string, unknown>) => Record<string, unknown>): AnyEvent[] {
  return events.map((e) =>
    e.seq === seq ? (Object.freeze({ ...e, payload: Object.freeze(payload({ ...(e.payload as Record<string, unknown>) })) }) as AnyEvent) : e,
  );
}
const find = (r: ScenarioRun, type: string) => r.log.events.find((e) => e.type === type)! as LogEvent;

const REFUND = `
name: refund with tools
policy: { rules: [{ tools: [notify_customer], decision: deny }] }
provider:
  script:
    - tool_use: [{ id: look, name: lookup_order, args: { order_id: ORD-1001 } }, { id: mail, name: notify_customer, args: { customer: ada@example.com, message: hi } }]
    - tool_use: [{ id: refund, name: issue_refund, args: { order_id: ORD-1001, amount: 10, reason: late } }]
    - reply: Refunded.
    - reply: You are welcome.
inbox:
  - say: Refund ORD-1001.
  - say: Thanks.
expect: {}
`;

const CANCELLED = `
name: steer taken then cancelled
provider:
  script:
    - tool_use: [{ id: look, name: lookup_order, args: { order_id: ORD-1001 } }]
    - { reply: too late, latencyMs: 5000 }
inbox:
  - say: Where is ORD-1001?
  - steer: Only the first order.
    at: { request: 1 }
  - cancel: user
    at: { request: 2 }
expect: {}
`;

const COMPACTED = `
name: overflow fixed by compaction
compaction: [{ summary: S }]
provider:
  script:
    - reply: A long answer about the order, its items, its delivery and what the customer can do next.
    - overflow: request
    - reply: Done.
inbox:
  - say: My order ORD-1001 arrived broken, the box was crushed and it does not turn on. What can you do for me?
  - say: And now?
expect: {}
`;

const FAILED_AFTER_REFUND = `
name: refund, then a refusal
provider:
  script:
    - tool_use: [{ id: refund, name: issue_refund, args: { order_id: ORD-1001, amount: 10, reason: late } }]
    - refusal: No.
    - reply: It was refunded already.
inbox:
  - say: Refund ORD-1001.
  - say: Well?
expect: {}
`;

const SECRET = `
name: a key in a reply
secrets: [sk_live_4eC39HqLyjWDarjtT1zdp7dc]
provider:
  script:
    - reply: Your key sk_live_4eC39HqLyjWDarjtT1zdp7dc is noted.
inbox:
  - say: My key is sk_live_4eC39HqLyjWDarjtT1zdp7dc
expect: {}
`;

describe('the invariants', () => {
  it('hold on real runs of the loop', async () => {
    for (const yaml of [REFUND, CANCELLED, COMPACTED]) {
      const r = await run(yaml);
      for (const check of [
        appendProbes,
        unknownTypesRejected,
        tracesCarryOutcomes,
        denyNeverLifted,
        spansWellFormed,
        traceMatchesLog,
        injectNeverWakes,
        overflowRetriesOnlyIfShrank,
        budgetsCheckedBeforeWork,
        everythingSettles,
        sideEffectsStartedOnce,
        projectionEqualsReplay,
        requestsFromPrefix,
        inboxFollowsReference,
        outcomesInAlphabet,
        (x: ScenarioRun) => crashRecoveryAtEveryEvent(x),
      ]) {
        expect(check(r), `${check.name} on ${yaml.split('\n')[1]}`).toBeUndefined();
      }
    }
  });

  it('invariant 2: a stored event that is not frozen is caught', async () => {
    const r = await run(REFUND);
    const events = r.log.events.map((e, i) => (i === 3 ? { ...e, payload: { ...(e.payload as object) } } : e)) as AnyEvent[];
    expect(appendProbes(withEvents(r, events))).toMatch(/event seq 3 .* is not frozen/);
  });

  it('invariant 2: a stored payload holding what JSON would change or drop is caught, with its path', async () => {
    const r = await run(REFUND);
    const at = (value: unknown) =>
      r.log.events.map((e, i) =>
        i === 3 ? Object.freeze({ ...e, payload: Object.freeze({ ...(e.payload as object), extra: Object.freeze([1, value]) }) }) : e,
      ) as AnyEvent[];
    expect(appendProbes(withEvents(r, at(Symbol('x'))))).toMatch(/event seq 3 \(.*\): payload\.extra\[1\] is a symbol, not JSON data/);
    expect(appendProbes(withEvents(r, at(Object.freeze(new Date(0)))))).toMatch(/payload\.extra\[1\] is a Date instance, not JSON data/);
    expect(appendProbes(withEvents(r, at(Number.NaN)))).toMatch(/payload\.extra\[1\] is NaN, not JSON data/);
    expect(appendProbes(withEvents(r, at(undefined)))).toMatch(/payload\.extra\[1\] is undefined, not JSON data/);
    expect(appendProbes(withEvents(r, at(Object.freeze({ ok: 'plain' }))))).not.toMatch(/not JSON data/);
  });

  it('approver answers followed: a decision put on the approver that is not its answer, or a denied call that started', async () => {
    const followed = verdict(approverAnswersFollowed);
    const r = await run(`
name: approved refund
policy: { rules: [{ id: refunds-need-approval, tools: [issue_refund], decision: ask, reason: refunds move money }] }
approver: { answers: [approve] }
provider:
  script:
    - tool_use: [{ id: refund, name: issue_refund, args: { order_id: ORD-1001, amount: 10, reason: late } }]
    - reply: Refunded.
inbox:
  - say: Refund ORD-1001.
expect: {}
`);
    expect(r.approvals.map((a) => a.answer)).toEqual(['approve']);
    expect(followed(r)).toBeUndefined();
    const callId = r.approvals[0]!.callId;
    expect(followed({ ...r, approvals: [{ ...r.approvals[0]!, answer: 'deny' }] })).toMatch(
      new RegExp(`call ${callId} \\(issue_refund, seq \\d+\\): the approver answered deny, but the log records allow by the approver`),
    );
    expect(followed({ ...r, approvals: [] })).toMatch(/the log records allow by the approver, but the approver never answered for this call/);
  });

  it('approvals time out as declared: an answer taken after the timeout, or a timeout off its time, is caught', async () => {
    const onTime = verdict(approvalsTimeOutAsDeclared);
    const refund = (delayMs: number) => `
name: refund waits for approval
policy: { rules: [{ id: refunds-need-approval, tools: [issue_refund], decision: ask }], approvalTimeoutMs: 120000 }
approver: { answers: [approve], delayMs: ${delayMs} }
provider:
  script:
    - tool_use: [{ id: refund, name: issue_refund, args: { order_id: ORD-1001, amount: 10, reason: late } }]
    - reply: Done.
inbox:
  - say: Refund ORD-1001.
expect: {}
`;
    // Answered in time: taken. Its answer recorded as coming after the time ran out is an answer the policy no longer takes.
    const answered = await run(refund(60_000));
    expect(answered.approvals.map((a) => [a.answer, a.askedAt, a.at])).toEqual([['approve', 0, 60_000]]);
    expect(onTime(answered)).toBeUndefined();
    expect(onTime({ ...answered, approvals: [{ ...answered.approvals[0]!, at: 1_200_000 }] })).toMatch(
      /call \S+ \(issue_refund\), put to the approver at 0 ms with approvalTimeoutMs 120000 ms: the approver answered approve at 1200000 ms, after the time ran out at 120000 ms, and the answer was taken \(allow by the approver\)/,
    );
    // Not answered in time: the approver is told to stop exactly at the timeout; ten times late, or early, is caught.
    const timedOut = await run(refund(600_000));
    expect(timedOut.approvals.map((a) => [a.askedAt, a.stoppedAt])).toEqual([[0, 120_000]]);
    expect(onTime(timedOut)).toBeUndefined();
    for (const stoppedAt of [1_200_000, 60_000])
      expect(onTime({ ...timedOut, approvals: [{ ...timedOut.approvals[0]!, stoppedAt }] })).toMatch(
        new RegExp(`: timed out at ${stoppedAt} ms, after ${stoppedAt} ms, not at 120000 ms$`),
      );
    // A timeout recorded while the approver had answered in time.
    const { stoppedAt: _, ...answeredInTime } = timedOut.approvals[0]!;
    expect(onTime({ ...timedOut, approvals: [{ ...answeredInTime, answer: 'approve', at: 30_000 }] })).toMatch(
      /: the approver answered approve at 30000 ms, in time, but the log records approval_timeout$/,
    );
  });

  it('model calls time out as declared: a late backstop, or an answer taken after the timeout, is caught', async () => {
    const onTime = verdict(modelCallsTimeOutAsDeclared);
    const r = await run(`
name: hung client cut by the backstop
config: { modelTimeoutMs: 30000, retry: { jitter: 0 } }
provider:
  script:
    - { reply: too late, latencyMs: 120000, ignoresTimeout: true }
    - { reply: ORD-1003 is being processed., latencyMs: 20000 }
inbox:
  - say: Status of ORD-1003?
expect: {}
`);
    expect(onTime(r)).toBeUndefined();
    const results = r.log.events.filter((e) => e.type === 'model.result');
    expect(results.map((e) => e.at)).toEqual([30_000, 51_000]); // the backstop at 30 s; the retry, sent at 31 s, answered in 20 s
    // The same log with one result's time moved: the records as a late backstop, or a late answer taken, would leave them.
    const moved = (index: number, at: number) =>
      ({
        ...r,
        log: { ...r.log, events: r.log.events.map((e) => (e === results[index] ? { ...e, at } : e)) },
      }) as unknown as ScenarioRun;
    expect(onTime(moved(0, 300_000))).toBe(
      "turn 0, step 1, attempt 1 (sent at 0 ms, modelTimeoutMs 30000 ms): the loop's backstop ended the call after 300000 ms, not 30000 ms",
    );
    expect(onTime(moved(1, 71_000))).toBe(
      'turn 0, step 1, attempt 2 (sent at 31000 ms, modelTimeoutMs 30000 ms): a reply result came after 40000 ms and was taken: the call should have ended at 30000 ms',
    );
  });

  it('compactor offered the widest range: an offer short of the last closed turn is caught', async () => {
    const offered = verdict(compactorOfferedWidestRange);
    const r = await run(`
name: overflow compacts
compaction: [{ summary: "Earlier: orders." }]
provider:
  script:
    - reply: ORD-1001 was delivered.
    - overflow: request
    - reply: Done.
inbox:
  - say: Where is ORD-1001?
  - say: Thanks.
expect: {}
`);
    expect(r.compactions).toHaveLength(1);
    const call = r.compactions![0]!;
    expect(call.offered).toEqual(call.widest);
    expect(r.log.events[call.widest!.to]!.type).toBe('turn.closed');
    expect(offered(r)).toBeUndefined();
    const short = { ...call, offered: { from: call.widest!.from, to: call.widest!.to - 1 } };
    expect(offered({ ...r, compactions: [short] })).toMatch(
      new RegExp(
        `compaction 1 \\(log of \\d+ events\\): the loop offered the compactor \\[${call.widest!.from}, ${call.widest!.to - 1}\\], but the widest range`,
      ),
    );
    expect(offered({ ...r, compactions: [{ ...call, offered: undefined }] })).toMatch(/offered the compactor none/);
  });

  it('invariant 4: an outcome returned or traced that is not the one logged', async () => {
    const r = await run(REFUND);
    expect(tracesCarryOutcomes({ ...r, results: [r.results[0]!, { ...r.results[1]!, outcome: { kind: 'failed', reason: 'refusal' } }] })).toMatch(
      /turn 1 returned failed\{refusal\} but the log says replied/,
    );
    expect(tracesCarryOutcomes({ ...r, traces: r.traces.slice(1) })).toMatch(/2 turn\(s\) returned but 1 trace\(s\) ended/);
  });

  it('trace agrees with log: a span attribute that is not what the log records is caught, naming span, key and record', async () => {
    const r = await run(REFUND);
    /** The run with the first span of `kind` in its first trace given other attributes. */
    const respan = (kind: string, attributes: (a: Record<string, unknown>) => Record<string, unknown>): ScenarioRun => {
      const [first, ...rest] = r.traces;
      let done = false;
      const spans = first!.spans.map((span) => {
        if (done || span.kind !== kind) return span;
        done = true;
        return { ...span, attributes: attributes({ ...span.attributes }) as typeof span.attributes };
      });
      return { ...r, traces: [{ ...first!, spans }, ...rest] };
    };
    expect(traceMatchesLog(respan('turn', (a) => ({ ...a, steps: (a.steps as number) + 1 })))).toMatch(
      /^trace \S+ \(turn 0\): turn span has steps \d+, but the turn's result records \d+$/,
    );
    expect(traceMatchesLog(respan('turn', (a) => ({ ...a, outcome: 'failed{internal}' })))).toMatch(
      /turn span has outcome "failed\{internal\}", but the turn's result records "replied"/,
    );
    expect(traceMatchesLog(respan('model_call', (a) => ({ ...a, outputTokens: 0 })))).toMatch(
      /model call span \(step 1, attempt 1\) has outputTokens 0, but model\.result \(seq \d+\) records \d+/,
    );
    expect(traceMatchesLog(respan('tool', (a) => ({ ...a, status: 'failed' })))).toMatch(
      /tool span of call \S+ has status "failed", but tool\.result \(seq \d+\) records "ok"/,
    );
    expect(traceMatchesLog(respan('tool', ({ attempts: _, ...a }) => a))).toMatch(/has attempts absent, but tool\.result/);
    expect(traceMatchesLog(respan('tool', (a) => ({ ...a, truncatedFrom: 30_000 })))).toMatch(
      /has truncatedFrom 30000, but tool\.result \(seq \d+\) records none/,
    );
    expect(traceMatchesLog(respan('tool', ({ args: _, ...a }) => a))).toMatch(
      /tool span of call \S+ shows no arguments, but tool\.started \(seq \d+\) records \{/,
    );
    expect(traceMatchesLog(respan('tool', (a) => ({ ...a, args: '{}' })))).toMatch(/shows arguments \{\}, but tool\.started/);
    expect(traceMatchesLog(respan('tool', (a) => ({ ...a, sideEffect: 'CRITICAL' })))).toMatch(
      /has sideEffect "CRITICAL", but tool\.started \(seq \d+\) records "NONE"/,
    );
    // The tool's declared level, whatever the log holds: `unknown` once the agent does not declare the tool.
    expect(traceMatchesLog({ ...r, sideEffectLevels: new Map() })).toMatch(
      /tool span of call \S+ has sideEffect "NONE", but "lookup_order" is not declared: unknown/,
    );
    expect(traceMatchesLog({ ...r, sideEffectLevels: new Map([...r.sideEffectLevels, ['lookup_order', 'IDEMPOTENT']]) })).toMatch(
      /has sideEffect "NONE", but "lookup_order" is declared IDEMPOTENT/,
    );
    expect(traceMatchesLog(respan('policy', (a) => ({ ...a, by: 'approver' })))).toMatch(
      /policy span of call \S+ has by "approver", but policy\.decision \(seq \d+\) records "(policy|default)"/,
    );
  });

  it('host answers follow outcomes: a status, reply or summary the turn does not give is caught', async () => {
    const r = await runScenario(parseScenario(REFUND, 'test.yaml'), { seed: 1, agents: registry, host: 'production' });
    const check = (posts: ScenarioRun['posts']) => hostAnswersFollowOutcomes.check({ ...r, posts }, {});
    expect(check(r.posts)).toBeUndefined();
    const first = r.posts![0]!;
    const withFirst = (envelope: NonNullable<typeof first.envelope>) => [{ ...first, envelope }, ...r.posts!.slice(1)];
    expect(check(withFirst({ ...first.envelope!, status: 500 }))).toMatch(
      /^the answer to message 1 \(follow_up "Refund ORD-1001\."\) has status 500, but its last turn \(0\) ended replied, which is answered 200$/,
    );
    const { reply: _, ...noReply } = first.envelope!;
    expect(check(withFirst(noReply))).toMatch(/carries no reply, but its last turn \(0\) replied/);
    const turns = [{ ...first.envelope!.turns[0]!, toolCalls: 9 }];
    expect(check(withFirst({ ...first.envelope!, turns }))).toMatch(/summarizes turn 0 with toolCalls 9, but the log's close records 3/);
    const earlier = [{ ...first.envelope!.turns[0]!, reply: 'Let me look.' }];
    expect(check(withFirst({ ...first.envelope!, turns: earlier, reply: 'Let me look.' }))).toMatch(
      /gives turn 0's reply as "Let me look\.", but the turn's last assistant message says/,
    );
    expect(check(withFirst({ ...first.envelope!, reply: 'Something else.' }))).toMatch(/answers the reply "Something else\.", its last turn's summary/);
    const returned = [{ ...first.envelope!.turns[0]!, returnedToInbox: ['m9'] }];
    expect(check(withFirst({ ...first.envelope!, turns: returned }))).toMatch(/lists \["m9"\] as returned to the inbox by turn 0, but the log returns \[\]/);
    expect([
      documentedStatus('replied'),
      documentedStatus('cancelled{shutdown}'),
      documentedStatus('failed{persistence}'),
      documentedStatus('failed{max_tokens}'),
    ]).toEqual([200, 499, 503, 422]);
    expect(documentedStatus('failed{made_up}')).toBeUndefined();
  });

  it('host answers only what is stored: an answer given before its message or its turn’s close was stored is caught', async () => {
    const r = await runScenario(parseScenario(REFUND, 'test.yaml'), { seed: 1, agents: registry, host: 'production' });
    const check = (posts: ScenarioRun['posts']) => hostAnswersOnlyWhatIsStored.check({ ...r, posts }, {});
    expect(check(r.posts)).toBeUndefined();
    const first = r.posts![0]!;
    const storedAt = (stored: number) => [{ ...first, answered: { stored, at: first.answered!.at } }, ...r.posts!.slice(1)];
    expect(check(storedAt(0))).toMatch(
      /says the message was stored \(delivery turn\), but the store held no inbox\.received of message \S+ when it was answered \(0 record\(s\)\)/,
    );
    const received = r.store.peek('case').findIndex((e) => e.type === 'inbox.received');
    expect(check(storedAt(received + 1))).toMatch(/reports turn 0 replied, but the store held no close of that turn when it was answered/);
    const late = [{ ...first, answered: { stored: first.answered!.stored, at: first.answered!.at + 60_000 } }, ...r.posts!.slice(1)];
    expect(check(late)).toMatch(/was answered at \d+ ms, but turn 0, which it reports, closed at \d+ ms: the client waited for later work/);
  });

  it('invariant 7: a denied tool that ran, or was offered', async () => {
    const r = await run(REFUND);
    const started = r.log.events.filter((e) => e.type === 'tool.started');
    const lookup = started[0]!;
    // Pretend the denied notify_customer ran: a tool.started for its call.
    const ran = [
      ...r.log.events,
      Object.freeze({
        ...lookup,
        seq: r.log.length,
        payload: Object.freeze({ ...(lookup.payload as object), callId: 'mail', name: 'notify_customer' }),
      }) as AnyEvent,
    ];
    expect(denyNeverLifted(withEvents(r, ran))).toMatch(/call mail to notify_customer ran, but rule rule-1 denies it/);
    expect(
      matchesPattern('issue_*', 'issue_refund') && matchesPattern('*', 'x') && !matchesPattern('issue_*', 'lookup_order') && matchesPattern('a*c*e', 'abcde'),
    ).toBe(true);
    const hidden = {
      ...r,
      permissions: {
        ...r.permissions,
        visibility: [
          { name: 'global', deny: ['lookup_*'] },
          { name: 'mode', allow: ['*'] },
        ],
      },
    };
    expect(denyNeverLifted(hidden)).toMatch(/offered lookup_order to the model, but layer global denies it/);
    // A deny rule decides alone: the same call denied, but put to the approver first (an ask ranked above the deny).
    const mail = r.log.events.find((e) => e.type === 'policy.decision' && (e.payload as { callId: string }).callId === 'mail')!;
    const asked = edit(r.log.events, mail.seq, (p) => ({ ...p, by: 'approver', rule: 'rule-2' }));
    expect(denyNeverLifted(withEvents(r, asked))).toMatch(
      /call mail to notify_customer: rule rule-1 denies it, but it was decided deny by approver \(rule-2\), not denied by a rule/,
    );
  });

  it('invariant 8: a span outside the turn tree', async () => {
    const r = await run(REFUND);
    const trace = r.traces[0]!;
    const broken = { ...trace, spans: trace.spans.map((s, i) => (i === 1 ? { ...s, parentId: 'nowhere' } : s)) };
    expect(spansWellFormed({ ...r, traces: [broken, ...r.traces.slice(1)] })).toMatch(/has a parent not in the trace/);
  });

  it('invariant 9: a cancelled turn that keeps the message the model never saw; a turn woken by an inject', async () => {
    const r = await run(CANCELLED);
    const returned = find(r, 'inbox.returned');
    expect(
      injectNeverWakes(
        withEvents(
          r,
          r.log.events.filter((e) => e.seq !== returned.seq),
        ),
      ),
    ).toMatch(/turn 0 ended cancelled: it should have returned m2 to the inbox/);
    const firstMessage = find(r, 'inbox.received');
    expect(
      injectNeverWakes(
        withEvents(
          r,
          edit(r.log.events, firstMessage.seq, (p) => ({ ...p, intent: 'inject' })),
        ),
      ),
    ).toMatch(/turn 0 opened \(seq 1\) with no follow-up or steer waiting/);
  });

  it('invariant 10: a compaction recorded although it did not shrink', async () => {
    const r = await run(COMPACTED);
    const replaced = find(r, 'projection.replaced');
    expect(
      overflowRetriesOnlyIfShrank(
        withEvents(
          r,
          edit(r.log.events, replaced.seq, (p) => ({ ...p, tokensAfter: p['tokensBefore'] })),
        ),
      ),
    ).toMatch(/a compaction that did not shrink the history was recorded/);
    expect(overflowRetriesOnlyIfShrank({ ...r, config: { ...r.config, maxCompactionsPerStep: 0 } })).toMatch(/1 compactions in one step \(at most 0\)/);
  });

  it('invariant 10: a step that gives up on an overflow with compactions left (probe 65, P21)', async () => {
    const r = await run(`
name: overflow twice in a step, one compaction allowed
config: { maxCompactionsPerStep: 1 }
compaction: [{ summary: S }]
provider:
  script:
    - reply: A long answer about the order, its items, its delivery and what the customer can do next.
    - overflow: request
    - overflow: request
inbox:
  - say: My order ORD-1001 arrived broken, the box was crushed and it does not turn on. What can you do for me?
  - say: And now?
expect: { outcomes: [replied, conversation_full] }
`);
    expect(overflowRetriesOnlyIfShrank(r)).toBeUndefined();
    // The same run judged as if the step had two compactions: giving up after one is then the loop's mistake.
    expect(overflowRetriesOnlyIfShrank({ ...r, config: { ...r.config, maxCompactionsPerStep: 2 } })).toMatch(
      /turn 1 step 1 attempt 2: the step had compacted 1 of 2 times, yet the chain gave up without compacting again \("still overflowing after 1 compactions"\)/,
    );
  });

  it('outcome-follows-table: tiers spent with a fallback left must fall back, not fail (probe 65, P13)', async () => {
    const r = await run(`
name: retry-after past the limit, no fallback
provider:
  script:
    - error: { kind: rate_limited, retryAfterMs: 90001 }
inbox:
  - say: Where is ORD-1001?
expect: { outcomes: ["failed{rate_limited}"] }
`);
    const table = verdict(outcomeFollowsTable);
    expect(table(r)).toBeUndefined();
    // The same run judged as if a fallback were configured: failing the turn left it unasked.
    const withFallback = { ...r, scenario: { ...r.scenario, provider: { ...r.scenario.provider, fallback: [{ reply: 'hi' }] } } } as ScenarioRun;
    expect(table(withFallback)).toMatch(
      /turn 0 step 1 attempt 1 \(rate_limited\): its retry-after 90001 ms exceeds the 60000 ms limit, so the chain must fall back to the fallback client, but it failed the turn/,
    );
  });

  it('outcome-follows-table: failing the turn is right once the step has used its fallback', async () => {
    // Both clients ask for a wait past the limit: the primary's is taken as a switch, the fallback's fails the turn.
    const r = await run(`
name: retry-after past the limit on both clients
provider:
  script:
    - error: { kind: rate_limited, retryAfterMs: 90001 }
  fallback:
    - error: { kind: rate_limited, retryAfterMs: 90001 }
inbox:
  - say: Where is ORD-1001?
expect: { outcomes: ["failed{rate_limited}"] }
`);
    expect(r.requests.length).toBe(2);
    expect(verdict(outcomeFollowsTable)(r)).toBeUndefined();
  });

  it('host-keeps-its-contract: what the host target saw is reported by message, none when it saw nothing', async () => {
    const r = await run(REFUND);
    const keeps = verdict(hostKeepsItsContract);
    expect(keeps(r)).toBeUndefined();
    expect(keeps({ ...r, hostBreaches: ['the production host resumed from the snapshot up to event 8, which the crash garbled'] })).toBe(
      'the production host resumed from the snapshot up to event 8, which the crash garbled',
    );
    expect(keeps({ ...r, hostBreaches: ['a', 'b', 'c', 'd'] })).toBe('a (and 3 more: b; c; …)');
  });

  it('invariant 11: a tool run in the last allowed step, and budgets exceeded', async () => {
    const r = await run(REFUND);
    expect(budgetsCheckedBeforeWork({ ...r, config: { ...r.config, maxSteps: 1 } })).toMatch(
      /lookup_order \(call look\) ran in step 1, but the step limit is 1/,
    );
    expect(budgetsCheckedBeforeWork({ ...r, config: { ...r.config, maxToolCallsPerTurn: 1 } })).toMatch(/2 tool calls ran \(budget per turn 1\)/);
    expect(budgetsCheckedBeforeWork({ ...r, config: { ...r.config, maxTokensPerTurn: 10 } })).toMatch(/step 2 started with 15 tokens spent/);
  });

  it('invariant 11: a turn refused for a budget must say which budget, with the limit this run set', async () => {
    const r = await run(`
name: session budget
config: { maxToolCallsPerSession: 1 }
provider:
  script:
    - tool_use: [{ id: look, name: lookup_order, args: { order_id: ORD-1001 } }, { id: again, name: lookup_order, args: { order_id: ORD-1002 } }]
inbox:
  - say: Where are ORD-1001 and ORD-1002?
expect: { outcomes: ["failed{budget_exhausted}"] }
`);
    expect(budgetsCheckedBeforeWork(r)).toBeUndefined();
    const closed = find(r, 'turn.closed');
    expect(closed.payload).toMatchObject({ outcome: { reason: 'budget_exhausted', detail: 'tool-call budget per session (1) would be exceeded' } });
    const detail = (text: string) => edit(r.log.events, closed.seq, (p) => ({ ...p, outcome: Object.freeze({ ...(p.outcome as object), detail: text }) }));
    expect(budgetsCheckedBeforeWork(withEvents(r, detail('')))).toMatch(/failed budget_exhausted with the detail "", which names none of this run's budgets/);
    expect(budgetsCheckedBeforeWork(withEvents(r, detail('tool-call budget per session (5) would be exceeded')))).toMatch(/names none/);
    expect(budgetsCheckedBeforeWork(withEvents(r, detail('tool-call budget per session (1) would be exceeded')))).toBeUndefined();
  });

  it('invariant 12: a provider call that never settled', async () => {
    const r = await run(REFUND);
    expect(everythingSettles({ ...r, responses: [{ settled: 'pending', lateDeltas: 0 }, ...r.responses.slice(1)] })).toMatch(/provider call 1 never settled/);
  });

  it('invariant 13: a STATEFUL call started twice', async () => {
    const r = await run(REFUND);
    const refund = r.log.events.find((e) => e.type === 'tool.started' && (e.payload as { name: string }).name === 'issue_refund')!;
    const twice = [...r.log.events, Object.freeze({ ...refund, seq: r.log.length }) as AnyEvent];
    expect(sideEffectsStartedOnce(withEvents(r, twice))).toMatch(/issue_refund \(STATEFUL\) call refund was started 2 times/);
  });

  it('invariant 13: a STATEFUL body run twice for one call, counted per tool: another tool under the same id is another call', async () => {
    const r = await run(REFUND);
    const counts = (entries: Record<string, Record<string, number>>) =>
      new Map(Object.entries(entries).map(([tool, calls]) => [tool, new Map(Object.entries(calls))]));
    expect(sideEffectsStartedOnce(r)).toBeUndefined();
    expect(sideEffectsStartedOnce({ ...r, executionsByToolCall: counts({ issue_refund: { refund: 2 } }) })).toMatch(
      /issue_refund \(STATEFUL\) ran 2 times for call refund/,
    );
    // A lookup that ran under the refund's id (in a turn the store lost, or a reused id) is not a second refund.
    expect(sideEffectsStartedOnce({ ...r, executionsByToolCall: counts({ lookup_order: { refund: 1 }, issue_refund: { refund: 1 } }) })).toBeUndefined();
  });

  it('invariant 14: a notice never written, and a notice taken into a failed turn and not given back', async () => {
    const r = await run(FAILED_AFTER_REFUND);
    expect(sideEffectsToldToTheModel(r)).toBeUndefined();
    const notice = r.log.events.find((e) => e.type === 'inbox.received' && (e.payload as { source: string }).source === 'loop:side-effects')!;
    const withoutNotice = r.log.events.filter((e) => e.seq < notice.seq);
    expect(sideEffectsToldToTheModel({ ...withEvents(r, withoutNotice), finalProjection: [] })).toMatch(
      /issue_refund \(call refund\) started in turn 0, which ended failed\{refusal\}, and nothing the next turn would read tells the model/,
    );
    // The notice reached turn 1's request, but turn 1 failed and did not give it back.
    const lost = await run(FAILED_AFTER_REFUND.replace('- reply: It was refunded already.', '- refusal: No.'));
    expect(sideEffectsToldToTheModel(lost)).toBeUndefined();
    const returned = find(lost, 'inbox.returned');
    expect(
      sideEffectsToldToTheModel(
        withEvents(
          lost,
          lost.log.events.filter((e) => e.seq !== returned.seq),
        ),
      ),
    ).toMatch(/nothing the next turn would read tells the model/);
    expect(sideEffectsToldToTheModel({ ...r, requests: r.requests.map((q) => ({ ...q, messages: q.messages.slice(1) })) })).toMatch(
      /the first request of turn 1 did not tell the model/,
    );
  });

  it('invariant 15: a key in pieces across deltas, in an encoded form, in an envelope, in a report', async () => {
    const r = await run(SECRET);
    expect(noSecretLeaves(r)).toBeUndefined();
    const key = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';
    const delta = find(r, 'model.delta');
    const split = (d: object, text: string) => ({ ...d, delta: { kind: 'text', text } });
    const halves = [
      ...r.log.events,
      Object.freeze({ ...delta, seq: r.log.length, payload: split(delta.payload, `key ${key.slice(0, 12)}`) }) as unknown as AnyEvent,
      Object.freeze({ ...delta, seq: r.log.length + 1, payload: split(delta.payload, `${key.slice(12)} ok`) }) as unknown as AnyEvent,
    ];
    expect(noSecretLeaves(withEvents(r, halves))).toMatch(/can be read back from the streamed deltas of a model call, joined/);
    const encoded = { ...r, traces: [{ ...r.traces[0]!, spans: [{ ...r.traces[0]!.spans[0]!, name: encodeURIComponent(`k=${key}`) }] }] };
    expect(noSecretLeaves(encoded)).toMatch(/can be read back from the traces/);
    const base64 = { ...r, traces: [{ ...r.traces[0]!, spans: [{ ...r.traces[0]!.spans[0]!, name: Buffer.from(`user:${key}`).toString('base64') }] }] };
    expect(noSecretLeaves(base64)).toMatch(/can be read back from the traces/);
    const replied = { ...r, results: r.results.map((t) => ({ ...t, reply: `your key is ${key}` })) };
    expect(noSecretLeaves(replied)).toMatch(/can be read back from the turn results/);
    const faults = { ...r, faults: [{ at: 0, label: `provider said ${key}` }] };
    expect(noSecretLeaves(faults)).toBeUndefined(); // the timeline passes the run's redactor before any report renders it
  });

  it('invariant 15 names a leaked secret by at most a quarter of it, never the whole of a short one', async () => {
    const r = await run(SECRET);
    const short = { ...r, secrets: ['Zq9w'], results: r.results.map((t) => ({ ...t, reply: 'the code is Zq9w' })) };
    const said = noSecretLeaves(short);
    expect(said).toMatch(/a configured secret \(Z…, 4 characters\) can be read back from the turn results/);
    const key = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';
    const long = { ...r, results: r.results.map((t) => ({ ...t, reply: `your key is ${key}` })) };
    expect(noSecretLeaves(long)).toMatch(/a configured secret \(sk_l…, 32 characters\)/);
  });

  it('invariant 15: the envelopes the production host answered with, not a summary rebuilt from the results', async () => {
    const r = await runScenario(parseScenario(SECRET, 'test.yaml'), { seed: 1, agents: registry, host: 'production' });
    expect(r.posts?.[0]?.envelope?.status).toBe(200);
    expect(noSecretLeaves(r)).toBeUndefined();
    const key = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';
    const posts = r.posts!.map((p) => ({ ...p, envelope: p.envelope && { ...p.envelope, error: `store said ${key}` } }));
    expect(noSecretLeaves({ ...r, posts })).toMatch(/can be read back from the production host's answers/);
  });

  it('the projection, and every request, agree with a replay of the log', async () => {
    const r = await run(REFUND);
    expect(projectionEqualsReplay({ ...r, finalProjection: r.finalProjection!.slice(1) })).toMatch(/incremental projection at the end differs/);
    const requests = r.requests.map((q, i) => (i === 2 ? { ...q, messages: q.messages.slice(0, -1) } : q));
    expect(requestsFromPrefix({ ...r, requests })).toMatch(/request 3 \(seq \d+\): the messages sent differ from the/);
    expect(requestsFromPrefix({ ...r, requests: r.requests.map((q) => ({ ...q, system: 'other' })) })).toMatch(/request 1 .*system.* differ/);
  });

  it('the inbox reference model: a message posted but never received', async () => {
    const r = await run(REFUND);
    const scenario = { ...r.scenario, inbox: [...r.scenario.inbox, { say: 'Hello?' }] };
    expect(inboxFollowsReference({ ...r, scenario })).toMatch(/the scenario posted 3 message\(s\) but the log received 2; missing: follow_up: Hello\?/);
  });

  it('outcomes outside the alphabet', async () => {
    const r = await run(REFUND);
    expect(outcomesInAlphabet({ ...r, results: [{ ...r.results[0]!, outcome: { kind: 'failed', reason: 'oops' } as never }, r.results[1]!] })).toMatch(
      /turn 0 returned .*oops.* is not in the alphabet/,
    );
    expect(outcomesInAlphabet({ ...r, results: [{ ...r.results[0]!, outcome: { kind: 'replied', reason: 'x' } as never }, r.results[1]!] })).toMatch(
      /has field\(s\) the alphabet does not: reason/,
    );
  });

  it('a crash at every event recovers; a real SQLite reopen at one event resumes the loop', async () => {
    const r = await run(CANCELLED);
    expect(crashRecoveryAtEveryEvent(r, 500)).toBeUndefined();
    for (let k = 0; k <= r.log.length; k += 3) expect(await crashReopenResume(r, k)).toBeUndefined();
  });
});

describe('invariant 6 over a store refused after a crash', () => {
  // The process dies while a refund runs and the crash loses record 3: the reopened host refuses the store, no recovery
  // runs, and the turn the crash left open keeps its call in flight without a result (scenarios/README.md, loseOnCrash).
  const GAP = `
name: gap while a refund runs
store: { loseOnCrash: [3] }
tools: [{ name: issue_refund, behaviour: [{ slow: 5000 }] }]
provider:
  script:
    - tool_use: [{ id: refund, name: issue_refund, args: { order_id: ORD-1001, amount: 120, reason: broken } }]
    - reply: never requested
inbox:
  - say: Please refund ORD-1001.
  - crash: true
    at: { time: 2000 }
  - reopen: true
  - say: Is it done?
expect:
  responses: [{ status: none }, { status: 500 }]
`;

  it("accepts the open turn's call in flight, and only that", async () => {
    const r = await run(GAP);
    expect(r.unreadable).toMatch(/seq gap/);
    expect(callsPaired(r)).toBeUndefined();
    // A readable store has no such turn: a call without a result is unpaired.
    const { unreadable: _u, ...readable } = r;
    expect(callsPaired(readable)).toMatch(/the final history, message 1: tool calls refund have no result/);
    // A turn closed with its call unanswered is not the open turn.
    const last = r.log.events.at(-1)!;
    const close = Object.freeze({
      type: 'turn.closed',
      seq: last.seq + 1,
      at: 0,
      ignorable: false,
      sources: [],
      payload: Object.freeze({ turn: 0, outcome: { kind: 'replied' }, steps: 1, toolCalls: 1, usage: { inputTokens: 0, outputTokens: 0 } }),
    }) as unknown as AnyEvent;
    expect(callsPaired(withEvents(r, [...r.log.events, close]))).toMatch(/tool calls refund have no result/);
  });
});

describe('the registry', () => {
  it('holds one invariant per numbered DESIGN.md invariant it checks, with unique kebab-case ids', () => {
    const ids = INVARIANTS.map((i) => i.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const invariant of INVARIANTS) {
      expect(invariant.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      if (invariant.invariant !== undefined) expect(invariant.id).toMatch(new RegExp(`^invariant-${String(invariant.invariant).padStart(2, '0')}-`));
    }
    expect(INVARIANTS.map((i) => i.invariant).filter((n) => n !== undefined)).toEqual([12, 4, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15]);
  });
});
