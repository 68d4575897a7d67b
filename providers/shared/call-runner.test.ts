import { describe, expect, it } from 'vitest';
import type { ModelDelta, ModelRequest } from '../../src/kernel/model/client.ts';
import { reply } from '../fake/results.ts';
import { describeError, runModelCall } from './call-runner.ts';
import { transportFailure } from './results.ts';

const request: ModelRequest = { model: 'm', system: '', messages: [], tools: [], maxTokens: 10 };
const classify = (error: unknown) => transportFailure('network', String(error));
const never = () => new Promise<never>(() => {});

describe('runModelCall', () => {
  it('does not start a call whose signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    let started = false;
    const result = await runModelCall(
      { ...request, signal: controller.signal },
      undefined,
      async () => {
        started = true;
        return reply('x');
      },
      classify,
    );
    expect(result).toMatchObject({ type: 'transport_error', kind: 'aborted' });
    expect(started).toBe(false);
  });

  it('runs its deadline on the timer it is given, and on the system timer when that one throws', async () => {
    const asked: number[] = [];
    let fire: (() => void) | undefined;
    const given = runModelCall({ ...request, timeoutMs: 30_000 }, undefined, never, classify, [], (ms, f) => {
      asked.push(ms);
      fire = f;
      return { cancel: () => undefined };
    });
    expect(asked).toEqual([30_000]);
    fire!();
    expect(await given).toMatchObject({ type: 'transport_error', kind: 'timeout' });
    const broken = await runModelCall({ ...request, timeoutMs: 20 }, undefined, never, classify, [], () => {
      throw new Error('no timers here');
    });
    expect(broken).toMatchObject({ type: 'transport_error', kind: 'timeout' });
  });

  it('settles with timeout when the work never finishes, and aborts the signal it handed out', async () => {
    let signal: AbortSignal | undefined;
    const result = await runModelCall(
      { ...request, timeoutMs: 30 },
      undefined,
      (ctx) => {
        signal = ctx.signal;
        return never();
      },
      classify,
    );
    expect(result).toMatchObject({ type: 'transport_error', kind: 'timeout' });
    expect(signal?.aborted).toBe(true);
  });

  it('settles with aborted when the caller aborts mid-call, even if the work then ends quietly', async () => {
    const controller = new AbortController();
    const result = await runModelCall(
      { ...request, signal: controller.signal },
      undefined,
      async (ctx) => {
        controller.abort();
        await new Promise((resolve) => setTimeout(resolve, 5));
        expect(ctx.signal.aborted).toBe(true);
        return reply('short but looks complete');
      },
      classify,
    );
    expect(result).toMatchObject({ type: 'transport_error', kind: 'aborted' });
  });

  it('turns a thrown error into a result, and a throwing classifier into network', async () => {
    expect(await runModelCall(request, undefined, () => Promise.reject(new Error('boom')), classify)).toMatchObject({
      kind: 'network',
      message: 'Error: boom',
    });
    const broken = () => {
      throw new Error('classifier bug');
    };
    expect(await runModelCall(request, undefined, () => Promise.reject(new Error('boom')), broken)).toMatchObject({
      type: 'transport_error',
      kind: 'network',
      message: expect.stringContaining('classifier bug'),
    });
  });

  it('swallows listener errors and drops deltas after settlement', async () => {
    const seen: ModelDelta[] = [];
    let emitLater: ((delta: ModelDelta) => void) | undefined;
    const result = await runModelCall(
      request,
      (delta) => {
        seen.push(delta);
        throw new Error('listener bug');
      },
      async (ctx) => {
        ctx.emit({ kind: 'text', text: 'a' });
        emitLater = ctx.emit;
        return reply('a');
      },
      classify,
    );
    emitLater?.({ kind: 'text', text: 'late' });
    expect(result.type).toBe('reply');
    expect(seen).toEqual([{ kind: 'text', text: 'a' }]);
  });
});

describe('runModelCall usage on early endings', () => {
  it('keeps the usage reported so far on a transport error, and never overrides usage a result already has', async () => {
    const spent = { inputTokens: 50, outputTokens: 1 };
    const failed = await runModelCall(
      request,
      undefined,
      async (ctx) => {
        ctx.usageSoFar = () => spent;
        throw new Error('socket closed');
      },
      classify,
    );
    expect(failed).toMatchObject({ type: 'transport_error', usage: spent });
    const timedOut = await runModelCall(
      { ...request, timeoutMs: 10 },
      undefined,
      (ctx) => {
        ctx.usageSoFar = () => spent;
        return new Promise<never>(() => {});
      },
      classify,
    );
    expect(timedOut).toMatchObject({ type: 'transport_error', kind: 'timeout', usage: spent });
    const own = await runModelCall(
      request,
      undefined,
      async (ctx) => {
        ctx.usageSoFar = () => spent;
        return reply('ok', { inputTokens: 1, outputTokens: 1 });
      },
      classify,
    );
    expect(own.usage).toEqual({ inputTokens: 1, outputTokens: 1 });
  });
});

describe('describeError', () => {
  // @anthropic-ai/sdk 1.17 wraps one layer more than 1.14: the socket's words sat two causes down, and a fresh
  // install failed contract:anthropic/network_during_stream (outside probe 20, F2).
  it('follows the cause chain down, each layer that says something new once', () => {
    const socket = new Error('other side closed');
    const fetch = new TypeError('terminated', { cause: socket });
    const sdk = new Error('Connection error.', { cause: fetch });
    expect(describeError(sdk)).toBe('Connection error.: terminated: other side closed');
    expect(describeError(new Error('fetch failed: terminated', { cause: fetch }))).toBe('fetch failed: terminated: other side closed');
  });

  it('stops at a cycle and at five causes', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(describeError(b)).toBe('b: a');
    let deep = new Error('e0');
    for (let i = 1; i <= 8; i++) deep = new Error(`e${i}`, { cause: deep });
    expect(describeError(deep)).toBe('e8: e7: e6: e5: e4: e3');
  });
});
