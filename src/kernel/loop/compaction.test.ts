/**
 * Invariant 10: an overflow leads to a retry only if the projection shrank;
 * otherwise `conversation_full`. Compaction replaces whole closed turns, so it
 * never orphans tool results or splits a parallel batch, and the originals stay
 * in the log.
 */
import { describe, expect, it } from 'vitest';
import { call, overflow, reply, toolUse } from '../../../providers/fake/results.ts';
import { SupportBackend } from '../../../scenarios/example-agent/backend.ts';
import { supportTools } from '../../../scenarios/example-agent/tools.ts';
import { createWorld, renderMessages } from '../../../test/support/world.ts';
import { checkToolPairing } from '../projection/invariants/tool-pairing.ts';
import type { Compactor } from './types.ts';

const summarizeAll = (summary: string): Compactor => ({
  compact: async ({ candidate }) => (candidate ? { ...candidate, summary } : null),
});

async function twoTurns(world: ReturnType<typeof createWorld>) {
  await world.turn('Where is ORD-1001?');
  await world.turn('And ORD-1002?');
}

describe('compaction on overflow', () => {
  it('compacts earlier turns, then retries — and the retried request is smaller and well-paired', async () => {
    const world = createWorld({
      tools: supportTools(new SupportBackend()),
      compactor: summarizeAll('The customer asked about two orders; both were found.'),
      script: [
        toolUse([call('a', 'lookup_order', { order_id: 'ORD-1001' }), call('b', 'lookup_order', { order_id: 'ORD-1002' })]),
        reply('Delivered and shipped.'),
        reply('Shipped.'),
        overflow('request'),
        reply('Your refund is being processed.'),
      ],
    });
    await twoTurns(world);
    const before = world.projection();
    const result = await world.turn('Refund ORD-1001 please');
    expect(result.outcome.kind).toBe('replied');
    const [overflowing, retried] = world.scripted!.requests.slice(3);
    expect(retried!.messages.length).toBeLessThan(overflowing!.messages.length);
    expect(renderMessages(retried!.messages)).toEqual([
      'user: [Summary of the earlier conversation]\nThe customer asked about two orders; both were found. | Refund ORD-1001 please',
    ]);
    expect(checkToolPairing(retried!.messages)).toBeUndefined();
    // The originals are still in the log, and undoing the compaction brings them back.
    expect(world.eventsOf('assistant.message').length).toBe(4);
    expect(world.eventsOf('projection.replaced')).toHaveLength(1);
    expect(before.length).toBe(6);
  });

  it('a compaction that does not shrink the history is not applied: conversation_full, no retry', async () => {
    const world = createWorld({
      compactor: summarizeAll('x'.repeat(10_000)),
      script: [reply('one'), reply('two'), overflow('request'), reply('never')],
    });
    await twoTurns(world);
    const result = await world.turn('third');
    expect(result.outcome).toEqual({ kind: 'conversation_full' });
    expect(world.scripted!.requests).toHaveLength(3); // no retry without progress
    expect(world.eventsOf('projection.replaced')).toHaveLength(0);
    expect(world.eventsOf('model.error_handled')[0]!.payload.detail).toMatch(/did not shrink/);
  });

  it('compact → overflow → compact stops after the configured number of compactions', async () => {
    let n = 0;
    const shrinking: Compactor = { compact: async ({ candidate }) => (candidate ? { ...candidate, summary: `s${n++}` } : null) };
    const world = createWorld({
      compactor: shrinking,
      config: { maxCompactionsPerStep: 2 },
      script: [reply('a'.repeat(400)), reply('b'.repeat(400)), overflow('request'), overflow('request'), overflow('request'), reply('never')],
    });
    await twoTurns(world);
    const result = await world.turn('third');
    expect(result.outcome).toEqual({ kind: 'conversation_full' });
    expect(world.scripted!.requests.length).toBeLessThanOrEqual(5);
  });

  it('overflow during generation keeps its usage and is handled like a request overflow', async () => {
    const world = createWorld({
      script: [
        {
          result: {
            type: 'context_window_exceeded',
            at: 'generation',
            content: [{ type: 'text', text: 'partial' }],
            message: 'too long',
            usage: { inputTokens: 500, outputTokens: 40 },
          },
        },
      ],
    });
    const result = await world.turn('hi');
    expect(result.outcome).toEqual({ kind: 'conversation_full' });
    expect(result.usage).toEqual({ inputTokens: 500, outputTokens: 40 });
  });

  it('a compactor proposing a range that cuts a turn is refused', async () => {
    const world = createWorld({
      compactor: { compact: async ({ candidate }) => (candidate ? { from: candidate.from + 1, to: candidate.to, summary: 's' } : null) },
      script: [reply('one'), overflow('request')],
    });
    await world.turn('first');
    const result = await world.turn('second');
    expect(result.outcome).toEqual({ kind: 'conversation_full' });
    expect(world.eventsOf('model.error_handled')[0]!.payload.detail).toMatch(/must start at a turn.opened/);
  });
});
