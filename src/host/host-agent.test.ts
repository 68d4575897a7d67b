/**
 * The host serves an `Agent` — the kernel's type, the one `loopgate run` checks —
 * with the config's operator settings around it: its tools run, its prompt and
 * policy apply, its secrets are redacted, and a deny in the config holds over it.
 */
import { describe, expect, it } from 'vitest';
import { call, reply, toolUse } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { SupportBackend } from '../../scenarios/example-agent/backend.ts';
import { supportTools } from '../../scenarios/example-agent/tools.ts';
import { GatedModel } from '../../test/support/gated-model.ts';
import { isKnown, type Agent, type AgentLoop, type EventLog, type LogEvent, type TurnResult } from '../kernel/index.ts';
import { MemoryEventStore } from '../stores/memory-store.ts';
import { defaultHostConfig, parseHostConfig } from './config.ts';
import { AgentHost } from './host.ts';

const REFUND = toolUse([call('r1', 'issue_refund', { order_id: 'ORD-1001', amount: 20, reason: 'late' })]);

function supportAgent(backend: SupportBackend, extra: Partial<Agent> = {}): Agent {
  return { tools: supportTools(backend), system: 'You are the support agent.', ...extra };
}

const results = (log: EventLog, type: 'tool.result') =>
  log.events.filter((e): e is Extract<LogEvent, { type: 'tool.result' }> => isKnown(e) && e.type === type).map((e) => e.payload);

describe('AgentHost({ agent })', () => {
  it("runs the agent's tools with its system prompt", async () => {
    const backend = new SupportBackend();
    const model = new ScriptedModelClient([REFUND, reply('Refunded.')]);
    const host = new AgentHost({ config: defaultHostConfig(), store: new MemoryEventStore(), model, agent: supportAgent(backend) });
    const envelope = await host.handle('c', 'Refund ORD-1001 please');
    expect(envelope).toMatchObject({ status: 200, reply: 'Refunded.' });
    expect(backend.refunds).toHaveLength(1);
    expect(model.requests[0]!.system).toBe('You are the support agent.');
    await host.close();
  });

  it("applies the agent's policy, and a deny in the config over the agent's own allow", async () => {
    const backend = new SupportBackend();
    const agent = supportAgent(backend, { policy: { rules: [{ id: 'refunds-allowed', tools: ['issue_refund'], decision: 'allow' }] } });
    const model = new ScriptedModelClient([REFUND, reply('I could not refund it.')]);
    const store = new MemoryEventStore();
    const host = new AgentHost({ config: parseHostConfig('tools:\n  deny: [issue_refund]\n', 'agent.yaml'), store, model, agent });
    await host.handle('c', 'Refund ORD-1001 please');
    expect(backend.refunds).toHaveLength(0);
    expect(model.requests[0]!.tools.map((t) => t.name)).not.toContain('issue_refund');
    let log: EventLog | undefined;
    const denying = new AgentHost({
      config: defaultHostConfig(),
      store: new MemoryEventStore(),
      model: new ScriptedModelClient([REFUND, reply('Not allowed.')]),
      agent: supportAgent(backend, { policy: { rules: [{ id: 'no-refunds', tools: ['issue_refund'], decision: 'deny' }] } }),
      observer: { opened: (_id, opened) => (log = opened) },
    });
    await denying.handle('c', 'Refund ORD-1001 please');
    expect(backend.refunds).toHaveLength(0);
    expect(results(log!, 'tool.result')[0]).toMatchObject({ status: 'failed', error: { error_code: 'DENIED' } });
    await Promise.all([host.close(), denying.close()]);
  });

  it("redacts the agent's secrets", async () => {
    const secret = 'sk_live_agent_0123456789';
    const model = new ScriptedModelClient([reply(`the key is ${secret}`)]);
    const store = new MemoryEventStore();
    const host = new AgentHost({ config: defaultHostConfig(), store, model, agent: { secrets: [secret] } });
    const envelope = await host.handle('c', `my key: ${secret}`);
    expect(JSON.stringify(envelope)).not.toContain(secret);
    expect(JSON.stringify(store.peek('c'))).not.toContain(secret);
    await host.close();
  });

  it('a config tool list naming no tool of the agent fails closed', () => {
    expect(
      () =>
        new AgentHost({
          config: parseHostConfig('tools:\n  deny: [isue_refund]\n', 'agent.yaml'),
          store: new MemoryEventStore(),
          model: new ScriptedModelClient([]),
          agent: supportAgent(new SupportBackend()),
        }),
    ).toThrow(/isue_refund.*issue_refund/);
  });

  it('tells its observer each log it opens, each loop it starts and each turn it closes', async () => {
    const seen: string[] = [];
    const closed: TurnResult[] = [];
    let loop: AgentLoop | undefined;
    const host = new AgentHost({
      config: defaultHostConfig(),
      store: new MemoryEventStore(),
      model: new ScriptedModelClient([reply('one'), reply('two')]),
      observer: {
        opened: (id, log) => seen.push(`opened ${id} at ${log.length}`),
        started: (id, started) => {
          seen.push(`started ${id}`);
          loop = started;
        },
        turnClosed: (id, result) => {
          seen.push(`closed ${id} turn ${result.turn}`);
          closed.push(result);
        },
      },
    });
    await host.handle('c', 'hi');
    await host.handle('c', 'again');
    await host.idle(); // a request is answered as its turn closes; the drain that ran it reports just after
    expect(seen).toEqual(['opened c at 0', 'started c', 'closed c turn 0', 'closed c turn 1']);
    expect(closed.map((r) => r.reply)).toEqual(['one', 'two']);
    expect(loop!.projection.current()).toHaveLength(4);
    await host.close();
  });

  it('posts a steer into the running turn in the same call when the store needs no writer claim', async () => {
    const model = new GatedModel();
    let log: EventLog | undefined;
    const host = new AgentHost({ config: defaultHostConfig(), store: new MemoryEventStore(), model, observer: { opened: (_id, l) => (log = l) } });
    const first = host.handle('c', 'question');
    await model.nth(0);
    const before = log!.length;
    void host.handle('c', 'a correction', { intent: 'steer' });
    expect(log!.length).toBe(before + 1); // no await in between: already in the log
    model.calls[0]!.answer(reply('answer'));
    await model.nth(1);
    model.calls[1]!.answer(reply('corrected answer'));
    expect((await first).reply).toBe('corrected answer');
    await host.close();
  });

  it('runs a call id another conversation used: claims are per conversation (servers number calls per response)', async () => {
    const backend = new SupportBackend();
    const refund = (order: string) => toolUse([call('call_0', 'issue_refund', { order_id: order, amount: 20, reason: 'late' })]);
    const model = new ScriptedModelClient([refund('ORD-1001'), reply('Refunded 1001.'), refund('ORD-1002'), reply('Refunded 1002.')]);
    const host = new AgentHost({ config: defaultHostConfig(), store: new MemoryEventStore(), model, agent: supportAgent(backend) });
    expect((await host.handle('a', 'Refund ORD-1001 please')).reply).toBe('Refunded 1001.');
    expect((await host.handle('b', 'Refund ORD-1002 please')).reply).toBe('Refunded 1002.');
    expect(backend.refunds.map((r) => r.orderId)).toEqual(['ORD-1001', 'ORD-1002']);
    await host.close();
  });
});
