/**
 * Invariant 1: every model request is recomputable from the log — what the model
 * saw at any step can be rebuilt exactly from the log prefix recorded with it.
 */
import { describe, expect, it } from 'vitest';
import { call, overflow, reply, toolUse, transportError } from '../../../providers/fake/results.ts';
import { SupportBackend } from '../../../scenarios/example-agent/backend.ts';
import { supportTools } from '../../../scenarios/example-agent/tools.ts';
import { createWorld } from '../../../test/support/world.ts';
import { recomputeRequest, requestSeqs } from './request.ts';

describe('requests recomputable from the log', () => {
  it('every request sent equals the one recomputed from the log, across tools, retries, a failed turn, a steer and a compaction', async () => {
    const backend = new SupportBackend();
    const world = createWorld({
      tools: supportTools(backend),
      compactor: { compact: async ({ candidate }) => (candidate ? { ...candidate, summary: 'earlier: order questions' } : null) },
      script: [
        toolUse([call('a', 'lookup_order', { order_id: 'ORD-1001' }), call('b', 'lookup_order', { order_id: 'ORD-1002' })]),
        transportError('server_error', { status: 500 }),
        reply('Both found.'),
        toolUse([call('c', 'lookup_order', { order_id: 'ORD-9999' })]),
        () => {
          world.send('never mind', 'steer');
          return { type: 'refusal', text: 'no', usage: { inputTokens: 1, outputTokens: 1 } };
        },
        reply('ok'),
        overflow('request'),
        reply('after compaction'),
      ],
    });
    await world.turn('Where are ORD-1001 and ORD-1002?');
    world.send('And ORD-9999?');
    const outcomes = (await world.drain()).map((r) => r.outcome.kind);
    expect(outcomes).toEqual(['failed', 'replied']); // the refusal, then the steer's own turn
    await world.turn('One more thing');
    expect(world.eventsOf('projection.replaced')).toHaveLength(1);
    const seqs = requestSeqs(world.log.events);
    const sent = world.scripted!.requests;
    expect(seqs.length).toBe(sent.length);
    seqs.forEach((seq, i) => {
      const recomputed = recomputeRequest(world.log.events, seq);
      expect(recomputed.messages).toEqual(sent[i]!.messages);
      expect(recomputed.system).toBe(sent[i]!.system);
      expect(recomputed.tools).toEqual(sent[i]!.tools);
      expect(recomputed.model).toBe(sent[i]!.model);
      expect(recomputed.maxTokens).toBe(sent[i]!.maxTokens);
    });
  });

  it('records the system prompt when it changes, and each request points at the one it used', async () => {
    let day = 'Monday';
    const prompts: string[] = [];
    const dynamic = createWorldWithPrompt(() => `Today is ${day}.`);
    await dynamic.turn('one');
    await dynamic.turn('two');
    day = 'Tuesday';
    await dynamic.turn('three');
    for (const seq of requestSeqs(dynamic.log.events)) prompts.push(recomputeRequest(dynamic.log.events, seq).system);
    expect(prompts).toEqual(['Today is Monday.', 'Today is Monday.', 'Today is Tuesday.']);
    expect(dynamic.eventsOf('prompt.assembled')).toHaveLength(2);
    expect(dynamic.scripted!.requests.map((r) => r.system)).toEqual(prompts);
  });

  it('names what is wrong when asked to recompute something that is not a request', () => {
    const world = createWorld();
    world.send('hi');
    expect(() => recomputeRequest(world.log.events, 0)).toThrow(/seq 0 is not a model.request event \(it is inbox.received\)/);
  });
});

import { ScriptedModelClient } from '../../../providers/fake/scripted.ts';
import { VirtualClock } from '../../harness/virtual-clock.ts';
import { EventLog } from '../log/event-log.ts';
import { project } from '../projection/projection.ts';
import { createRedactor } from '../redact/index.ts';
import { createToolExecutor } from '../tools/pipeline.ts';
import { ToolRegistry } from '../tools/registry.ts';
import { Tracer } from '../trace/tracer.ts';
import { AgentLoop } from './runner.ts';
import { TEST_CONFIG } from '../../../test/support/world.ts';

function createWorldWithPrompt(system: () => string) {
  const clock = new VirtualClock();
  const log = new EventLog(clock);
  const scripted = new ScriptedModelClient([reply('a'), reply('b'), reply('c')], { clock });
  let ids = 0;
  const loop = new AgentLoop({
    log,
    model: scripted,
    tools: createToolExecutor({ registry: new ToolRegistry([]) }),
    prompt: { assemble: () => ({ system: system(), fragments: [{ id: 'day', priority: 0 }] }) },
    clock,
    persist: async () => {},
    tracing: { begin: (t) => new Tracer({ clock, traceId: String(t) }), finish: (t) => t.end() },
    redact: createRedactor(),
    config: TEST_CONFIG,
    newId: () => `m${ids++}`,
  });
  return {
    log,
    scripted,
    async turn(text: string) {
      loop.send(text);
      return (await clock.run(loop.drain()))[0]!;
    },
    eventsOf: (type: string) => log.events.filter((e) => e.type === type),
    projection: () => project(log.events),
  };
}
