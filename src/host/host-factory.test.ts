/**
 * An agent given as a factory is built per conversation, as `AgentFactory` says:
 * each conversation the host opens gets an agent of its own, built for it
 * (`context.conversationId`), so state an agent keeps in its factory's closure (a
 * cart, a user's context, a flag a tool flips) never reaches another user's
 * conversation. Probe 7, F7: the host built it once and served it to everyone.
 */
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { call, reply, toolUse } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { defineTool, type Agent, type AgentContext, type AgentFactory } from '../kernel/index.ts';
import { MemoryEventStore } from '../stores/memory-store.ts';
import { defaultHostConfig, parseHostConfig } from './config.ts';
import { AgentHost } from './host.ts';

/** An agent whose `freeze` tool flips a flag its prompt reads: state in the factory's closure. */
function freezingAgent(builds: (string | undefined)[]): AgentFactory {
  return (context: AgentContext): Agent => {
    builds.push(context.conversationId);
    let frozen = false;
    return {
      system: 'You merge pull requests.',
      prompt: [{ id: 'freeze', priority: 0, text: () => (frozen ? 'CODE FREEZE: do not merge anything.' : '') }],
      tools: [
        defineTool({
          name: 'freeze',
          description: 'Freeze the repository.',
          input: z.object({}),
          sideEffect: 'IDEMPOTENT',
          run: () => {
            frozen = true;
            return 'frozen';
          },
        }),
      ],
    };
  };
}

describe('AgentHost({ agent: factory })', () => {
  it('builds the agent for each conversation it opens: one conversation never sees another one’s state', async () => {
    const builds: (string | undefined)[] = [];
    const model = new ScriptedModelClient([toolUse([call('f1', 'freeze', {})]), reply('frozen'), reply('hello from B'), reply('still frozen')]);
    const host = new AgentHost({ config: defaultHostConfig(), store: new MemoryEventStore(), model, agent: freezingAgent(builds) });
    expect((await host.handle('conv-A', 'freeze the repo')).status).toBe(200);
    expect((await host.handle('conv-B', 'hi')).reply).toBe('hello from B');
    expect((await host.handle('conv-A', 'and now?')).reply).toBe('still frozen');
    expect(builds).toEqual(['conv-A', 'conv-B']); // conv-A kept open: its agent (and its frozen flag) kept
    const systems = model.requests.map((r) => r.system.includes('CODE FREEZE'));
    expect(systems).toEqual([false, true, false, true]); // B's request holds no freeze of A's
    await host.close();
  });

  it('builds it again when a conversation is opened anew (closed when idle, or another process)', async () => {
    const builds: (string | undefined)[] = [];
    const config = parseHostConfig('model: {provider: fake, name: m}\nsessions: {maxIdle: 0}\n', 'agent.yaml');
    const model = new ScriptedModelClient([reply('one'), reply('two')]);
    const store = new MemoryEventStore();
    const host = new AgentHost({ config, store, model, agent: freezingAgent(builds) });
    await host.handle('c', 'first');
    await host.idle(); // closed: sessions.maxIdle 0
    await host.handle('c', 'second');
    host.halt(); // the process goes; the store stays
    const next = new AgentHost({ config, store, model: new ScriptedModelClient([reply('three')]), agent: freezingAgent(builds) });
    expect((await next.handle('c', 'third')).reply).toBe('three');
    expect(builds).toEqual(['c', 'c', 'c']);
    await next.close();
  });

  it('a factory that throws or returns no agent answers 500, nothing stored; the next conversation still works', async () => {
    let calls = 0;
    const factory = ((context: AgentContext) => {
      calls++;
      if (context.conversationId === 'bad') throw new Error('no such tenant');
      if (context.conversationId === 'none') return undefined;
      return { system: 'ok' };
    }) as AgentFactory;
    const store = new MemoryEventStore();
    const host = new AgentHost({ config: defaultHostConfig(), store, model: new ScriptedModelClient([reply('fine')]), agent: factory });
    const bad = await host.handle('bad', 'hi');
    expect(bad).toMatchObject({ status: 500, messageId: undefined });
    expect(bad.error).toMatch(/no such tenant/);
    expect((await host.handle('none', 'hi')).error).toMatch(/not an agent/);
    expect((await host.handle('good', 'hi')).reply).toBe('fine');
    expect([calls, (await store.read('bad')).length, (await store.read('none')).length]).toEqual([3, 0, 0]);
    await host.close();
  });

  it("redacts each conversation's agent's secrets in what the host answers, whichever agent declared them", async () => {
    const secret = 'tenant-b-Key-9f8e7d6c';
    const factory: AgentFactory = (context) => ({ system: 'ok', ...(context.conversationId === 'b' ? { secrets: [secret] } : {}) });
    const model = new ScriptedModelClient([reply('hi'), reply(`the key is ${secret}`)]);
    const host = new AgentHost({ config: defaultHostConfig(), store: new MemoryEventStore(), model, agent: factory });
    await host.handle('a', 'hello');
    const b = await host.handle('b', 'key?');
    expect(JSON.stringify(b)).not.toContain(secret);
    expect(JSON.stringify(await host.events('b'))).not.toContain(secret);
    await host.close();
  });
});
