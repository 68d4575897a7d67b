/**
 * The model-error chain's retry tiers (seed 001 §3.2): an immediate retry, then
 * exponential backoff with jitter honouring retry-after, then a fallback client.
 * Every attempt is an event in the log and a span in the trace; waits go through
 * the injected clock; a STATEFUL tool is never re-run by any retry.
 */
import { describe, expect, it } from 'vitest';
import { call, reply, toolUse, transportError } from '../../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../../providers/fake/scripted.ts';
import { SupportBackend } from '../../../scenarios/example-agent/backend.ts';
import { supportTools } from '../../../scenarios/example-agent/tools.ts';
import { createWorld, spanShape } from '../../../test/support/world.ts';
import type { ModelErrorHandler } from './model-errors.ts';

const handled = (world: ReturnType<typeof createWorld>) =>
  world.eventsOf('model.error_handled').map((e) => `${e.payload.handler}:${e.payload.action}${e.payload.delayMs !== undefined ? `@${e.payload.delayMs}` : ''}`);

describe('retry tiers', () => {
  it('tier 1: one immediate retry (1 s) recovers a 500', async () => {
    const world = createWorld({ script: [transportError('server_error', { status: 500 }), reply('ok')] });
    const result = await world.turn('hi');
    expect(result.outcome.kind).toBe('replied');
    expect(handled(world)).toEqual(['retry-tiers:retry@1000']);
    expect(world.eventsOf('model.request').map((e) => e.payload.attempt)).toEqual([1, 2]);
    expect(spanShape(result.trace)).toEqual(['turn:ok', 'turn > model_call:error', 'turn > backoff:ok', 'turn > model_call:ok']);
    expect(world.clock.now()).toBe(1_000); // virtual: the wait cost no real time
  });

  it('tier 2: exponential backoff 2 s, 4 s, 8 s after the immediate retry', async () => {
    const world = createWorld({
      script: [transportError('overloaded'), transportError('overloaded'), transportError('overloaded'), transportError('overloaded'), reply('ok')],
    });
    const result = await world.turn('hi');
    expect(result.outcome.kind).toBe('replied');
    // jitter is 0 in the test world
    expect(handled(world)).toEqual(['retry-tiers:retry@1000', 'retry-tiers:retry@2000', 'retry-tiers:retry@4000', 'retry-tiers:retry@8000']);
    expect(world.clock.now()).toBe(15_000);
    expect(spanShape(result.trace).filter((s) => s.includes('backoff'))).toHaveLength(4);
  });

  it('honours retry-after when it is longer than the backoff', async () => {
    const world = createWorld({ script: [transportError('rate_limited', { status: 429, retryAfterMs: 30_000 }), reply('ok')] });
    await world.turn('hi');
    expect(handled(world)).toEqual(['retry-tiers:retry@30000']);
    expect(world.clock.now()).toBe(30_000);
  });

  it('jitter is added to backoff waits from the injected randomness', async () => {
    const world = createWorld({
      config: {
        retry: { immediateRetries: 0, immediateDelayMs: 0, backoffRetries: 1, backoffBaseMs: 2_000, backoffMaxMs: 8_000, jitter: 0.5, maxRetryAfterMs: 60_000 },
      },
      script: [transportError('network'), reply('ok')],
    });
    await world.turn('hi');
    expect(handled(world)).toEqual(['retry-tiers:retry@2500']); // 2000 × (1 + 0.5 × 0.5)
  });

  it('tier 3: the fallback client answers once tiers 1–2 are spent', async () => {
    const world0 = createWorld();
    const fallback = new ScriptedModelClient([reply('from the fallback')], { name: 'fallback', clock: world0.clock });
    const world = createWorld({
      fallbackModels: [fallback],
      config: {
        retry: { immediateRetries: 1, immediateDelayMs: 100, backoffRetries: 1, backoffBaseMs: 200, backoffMaxMs: 200, jitter: 0, maxRetryAfterMs: 60_000 },
      },
      script: [
        transportError('server_error', { status: 503 }),
        transportError('server_error', { status: 503 }),
        transportError('server_error', { status: 503 }),
      ],
    });
    const result = await world.turn('hi');
    expect(result.reply).toBe('from the fallback');
    expect(handled(world)).toEqual(['retry-tiers:retry@100', 'retry-tiers:retry@200', 'retry-tiers:switch_client']);
    expect(world.eventsOf('model.request').map((e) => e.payload.client)).toEqual(['scripted', 'scripted', 'scripted', 'fallback']);
    expect(spanShape(result.trace).filter((s) => s.includes('model_call'))).toHaveLength(4);
  });

  it('a retry-after beyond the limit skips to the fallback tier (here: none, so it fails)', async () => {
    const world = createWorld({ script: [transportError('rate_limited', { retryAfterMs: 3_600_000 })] });
    const result = await world.turn('hi');
    expect(result.outcome).toMatchObject({ kind: 'failed', reason: 'rate_limited' });
    expect(world.clock.now()).toBe(0);
  });

  it('auth fails at once: no retry, no wait', async () => {
    const world = createWorld({ script: [transportError('auth', { status: 401 }), reply('never')] });
    const result = await world.turn('hi');
    expect(result.outcome).toMatchObject({ kind: 'failed', reason: 'auth' });
    expect(world.scripted!.requests).toHaveLength(1);
    expect(handled(world)).toEqual(['fail-fast:fail']);
  });

  it('a host handler runs before the built-ins and may answer "handled, retry"', async () => {
    const seen: string[] = [];
    const custom: ModelErrorHandler = {
      name: 'refresh-credentials',
      handle(error) {
        seen.push(error.type === 'transport_error' ? error.kind : error.type);
        return error.type === 'transport_error' && error.kind === 'auth' && seen.length === 1
          ? { action: 'retry', delayMs: 0, detail: 'refreshed the token' }
          : undefined;
      },
    };
    const world = createWorld({ errorHandlers: [custom], script: [transportError('auth', { status: 401 }), reply('ok')] });
    const result = await world.turn('hi');
    expect(result.outcome.kind).toBe('replied');
    expect(handled(world)).toEqual(['refresh-credentials:retry@0']);
  });

  it('a STATEFUL tool call is not re-run by any retry of the following request (invariant 13)', async () => {
    const backend = new SupportBackend();
    const world = createWorld({
      tools: supportTools(backend),
      script: [
        toolUse([call('r1', 'issue_refund', { order_id: 'ORD-1001', amount: 20, reason: 'damaged' })]),
        transportError('server_error', { status: 500 }),
        transportError('overloaded'),
        transportError('network'),
        reply('Refunded 20.'),
      ],
    });
    const result = await world.turn('refund ORD-1001');
    expect(result.reply).toBe('Refunded 20.');
    expect(backend.executed('issue_refund')).toBe(1);
    expect(backend.refunds).toHaveLength(1);
    expect(world.eventsOf('tool.started')).toHaveLength(1);
  });
});
