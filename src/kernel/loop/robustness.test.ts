/**
 * Invariant 12: providers never reject, the loop never throws, tools always
 * settle — and when a part breaks its side of that contract anyway, the loop
 * still closes the turn with an outcome. Plus the pre-close checkpoint hooks and
 * the notice after a failed turn that ran side effects.
 */
import { describe, expect, it } from 'vitest';
import type { ModelClient } from '../model/client.ts';
import { call, refusal, reply, toolUse } from '../../../providers/fake/results.ts';
import { SupportBackend } from '../../../scenarios/example-agent/backend.ts';
import { supportTools } from '../../../scenarios/example-agent/tools.ts';
import { createWorld, renderMessages, spanShape } from '../../../test/support/world.ts';
import { defineTool } from '../tools/define-tool.ts';
import { z } from 'zod';

describe('parts that break their contract', () => {
  it('a model client that rejects: the turn fails as provider_unavailable, nothing throws', async () => {
    const rejecting: ModelClient = { name: 'rejecting', call: () => Promise.reject(new Error('socket hang up')) };
    const world = createWorld({
      model: rejecting,
      config: { retry: { immediateRetries: 0, immediateDelayMs: 0, backoffRetries: 0, backoffBaseMs: 0, backoffMaxMs: 0, jitter: 0, maxRetryAfterMs: 0 } },
    });
    const result = await world.turn('hi');
    expect(result.outcome).toMatchObject({ kind: 'failed', reason: 'provider_unavailable' });
    expect(result.outcome.kind === 'failed' && result.outcome.detail).toMatch(/contract violation.*socket hang up/);
  });

  it('a model client that throws synchronously', async () => {
    const throwing: ModelClient = {
      name: 'throwing',
      call: () => {
        throw new TypeError('boom');
      },
    };
    const world = createWorld({
      model: throwing,
      config: { retry: { immediateRetries: 0, immediateDelayMs: 0, backoffRetries: 0, backoffBaseMs: 0, backoffMaxMs: 0, jitter: 0, maxRetryAfterMs: 0 } },
    });
    const result = await world.turn('hi');
    expect(result.outcome).toMatchObject({ kind: 'failed', reason: 'provider_unavailable' });
  });

  it('a model client that hangs forever: the loop’s own timeout backstop settles it', async () => {
    const hanging: ModelClient = { name: 'hanging', call: () => new Promise(() => {}) };
    const world = createWorld({
      model: hanging,
      config: {
        modelTimeoutMs: 30_000,
        retry: { immediateRetries: 0, immediateDelayMs: 0, backoffRetries: 1, backoffBaseMs: 1_000, backoffMaxMs: 1_000, jitter: 0, maxRetryAfterMs: 0 },
      },
    });
    const result = await world.turn('hi');
    expect(result.outcome).toMatchObject({ kind: 'failed', reason: 'provider_unavailable' });
    expect(world.clock.now()).toBe(61_000); // two 30 s timeouts and one 1 s backoff, on the virtual clock
    expect(spanShape(result.trace)).toEqual(['turn:ok', 'turn > model_call:error', 'turn > backoff:ok', 'turn > model_call:error']);
  });

  it('tools that throw, reject, or never settle still settle, and the turn goes on', async () => {
    const tools = [
      defineTool({
        name: 'throws',
        description: 'throws',
        input: z.object({}),
        sideEffect: 'NONE',
        maxRetries: 0,
        run: () => {
          throw new Error('kaput');
        },
      }),
      defineTool({
        name: 'rejects',
        description: 'rejects',
        input: z.object({}),
        sideEffect: 'NONE',
        maxRetries: 0,
        run: () => Promise.reject(new Error('nope')),
      }),
      defineTool({
        name: 'hangs',
        description: 'hangs',
        input: z.object({}),
        sideEffect: 'NONE',
        maxRetries: 0,
        timeoutMs: 5_000,
        run: () => new Promise(() => {}),
      }),
    ];
    const world = createWorld({ tools, script: [toolUse([call('a', 'throws'), call('b', 'rejects'), call('c', 'hangs')]), reply('done')] });
    const result = await world.turn('go');
    expect(result.outcome.kind).toBe('replied');
    expect(world.eventsOf('tool.result').map((e) => `${e.payload.callId}:${e.payload.status}`)).toEqual(['a:failed', 'b:failed', 'c:unknown']);
  });
});

describe('checkpoint hooks', () => {
  it('run before close, one at a time, and may extend the turn', async () => {
    const order: string[] = [];
    let todos = 1;
    const world = createWorld({
      checkpoints: [
        {
          name: 'todos',
          run: () => {
            order.push('todos');
            return todos-- > 0 ? { extend: 'You still have 1 unfinished to-do: add a note.' } : undefined;
          },
        },
        {
          name: 'summary',
          run: () => {
            order.push('summary');
          },
        },
      ],
      script: [reply('Refund issued.'), reply('Note added too.')],
    });
    const result = await world.turn('refund please');
    expect(result.reply).toBe('Note added too.');
    expect(order).toEqual(['todos', 'todos', 'summary']);
    expect(renderMessages(world.scripted!.requests[1]!.messages).at(-1)).toBe('user: You still have 1 unfinished to-do: add a note.');
    expect(spanShape(result.trace).filter((s) => s.includes('checkpoint'))).toEqual(['turn > checkpoint:ok', 'turn > checkpoint:ok', 'turn > checkpoint:ok']);
  });

  it('cannot extend a turn forever', async () => {
    const world = createWorld({
      config: { maxCheckpointExtensions: 2 },
      checkpoints: [{ name: 'nag', run: () => ({ extend: 'keep going' }) }],
      script: [reply('1'), reply('2'), reply('3'), reply('4')],
    });
    const result = await world.turn('go');
    expect(result.outcome.kind).toBe('replied');
    expect(result.steps).toBe(3);
  });

  it('a throwing hook is recorded and does not extend or fail the turn', async () => {
    const world = createWorld({
      checkpoints: [
        {
          name: 'broken',
          run: () => {
            throw new Error('hook bug');
          },
        },
      ],
      script: [reply('fine')],
    });
    const result = await world.turn('go');
    expect(result.outcome.kind).toBe('replied');
    expect(spanShape(result.trace)).toContain('turn > checkpoint:error');
  });
});

describe('side effects of a failed turn', () => {
  it('are told to the model in the next turn (an inject), though the failed turn adds nothing to the history', async () => {
    const backend = new SupportBackend();
    const world = createWorld({
      tools: supportTools(backend),
      script: [
        toolUse([call('r1', 'issue_refund', { order_id: 'ORD-1001', amount: 20, reason: 'damaged' })]),
        refusal('I cannot continue.'),
        reply('The refund was already issued; nothing else to do.'),
      ],
    });
    const failed = await world.turn('refund ORD-1001');
    expect(failed.outcome).toMatchObject({ kind: 'failed', reason: 'refusal' });
    expect(world.projection()).toEqual([]);
    expect(await world.drain()).toEqual([]); // the notice is an inject: it does not wake the loop
    await world.turn('did it work?');
    const seen = renderMessages(world.scripted!.requests[2]!.messages);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(
      /previous turn ended with failed\{refusal\}.*issue_refund \(call r1\): done.*Do not repeat them without checking\.\] \| did it work\?$/s,
    );
    expect(backend.executed('issue_refund')).toBe(1);
  });
});
