/**
 * A scenario's bystander: a second conversation on the case's host and store,
 * told as a run of its own and judged by the same invariants; and the invariant
 * that keeps the two apart catches what crosses between them.
 */
import { describe, expect, it } from 'vitest';
import { bundledContext } from '../../../test/support/bundled.ts';
import { conversationsKeptApart } from '../invariants/conversations-kept-apart.ts';
import { checkInvariants } from '../invariants/index.ts';
import { parseScenario } from '../scenario/load.ts';
import { BYSTANDER_CONVERSATION, CASE_CONVERSATION, runScenario, type ScenarioRun } from '../second-host.ts';

const { registry } = await bundledContext();

const TWO = (host: string) => `
name: two conversations, one host
host: ${host}
provider:
  script:
    - reply: ORD-1001 was delivered on Monday.
      latencyMs: 500
inbox:
  - say: Where is ORD-1001?
    at: { time: 100 }
bystander:
  provider:
    - reply: ORD-1002 ships tomorrow.
      latencyMs: 1000
  inbox:
    - say: Where is ORD-1002?
expect: {}
`;

describe('a bystander', () => {
  for (const host of ['loop', 'production'] as const) {
    it(`runs its own conversation beside the case's, on the same store (${host})`, async () => {
      const run = await runScenario(parseScenario(TWO(host), 'two.yaml'), { seed: 1, agents: registry });
      const b = run.bystander!;
      expect(run.conversation).toBe(CASE_CONVERSATION);
      expect(b.conversation).toBe(BYSTANDER_CONVERSATION);
      expect(run.results.map((r) => r.reply)).toEqual(['ORD-1001 was delivered on Monday.']);
      expect(b.results.map((r) => r.reply)).toEqual(['ORD-1002 ships tomorrow.']);
      expect(run.requests).toHaveLength(1);
      expect(b.requests).toHaveLength(1);
      // Each conversation's records in the one store, under its own id; the two overlapped in time.
      expect(run.store.peek(BYSTANDER_CONVERSATION).length).toBe(b.log.length);
      expect(run.store.peek(CASE_CONVERSATION).length).toBe(run.log.length);
      expect(run.virtualMs).toBe(1000);
      if (host === 'production') expect(b.posts?.map((p) => p.envelope?.conversationId)).toEqual([BYSTANDER_CONVERSATION]);
      const checks = [...(await checkInvariants(run)), ...(await checkInvariants(b))];
      expect(checks.filter((c) => !c.passed)).toEqual([]);
      expect(checks.find((c) => c.name === 'conversations-kept-apart')?.message).toBe('holds');
    });
  }

  const CRASH = TWO('production').replace('    at: { time: 100 }\n', '    at: { time: 100 }\n  - crash: true\n    at: { time: 200 }\n  - reopen: true\n');

  it('lives in the process a crash kills: the new host recovers both conversations, each in its own log', async () => {
    const run = await runScenario(parseScenario(CRASH, 'c.yaml'), { seed: 1, agents: registry });
    const b = run.bystander!;
    expect(run.lives).toBe(2);
    expect(b.lives).toBe(2);
    for (const [conversation, text] of [
      [CASE_CONVERSATION, 'Where is ORD-1001?'],
      [BYSTANDER_CONVERSATION, 'Where is ORD-1002?'],
    ] as const) {
      const records = run.store.peek(conversation);
      // Its message was taken into the turn the crash cut short, before the model answered: back in its own inbox.
      const id = records.find((r) => r.type === 'inbox.received' && (r.payload as { text: string }).text === text)!.payload as { id: string };
      const returned = records.filter((r) => r.type === 'inbox.returned').map((r) => (r.payload as { ids: string[] }).ids);
      expect(returned).toEqual([[id.id]]);
      const closed = records.filter((r) => r.type === 'turn.closed').map((r) => r.payload as { outcome: { kind: string }; recovered?: boolean });
      expect(closed).toEqual([expect.objectContaining({ outcome: { kind: 'interrupted' }, recovered: true })]);
    }
    const checks = [...(await checkInvariants(run)), ...(await checkInvariants(b))];
    expect(checks.filter((c) => !c.passed)).toEqual([]);
  });

  it('is refused beside store faults or several hosts', () => {
    expect(() => parseScenario(CRASH, 'c.yaml')).not.toThrow();
    expect(() => parseScenario(TWO('production').replace('host: production\n', 'host: production\nhosts: 2\n'), 'h.yaml')).toThrow(
      /bystander shares one host process with the case: no hosts/,
    );
    expect(() => parseScenario(`${TWO('production')}store: { failAppends: [1] }\n`, 's.yaml')).toThrow(/bystander shares the store/);
    const via = TWO('production').replace('    - say: Where is ORD-1002?\n', '    - say: Where is ORD-1002?\n      via: 1\n');
    expect(() => parseScenario(via, 'v.yaml')).toThrow(/via is the case's own/);
  });
});

describe('conversations-kept-apart', () => {
  const run = async (): Promise<ScenarioRun> => runScenario(parseScenario(TWO('production'), 'two.yaml'), { seed: 1, agents: registry });

  it("fails an answer that names the other conversation, or reports a turn its conversation's store never closed", async () => {
    const r = await run();
    const post = r.posts![0]!;
    post.envelope = { ...post.envelope!, conversationId: BYSTANDER_CONVERSATION };
    expect(await conversationsKeptApart.check(r, {})).toMatch(/names conversation "bystander"/);
    post.envelope = { ...post.envelope, conversationId: CASE_CONVERSATION, turns: post.envelope.turns.map((t) => ({ ...t, turn: 3 })) };
    expect(await conversationsKeptApart.check(r, {})).toMatch(/reports turn 3, which conversation "case"'s store never closed/);
  });

  it("fails a reply the conversation's turn never gave (the other conversation's)", async () => {
    const r = await run();
    const post = r.posts![0]!;
    post.envelope = { ...post.envelope!, turns: post.envelope!.turns.map((t) => ({ ...t, reply: 'ORD-1002 ships tomorrow.' })) };
    expect(await conversationsKeptApart.check(r, {})).toMatch(/with the reply "ORD-1002 ships tomorrow\.", which conversation "case"'s turn 0 never gave/);
  });

  it("fails a request that carries the other conversation's message", async () => {
    const r = await run();
    const leaked = {
      ...r,
      requests: r.requests.map((q) => ({
        ...q,
        messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Where is ORD-1002?' }] }, ...q.messages],
      })),
    };
    expect(await conversationsKeptApart.check(leaked, {})).toMatch(
      /request 1 carries the user message "Where is ORD-1002\?", which only conversation "bystander"'s clients sent/,
    );
  });
});
