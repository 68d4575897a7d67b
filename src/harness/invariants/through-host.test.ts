/**
 * The invariants judge a case run through the production host — crash and reopen
 * included — and still catch what they are for: a turn recovery closed otherwise
 * than interrupted, a loop closing a turn interrupted, a message the host said it
 * stored that the log lacks, one it refused that the log has.
 */
import { describe, expect, it } from 'vitest';
import { EventLog, toRecord, type AnyEvent, type LogEvent } from '../../kernel/index.ts';
import { parseScenario } from '../scenario/load.ts';
import { runScenario, type ScenarioRun } from '../second-host.ts';
import { bundledContext } from '../../../test/support/bundled.ts';
import { checkInvariants, INVARIANTS } from './index.ts';
import { inboxDeliveredOnce } from './invariant-09-inbox-delivered-once.ts';
import { turnsClosedOnce } from './invariant-04-turns-closed-once.ts';

const { registry } = await bundledContext();

const CRASHED = `
name: a crash while the refund runs, then a reopen
provider:
  script:
    - tool_use: [{ id: refund, name: issue_refund, args: { order_id: ORD-1001, amount: 10, reason: late } }]
    - reply: It may have gone through; let me check.
inbox:
  - say: Refund ORD-1001.
  - crash: true
    at: { toolStart: issue_refund }
  - reopen: true
  - say: Did it work?
expect: {}
`;

const REFUSED = `
name: the host refuses a message whose write failed
host: production
store: { failAppends: [1] }
provider:
  script:
    - reply: Hello.
inbox:
  - say: Lost message.
  - say: Hi?
expect: {}
`;

const run = (yaml: string) => runScenario(parseScenario(yaml, 'test.yaml'), { seed: 1, agents: registry });
const check = (r: ScenarioRun, invariant: typeof turnsClosedOnce) => invariant.check(r, {}) as string | undefined;
const withEvents = (r: ScenarioRun, events: readonly AnyEvent[]): ScenarioRun => ({ ...r, log: new EventLog({ now: () => 0 }, events) });
/** The run with its log and its store both holding `events` (what the host stored is read from the store). */
const storing = (r: ScenarioRun, events: readonly AnyEvent[]): ScenarioRun => ({
  ...withEvents(r, events),
  store: { peek: () => events.map(toRecord) } as unknown as ScenarioRun['store'],
});
const edit = (events: readonly AnyEvent[], seq: number, payload: (p: Record<string, unknown>) => Record<string, unknown>) =>
  events.map((e) =>
    e.seq === seq ? (Object.freeze({ ...e, payload: Object.freeze(payload({ ...(e.payload as Record<string, unknown>) })) }) as AnyEvent) : e,
  );
const closes = (r: ScenarioRun) => r.log.events.filter((e): e is Extract<LogEvent, { type: 'turn.closed' }> => e.type === 'turn.closed');

describe('a crash and a reopen through the production host', () => {
  it('every invariant holds, on one story: the final log, its requests and turns, the store', async () => {
    const r = await run(CRASHED);
    expect(r.host).toBe('production');
    // The first process; the new one's recovery sweep; the next message (the harness's host keeps no idle session, so it reopens from the store).
    expect(r.lives).toBe(3);
    // The dead process closed its turn in memory (its close could not be written: failed{persistence}); that never reached the store.
    expect(r.lost.turns.map((t) => t.outcome.kind)).toEqual(['failed']);
    const failing = (await checkInvariants(r, INVARIANTS, { crashPoints: 50 })).filter((c) => !c.passed);
    expect(failing).toEqual([]);
  });

  it('invariant 4: a turn recovery closed as anything but interrupted; a loop closing a turn interrupted', async () => {
    const r = await run(CRASHED);
    const [recovered, answered] = closes(r);
    expect(recovered!.payload.recovered).toBe(true);
    expect(
      check(
        withEvents(
          r,
          edit(r.log.events, recovered!.seq, (p) => ({ ...p, outcome: { kind: 'replied' } })),
        ),
        turnsClosedOnce,
      ),
    ).toMatch(/turn 0 was closed by recovery as replied/);
    expect(
      check(
        withEvents(
          r,
          edit(r.log.events, answered!.seq, (p) => ({ ...p, outcome: { kind: 'interrupted' } })),
        ),
        turnsClosedOnce,
      ),
    ).toMatch(/turn 1 was closed interrupted by a loop/);
  });

  it('invariant 9: a message the host said it stored, missing from the store', async () => {
    const r = await run(CRASHED);
    const stored = r.log.events.find((e) => e.type === 'inbox.received' && (e.payload as { text: string }).text === 'Did it work?')!;
    const without = r.log.events.filter((e) => e.seq < stored.seq);
    expect(check(storing({ ...r, results: [] }, without), inboxDeliveredOnce)).toMatch(
      /the host answered 200 \(turn: stored\) for "follow_up: Did it work\?", but the store never received it/,
    );
  });
});

describe('a message the production host refused', () => {
  it('is not in the log, and invariant 9 says so if it were', async () => {
    const r = await run(REFUSED);
    expect(r.posts?.map((p) => [p.envelope?.status, p.envelope?.delivery])).toEqual([
      [503, undefined],
      [200, 'turn'],
    ]);
    expect(check(r, inboxDeliveredOnce)).toBeUndefined();
    const received = r.log.events.find((e) => e.type === 'inbox.received')!;
    // The log says the refused message arrived (and the other one's answer never came back, so it may be missing).
    const smuggled = edit(r.log.events, received.seq, (p) => ({ ...p, text: 'Lost message.' }));
    const posts = [r.posts![0]!, { ...r.posts![1]!, envelope: undefined }];
    expect(check({ ...storing(r, smuggled), posts }, inboxDeliveredOnce)).toMatch(
      /the host answered 503 for "follow_up: Lost message\." saying it was not stored \(.*\), but the store holds it/,
    );
  });
});

describe('event and delta triggers', () => {
  it('an entry fires when its moment comes, and one whose moment never comes posts nothing — both hosts, invariant 9 agreeing', async () => {
    const yaml = `
name: triggers
provider:
  script:
    - reply: One two three.
    - reply: Noted.
inbox:
  - say: Hello.
  - inject: "[context: seen at event 3]"
    at: { event: 3 }
  - inject: "[context: never]"
    at: { event: 9999 }
  - inject: "[context: at the first delta]"
    at: { delta: 1 }
  - inject: "[context: never either]"
    at: { delta: 50 }
  - say: Thanks.
expect: {}
`;
    for (const host of ['loop', 'production'] as const) {
      const r = await runScenario(parseScenario(yaml, 'test.yaml'), { seed: 1, agents: registry, host });
      const received = r.log.events.filter((e) => e.type === 'inbox.received').map((e) => (e.payload as { text: string }).text);
      expect(received, host).toEqual(['Hello.', '[context: seen at event 3]', '[context: at the first delta]', 'Thanks.']);
      expect(r.reached.deltas, host).toBe(6); // two replies, each streamed in three pieces
      expect(check(r, inboxDeliveredOnce), host).toBeUndefined();
    }
  });
});
