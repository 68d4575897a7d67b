import { MAX_ARGUMENT_DEPTH } from './argument-depth.ts';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ToolCall } from '../model/client.ts';
import { toFrozenPlainData } from '../log/plain-data.ts';
import { createRedactor } from '../redact/index.ts';
import { Tracer } from '../trace/tracer.ts';
import { defineTool } from './define-tool.ts';
import { createToolExecutor, type ToolExecutorOptions } from './pipeline.ts';
import { ToolRegistry } from './registry.ts';
import { VirtualClock } from '../../harness/virtual-clock.ts';
import { flush, memoryRecorder } from '../../../test/support/tool-doubles.ts';
import { ToolFailure, type AnyToolDeclaration, type Approver, type SettledToolCall, type SideEffect, type ToolRunContext } from './types.ts';

const SECRET = 'hunter2-very-secret-value';

/** A tool whose behaviour each test scripts; counts and keeps every run. */
function scripted(
  name: string,
  sideEffect: SideEffect,
  behaviour: (args: unknown, ctx: ToolRunContext, run: number) => unknown,
  extra: Partial<AnyToolDeclaration> = {},
) {
  const runs: { args: unknown; ctx: ToolRunContext }[] = [];
  const declaration = {
    name,
    description: `${name} for tests`,
    input: z.object({ id: z.string().optional(), note: z.string().optional() }),
    sideEffect,
    run: (args: unknown, ctx: ToolRunContext) => {
      runs.push({ args, ctx });
      return behaviour(args, ctx, runs.length);
    },
    ...extra,
  } as AnyToolDeclaration;
  return { declaration, runs };
}

function setup(tools: AnyToolDeclaration[], options: Partial<ToolExecutorOptions> = {}) {
  const clock = new VirtualClock(1000);
  const recorder = memoryRecorder();
  const tracer = new Tracer({ clock, traceId: 't' });
  const root = tracer.startSpan('turn', 'turn');
  const executor = createToolExecutor({ registry: new ToolRegistry(tools), redact: createRedactor({ secrets: [SECRET] }), ...options });
  const controller = new AbortController();
  const ctx = { signal: controller.signal, clock, recorder, trace: root };
  const call = (name: string, args: unknown = {}, id = 'call-1'): ToolCall => ({ id, name, args });
  return { clock, recorder, tracer, root, executor, controller, ctx, call };
}

/** Settles a promise that is expected to settle without the test doing anything more. */
async function settledNow<T>(promise: Promise<T>): Promise<T> {
  let done = false;
  void promise.then(() => (done = true));
  await flush();
  expect(done, 'the pipeline should have settled without waiting').toBe(true);
  return promise;
}

describe('tool pipeline: the happy path', () => {
  it('runs a visible, allowed tool and normalizes its result', async () => {
    const weather = defineTool({
      name: 'get_weather',
      description: 'Weather.',
      input: z.object({ city: z.string() }),
      output: z.object({ city: z.string(), tempC: z.number() }),
      sideEffect: 'NONE',
      run: (args) => ({ city: args.city, tempC: 21 }),
    });
    const { executor, ctx, call, recorder, tracer, root } = setup([weather]);
    const settled = await executor.execute(call('get_weather', { city: 'Paris' }), ctx);
    expect(settled).toEqual({
      callId: 'call-1',
      name: 'get_weather',
      status: 'ok',
      content: '{"city":"Paris","tempC":21}',
      output: { city: 'Paris', tempC: 21 },
      durationMs: 0,
      attempts: 1,
    });
    // The loop writes this into the log: it must be plain JSON data (no undefined fields).
    expect(() => toFrozenPlainData(settled)).not.toThrow();
    expect(recorder.policies).toEqual([{ callId: 'call-1', tool: 'get_weather', decision: { decision: 'allow', by: 'default', rule: 'no_matching_rule' } }]);
    expect(recorder.starts).toEqual([
      { callId: 'call-1', name: 'get_weather', args: { city: 'Paris' }, sideEffect: 'NONE', attempt: 1, idempotencyKey: 'get_weather:call-1' },
    ]);

    root.end('ok');
    const trace = tracer.end();
    const tool = trace.spans.find((s) => s.kind === 'tool')!;
    expect(tool).toMatchObject({
      parentId: root.id,
      status: 'ok',
      attributes: { tool: 'get_weather', callId: 'call-1', sideEffect: 'NONE', status: 'ok', attempts: 1 },
    });
    expect(tool.attributes['args']).toBe('{"city":"Paris"}');
    const policy = trace.spans.find((s) => s.kind === 'policy')!;
    expect(policy).toMatchObject({ parentId: tool.id, status: 'ok', attributes: { decision: 'allow' } });
    expect(trace.violations).toEqual([]);
  });

  it('parses string arguments leniently before validating', async () => {
    const t = scripted('echo', 'NONE', (args) => args);
    const { executor, ctx } = setup([t.declaration]);
    const settled = await executor.execute({ id: 'c', name: 'echo', args: '```json\n{"note": "hi",}\n```' }, ctx);
    expect(settled.status).toBe('ok');
    expect(t.runs[0]!.args).toEqual({ note: 'hi' });
  });

  it('uses renderForModel, and falls back to JSON (still ok) when it throws', async () => {
    const rendered = scripted('r', 'STATEFUL', () => ({ n: 1 }), { renderForModel: (o: unknown) => `n is ${(o as { n: number }).n}` });
    const broken = scripted('b', 'STATEFUL', () => ({ n: 2 }), {
      renderForModel: () => {
        throw new Error('render bug');
      },
    });
    const { executor, ctx, call } = setup([rendered.declaration, broken.declaration]);
    expect((await executor.execute(call('r', {}, 'c1'), ctx)).content).toBe('n is 1');
    const fallback = await executor.execute(call('b', {}, 'c2'), ctx);
    // The tool ran and its side effects happened: a rendering bug must not report it as failed.
    expect(fallback.status).toBe('ok');
    expect(fallback.content).toContain('{"n":2}');
    expect(fallback.content).toContain('render bug');
  });

  it('settles a tool that returns nothing', async () => {
    const t = scripted('void', 'NONE', () => undefined);
    const { executor, ctx, call } = setup([t.declaration]);
    const settled = await executor.execute(call('void'), ctx);
    expect(settled).toMatchObject({ status: 'ok', content: '(no output)' });
    expect(settled).not.toHaveProperty('output');
  });
});

describe('tool pipeline: trace context', () => {
  it('each execution gets the traceparent of its own tool span (retries too), so it can pass it downstream', async () => {
    const failing = scripted('flaky', 'IDEMPOTENT', (_args, _ctx, run) => {
      if (run === 1) throw new Error('503 from upstream');
      return { ok: true };
    });
    const clock = new VirtualClock(1000);
    let n = 0;
    const traceId = 'c'.repeat(32);
    const tracer = new Tracer({ clock, traceId: 't', w3c: { traceId, sampled: true, newSpanId: () => (++n).toString(16).padStart(16, '0') } });
    const root = tracer.startSpan('turn', 'turn');
    const executor = createToolExecutor({ registry: new ToolRegistry([failing.declaration]), redact: createRedactor() });
    const settled = await executor.execute(
      { id: 'call-9', name: 'flaky', args: {} },
      { signal: new AbortController().signal, clock, recorder: memoryRecorder(), trace: root },
    );
    expect(settled).toMatchObject({ status: 'ok', attempts: 2 });
    root.end('ok');
    const toolSpan = tracer.end().spans.find((s) => s.kind === 'tool')!;
    expect(failing.runs.map((r) => r.ctx.traceparent)).toEqual([`00-${traceId}-${toolSpan.spanId}-01`, `00-${traceId}-${toolSpan.spanId}-01`]);
  });

  it('without a trace context a tool gets no traceparent', async () => {
    const tool = scripted('plain', 'NONE', () => 'done');
    const { executor, ctx, call } = setup([tool.declaration]);
    await executor.execute(call('plain'), ctx);
    expect('traceparent' in tool.runs[0]!.ctx).toBe(false);
  });
});

describe('tool pipeline: specs and parallel safety', () => {
  it('offers only visible tools, and treats hidden or unknown tools as not parallel-safe', () => {
    const a = scripted('a', 'NONE', () => 1, { parallelSafe: true });
    const b = scripted('b', 'NONE', () => 1, { parallelSafe: true });
    const c = scripted('c', 'NONE', () => 1);
    const { executor } = setup([a.declaration, b.declaration, c.declaration], { visibility: [{ name: 'global', deny: ['b'] }] });
    expect(executor.specs().map((s) => s.name)).toEqual(['a', 'c']);
    expect(executor.specs()[0]!.inputSchema).toMatchObject({ type: 'object' });
    expect(executor.specs()).toBe(executor.specs());
    expect(executor.parallelSafe('a')).toBe(true);
    expect(executor.parallelSafe('b')).toBe(false);
    expect(executor.parallelSafe('c')).toBe(false);
    expect(executor.parallelSafe('nope')).toBe(false);
  });
});

describe('tool pipeline: before stage', () => {
  it('an unknown tool fails TOOL_NOT_AVAILABLE, recorded as a visibility deny, listing what is available', async () => {
    const t = scripted('a', 'NONE', () => 1);
    const { executor, ctx, call, recorder } = setup([t.declaration]);
    const settled = await executor.execute(call('nope'), ctx);
    expect(settled).toMatchObject({ status: 'failed', attempts: 0, error: { failed_tool: 'nope', error_code: 'TOOL_NOT_AVAILABLE' } });
    expect(settled.error!.suggestion).toContain('a');
    expect(recorder.policies).toEqual([{ callId: 'call-1', tool: 'nope', decision: { decision: 'deny', by: 'visibility', rule: 'not_registered' } }]);
    expect(recorder.starts).toEqual([]);
  });

  it('a hidden tool is not run even when the model calls it by name', async () => {
    const t = scripted('delete_all', 'CRITICAL', () => 1);
    const { executor, ctx, call, recorder } = setup([t.declaration], {
      visibility: [
        { name: 'global', deny: ['delete_*'] },
        { name: 'mode:admin', allow: ['delete_all'] },
      ],
    });
    const settled = await executor.execute(call('delete_all'), ctx);
    expect(settled).toMatchObject({ status: 'failed', attempts: 0, error: { error_code: 'TOOL_NOT_AVAILABLE' } });
    expect(t.runs).toHaveLength(0);
    expect(recorder.policies[0]!.decision).toEqual({ decision: 'deny', by: 'visibility', rule: 'global:deny delete_*' });
  });

  it('invalid arguments fail with a field-level message, attempts 0, tool not run', async () => {
    const t = defineTool({
      name: 'refund',
      description: 'Refund.',
      input: z.object({ order_id: z.string(), amount: z.number() }),
      sideEffect: 'STATEFUL',
      run: () => 'done',
    });
    const { executor, ctx, call, recorder } = setup([t]);
    const settled = await executor.execute(call('refund', { order_id: 7 }), ctx);
    expect(settled).toMatchObject({ status: 'failed', attempts: 0 });
    expect(settled.error).toMatchObject({ failed_tool: 'refund', error_code: 'INVALID_ARGUMENTS' });
    expect(settled.error!.error_message).toContain('order_id: expected string, received number');
    expect(settled.error!.error_message).toContain('missing required field "amount"');
    expect(JSON.parse(settled.content)).toEqual(settled.error);
    expect(recorder.starts).toEqual([]);
  });

  it('arguments that are not JSON (e.g. cut by max_tokens) fail INVALID_ARGUMENTS and never run as {}', async () => {
    const t = scripted('write', 'STATEFUL', () => 'written');
    const { executor, ctx } = setup([t.declaration]);
    const settled = await executor.execute({ id: 'c', name: 'write', args: '{"note": "half a sen' }, ctx);
    expect(settled).toMatchObject({ status: 'failed', attempts: 0, error: { error_code: 'INVALID_ARGUMENTS' } });
    expect(settled.error!.error_message).toContain('{"note": "half a sen');
    expect(t.runs).toHaveLength(0);
  });

  it('a denied call fails DENIED (never unknown), says it did not run and not to retry', async () => {
    const t = scripted('send_email', 'CRITICAL', () => 'sent');
    const { executor, ctx, call, recorder } = setup([t.declaration], {
      policy: { rules: [{ id: 'no-email', tools: ['send_email'], decision: 'deny', reason: 'email is off today' }] },
    });
    const settled = await executor.execute(call('send_email'), ctx);
    expect(settled.status).toBe('failed');
    expect(settled.attempts).toBe(0);
    expect(settled.error).toMatchObject({ error_code: 'DENIED' });
    expect(settled.error!.error_message).toMatch(/email is off today.*did not run/);
    expect(settled.error!.suggestion).toMatch(/Do not retry the same call/);
    expect(t.runs).toHaveLength(0);
    expect(recorder.starts).toEqual([]);
    expect(recorder.policies[0]!.decision).toEqual({ decision: 'deny', by: 'policy', rule: 'no-email' });
  });

  it('ask with no approver denies by default at once (no hang)', async () => {
    const t = scripted('pay', 'CRITICAL', () => 'paid');
    const { executor, ctx, call, recorder, clock } = setup([t.declaration], {
      policy: { rules: [{ id: 'confirm', sideEffects: ['CRITICAL'], decision: 'ask' }] },
    });
    const settled = await settledNow(executor.execute(call('pay'), ctx));
    expect(settled).toMatchObject({ status: 'failed', attempts: 0, error: { error_code: 'DENIED' } });
    expect(recorder.policies[0]!.decision).toEqual({ decision: 'deny', by: 'default', rule: 'no_approver' });
    expect(t.runs).toHaveLength(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it('ask with an approver runs the tool once approved, showing the approver redacted arguments', async () => {
    const t = scripted('pay', 'CRITICAL', () => 'paid');
    const seen: unknown[] = [];
    const approver: Approver = {
      approve: async (request) => {
        seen.push(request.args);
        return 'approve';
      },
    };
    const { executor, ctx, call, recorder } = setup([t.declaration], { approver, policy: { rules: [{ id: 'confirm', tools: ['pay'], decision: 'ask' }] } });
    const settled = await executor.execute(call('pay', { note: `token ${SECRET}` }), ctx);
    expect(settled.status).toBe('ok');
    expect(seen).toEqual([{ note: 'token [REDACTED]' }]);
    expect(t.runs[0]!.args).toEqual({ note: `token ${SECRET}` }); // the tool itself gets the real value
    expect(recorder.policies[0]!.decision).toEqual({ decision: 'allow', by: 'approver', rule: 'confirm' });
  });

  it('asks the approver only once the recorder has the call stored; a refused store asks no one and settles NOT_RECORDED (probe 7, F6)', async () => {
    const t = scripted('pay', 'CRITICAL', () => 'paid');
    const order: string[] = [];
    const approver: Approver = {
      approve: async () => {
        order.push('asked');
        return 'approve';
      },
    };
    const { executor, ctx, call, recorder } = setup([t.declaration], { approver, policy: { rules: [{ id: 'confirm', tools: ['pay'], decision: 'ask' }] } });
    const stored = {
      ...recorder,
      stored: async () => void order.push('stored'),
      started: recorder.started.bind(recorder),
      policy: recorder.policy.bind(recorder),
      alreadyStarted: recorder.alreadyStarted.bind(recorder),
    };
    expect((await executor.execute(call('pay'), { ...ctx, recorder: stored })).status).toBe('ok');
    expect(order).toEqual(['stored', 'asked']);

    const refused = { ...stored, stored: () => Promise.reject(new Error('disk full')) };
    const settled = await executor.execute(call('pay', {}, 'call-2'), { ...ctx, recorder: refused });
    expect(settled).toMatchObject({ status: 'failed', attempts: 0 });
    expect(settled.content).toContain('NOT_RECORDED');
    expect(settled.content).toContain('no one was asked to approve it');
    expect(order).toEqual(['stored', 'asked']); // not asked again
    expect(t.runs).toHaveLength(1);
    expect(recorder.policies).toHaveLength(1); // nothing decided for the refused one
  });

  it('an abort while waiting for approval settles CANCELLED (did not run), recorded as deny/cancelled', async () => {
    const t = scripted('pay', 'CRITICAL', () => 'paid');
    const approver: Approver = { approve: () => new Promise(() => {}) };
    const { executor, ctx, call, recorder, controller, tracer, root } = setup([t.declaration], {
      approver,
      policy: { rules: [{ id: 'confirm', tools: ['pay'], decision: 'ask' }] },
    });
    const pending = executor.execute(call('pay'), ctx);
    await flush();
    controller.abort('user');
    const settled = await settledNow(pending);
    expect(settled).toMatchObject({ status: 'failed', attempts: 0, error: { error_code: 'CANCELLED' } });
    expect(settled.error!.error_message).toMatch(/did not run/);
    expect(recorder.policies[0]!.decision).toEqual({ decision: 'deny', by: 'approver', rule: 'cancelled' });
    expect(t.runs).toHaveLength(0);
    root.end('cancelled');
    const spans = tracer.end().spans;
    expect(spans.find((s) => s.kind === 'policy')!.status).toBe('cancelled');
    expect(spans.find((s) => s.kind === 'tool')!.status).toBe('cancelled');
  });

  it('a call made after the turn was cancelled does not run', async () => {
    const t = scripted('a', 'NONE', () => 1);
    const { executor, ctx, call, controller, recorder } = setup([t.declaration]);
    controller.abort();
    const settled = await executor.execute(call('a'), ctx);
    expect(settled).toMatchObject({ status: 'failed', attempts: 0, error: { error_code: 'CANCELLED' } });
    expect(t.runs).toHaveLength(0);
    expect(recorder.starts).toEqual([]);
  });
});

describe('tool pipeline: frozen arguments', () => {
  it('a tool that mutates its arguments throws (strict mode) and changes nothing anyone else sees', async () => {
    const t = scripted(
      'mutate',
      'NONE',
      (args) => {
        (args as { note: string }).note = 'changed';
        return 'mutated';
      },
      { maxRetries: 0 },
    );
    const { executor, ctx, recorder } = setup([t.declaration]);
    const original = { note: 'original' };
    const settled = await executor.execute({ id: 'c', name: 'mutate', args: original }, ctx);
    expect(settled).toMatchObject({ status: 'failed', error: { error_code: 'TOOL_ERROR' } });
    expect(settled.error!.error_message).toMatch(/read only|read-only|Cannot assign/i);
    expect(t.runs[0]!.args).toEqual({ note: 'original' });
    expect(Object.isFrozen(t.runs[0]!.args)).toBe(true);
    expect(recorder.starts[0]!.args).toEqual({ note: 'original' });
    // The caller's object (e.g. the provider result) is not frozen by the pipeline.
    expect(Object.isFrozen(original)).toBe(false);
  });

  it('the tool gets its own copy of arguments of any shape, equal to a structured clone, sharing kept', async () => {
    const t = scripted('echo', 'NONE', () => 'ok', { input: z.looseObject({}) });
    const { executor, ctx } = setup([t.declaration]);
    const shared = { id: 'S' };
    const cyclic: Record<string, unknown> = { name: 'c' };
    cyclic.self = cyclic;
    const cases: Record<string, unknown>[] = [
      { a: 1, nested: { list: [1, 'two', null, true, { deep: [-0] }], empty: {} } },
      { left: shared, right: shared },
      { cyclic },
      { when: new Date(0), sparse: [1, , 3], big: 10n },
      { nullProto: Object.assign(Object.create(null) as object, { k: 'v' }) },
    ];
    for (const [i, args] of cases.entries()) {
      await executor.execute({ id: `c${i}`, name: 'echo', args }, ctx);
      const received = t.runs[i]!.args as Record<string, unknown>;
      expect(received).toEqual(structuredClone(args));
      expect(received).not.toBe(args);
      for (const key of Object.keys(args)) if (typeof args[key] === 'object') expect(received[key]).not.toBe(args[key]);
      expect(Object.isFrozen(args)).toBe(false);
    }
    const sharing = t.runs[1]!.args as { left: object; right: object };
    expect(sharing.left).toBe(sharing.right);
    const cycle = (t.runs[2]!.args as { cyclic: { self: unknown } }).cyclic;
    expect(cycle.self).toBe(cycle);
  });
});

describe('tool pipeline: side-effect levels and the ledger (invariant 13)', () => {
  it('a STATEFUL tool that throws is not retried', async () => {
    const t = scripted('create_order', 'STATEFUL', () => {
      throw new Error('503 upstream');
    });
    const { executor, ctx, call, recorder } = setup([t.declaration], { defaultMaxRetries: 5 });
    const settled = await executor.execute(call('create_order'), ctx);
    expect(t.runs).toHaveLength(1);
    expect(recorder.starts).toHaveLength(1);
    expect(settled).toMatchObject({ status: 'failed', attempts: 1, error: { error_code: 'TOOL_ERROR' } });
    expect(settled.error!.suggestion).toMatch(/may have partly taken effect/);
  });

  it('a CRITICAL tool that throws a retryable ToolFailure is still not retried', async () => {
    const t = scripted('send_sms', 'CRITICAL', () => {
      throw new ToolFailure('GATEWAY_BUSY', 'gateway busy', { retryable: true });
    });
    const { executor, ctx, call } = setup([t.declaration]);
    const settled = await executor.execute(call('send_sms'), ctx);
    expect(t.runs).toHaveLength(1);
    expect(settled).toMatchObject({ status: 'failed', attempts: 1, error: { error_code: 'GATEWAY_BUSY' } });
  });

  it('a STATEFUL call whose id already started (e.g. before a crash) is settled unknown and not run', async () => {
    const t = scripted('create_order', 'STATEFUL', () => 'created');
    const { executor, ctx, call, recorder } = setup([t.declaration]);
    recorder.preStarted.add('call-1');
    const settled = await executor.execute(call('create_order'), ctx);
    expect(t.runs).toHaveLength(0);
    expect(settled).toMatchObject({ status: 'unknown', attempts: 0, error: { error_code: 'ALREADY_STARTED' } });
    expect(settled.error!.error_message).toMatch(/may have run/i);
    expect(recorder.starts).toEqual([]);
  });

  it('the ledger wins over changed configuration: a started call is never reported as denied or unavailable', async () => {
    const t = scripted('create_order', 'STATEFUL', () => 'created');
    const { executor, ctx, call, recorder } = setup([t.declaration], {
      visibility: [{ name: 'global', deny: ['create_order'] }],
      policy: { default: 'deny' },
    });
    recorder.preStarted.add('call-1');
    expect(await executor.execute(call('create_order'), ctx)).toMatchObject({ status: 'unknown', error: { error_code: 'ALREADY_STARTED' } });
    expect(await executor.execute(call('since_removed'), ctx)).toMatchObject({ status: 'unknown', error: { error_code: 'ALREADY_STARTED' } });
  });

  it('executing the same STATEFUL call id twice runs it once, also concurrently', async () => {
    const t = scripted('create_order', 'STATEFUL', () => 'created');
    const { executor, ctx, call } = setup([t.declaration]);
    const first = await executor.execute(call('create_order'), ctx);
    const again = await executor.execute(call('create_order'), ctx);
    expect(first.status).toBe('ok');
    expect(again).toMatchObject({ status: 'unknown', error: { error_code: 'ALREADY_STARTED' } });

    // A recorder that forgets (or lags): the executor's own guard still holds.
    const u = scripted('charge', 'CRITICAL', () => 'charged');
    const s = setup([u.declaration]);
    const forgetful = { ...s.recorder, alreadyStarted: () => false };
    const both = await Promise.all([
      s.executor.execute(s.call('charge', {}, 'x'), { ...s.ctx, recorder: forgetful }),
      s.executor.execute(s.call('charge', {}, 'x'), { ...s.ctx, recorder: forgetful }),
    ]);
    expect(u.runs).toHaveLength(1);
    expect(both.map((r) => r.status).sort()).toEqual(['ok', 'unknown']);
  });

  it('NONE and IDEMPOTENT calls that already started may run again', async () => {
    const n = scripted('lookup', 'NONE', () => 'found');
    const { executor, ctx, call, recorder } = setup([n.declaration]);
    recorder.preStarted.add('call-1');
    expect((await executor.execute(call('lookup'), ctx)).status).toBe('ok');
    expect(n.runs).toHaveLength(1);
  });

  it('NONE retries failures and throws up to maxRetries', async () => {
    const flaky = scripted('lookup', 'NONE', (_a, _c, run) => {
      if (run < 3) throw new Error(`flake ${run}`);
      return 'found';
    });
    const { executor, ctx, call } = setup([flaky.declaration]);
    const settled = await executor.execute(call('lookup'), ctx);
    expect(settled).toMatchObject({ status: 'ok', attempts: 3, content: 'found' });

    const broken = scripted('broken', 'NONE', () => {
      throw new Error('always');
    });
    const s = setup([broken.declaration]);
    const failed = await s.executor.execute(s.call('broken'), s.ctx);
    expect(broken.runs).toHaveLength(3); // 1 + default maxRetries 2
    expect(failed).toMatchObject({ status: 'failed', attempts: 3, error: { error_code: 'TOOL_ERROR' } });
    expect(s.recorder.starts.map((e) => e.attempt)).toEqual([1, 2, 3]);

    const once = scripted(
      'once',
      'NONE',
      () => {
        throw new Error('x');
      },
      { maxRetries: 0 },
    );
    const o = setup([once.declaration]);
    await o.executor.execute(o.call('once'), o.ctx);
    expect(once.runs).toHaveLength(1);
  });

  it('a ToolFailure keeps its code and suggestion, and is retried only when retryable', async () => {
    const fatal = scripted('q', 'NONE', () => {
      throw new ToolFailure('DB_TIMEOUT', 'query took over 3 s', { suggestion: 'add LIMIT 10' });
    });
    const { executor, ctx, call } = setup([fatal.declaration]);
    const settled = await executor.execute(call('q'), ctx);
    expect(fatal.runs).toHaveLength(1);
    expect(settled.error).toEqual({ failed_tool: 'q', error_code: 'DB_TIMEOUT', error_message: 'query took over 3 s', suggestion: 'add LIMIT 10' });

    const retryable = scripted('r', 'NONE', (_a, _c, run) => {
      if (run === 1) throw new ToolFailure('BUSY', 'busy', { retryable: true });
      return 'ok now';
    });
    const s = setup([retryable.declaration]);
    expect(await s.executor.execute(s.call('r'), s.ctx)).toMatchObject({ status: 'ok', attempts: 2 });
  });

  it('IDEMPOTENT retries reuse the same idempotency key', async () => {
    const t = scripted('set_avatar', 'IDEMPOTENT', (_a, _c, run) => {
      if (run < 3) throw new Error('network');
      return 'set';
    });
    const { executor, ctx, call, recorder } = setup([t.declaration]);
    const settled = await executor.execute(call('set_avatar', {}, 'toolu_42'), ctx);
    expect(settled).toMatchObject({ status: 'ok', attempts: 3 });
    const keys = t.runs.map((r) => r.ctx.idempotencyKey);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toContain('toolu_42');
    expect(t.runs.map((r) => r.ctx.attempt)).toEqual([1, 2, 3]);
    expect(recorder.starts.map((s) => s.idempotencyKey)).toEqual(keys);
  });

  it('waits the configured backoff between retries, on the context clock', async () => {
    const t = scripted('lookup', 'NONE', (_a, _c, run) => {
      if (run === 1) throw new Error('flake');
      return 'found';
    });
    const { executor, ctx, call, clock } = setup([t.declaration], { retryBackoffMs: 500 });
    const pending = executor.execute(call('lookup'), ctx);
    await flush();
    expect(t.runs).toHaveLength(1);
    await clock.advance(500);
    expect(await pending).toMatchObject({ status: 'ok', attempts: 2 });
  });
});

describe('tool pipeline: abort between retries', () => {
  it('an abort during the backoff stops retrying and reports the last attempt truthfully', async () => {
    const t = scripted('lookup', 'NONE', () => {
      throw new Error('flake');
    });
    const { executor, ctx, call, controller } = setup([t.declaration], { retryBackoffMs: 500 });
    const pending = executor.execute(call('lookup'), ctx);
    await flush();
    controller.abort();
    const settled = await settledNow(pending);
    expect(t.runs).toHaveLength(1);
    expect(settled).toMatchObject({ status: 'failed', attempts: 1, error: { error_code: 'TOOL_ERROR' } });
  });
});

describe('tool pipeline: around stage — timeout, abort, persistence', () => {
  it('a timeout settles unknown (may have run), even though the tool never resolves, and aborts its signal', async () => {
    const t = scripted('hang', 'STATEFUL', () => new Promise(() => {}), { timeoutMs: 5_000 });
    const { executor, ctx, call, clock } = setup([t.declaration]);
    const pending = executor.execute(call('hang'), ctx);
    await flush();
    expect(t.runs).toHaveLength(1);
    await clock.advance(5_000);
    const settled = await settledNow(pending);
    expect(settled).toMatchObject({ status: 'unknown', attempts: 1, durationMs: 5_000, error: { error_code: 'TIMEOUT' } });
    expect(settled.error!.error_message).toMatch(/may have run/);
    expect(settled.error!.suggestion).toMatch(/Do not retry blindly/);
    expect(t.runs[0]!.ctx.signal.aborted).toBe(true);
    expect(t.runs).toHaveLength(1); // STATEFUL: not retried after a timeout
  });

  it('uses the default timeout when the tool declares none, and NONE tools retry timeouts', async () => {
    const t = scripted('slow', 'NONE', () => new Promise(() => {}));
    const { executor, ctx, call, clock } = setup([t.declaration], { defaultTimeoutMs: 100, defaultMaxRetries: 1 });
    const pending = executor.execute(call('slow'), ctx);
    await flush();
    await clock.advance(100);
    await flush();
    expect(t.runs).toHaveLength(2);
    await clock.advance(100);
    expect(await pending).toMatchObject({ status: 'unknown', attempts: 2, error: { error_code: 'TIMEOUT' } });
  });

  it('an abort reaches the running tool and settles unknown INTERRUPTED, even if the tool ignores it', async () => {
    const t = scripted('hang', 'NONE', () => new Promise(() => {}));
    const { executor, ctx, call, controller, clock, tracer, root } = setup([t.declaration]);
    const pending = executor.execute(call('hang'), ctx);
    await flush();
    const toolSignal = t.runs[0]!.ctx.signal;
    expect(toolSignal.aborted).toBe(false);
    controller.abort('user pressed stop');
    const settled = await settledNow(pending);
    expect(toolSignal.aborted).toBe(true);
    expect(toolSignal.reason).toBe('user pressed stop');
    expect(settled).toMatchObject({ status: 'unknown', attempts: 1, error: { error_code: 'INTERRUPTED' } });
    expect(settled.error!.error_message).toMatch(/may have run/);
    expect(settled.error!.error_code).not.toBe('DENIED');
    expect(t.runs).toHaveLength(1); // an abort is never retried
    expect(clock.pendingTimers).toBe(0); // the timeout timer was released
    root.end('cancelled');
    expect(tracer.end().spans.find((s) => s.kind === 'tool')).toMatchObject({ status: 'cancelled', attributes: { errorCode: 'INTERRUPTED' } });
  });

  it('if the start cannot be recorded the tool does not run (NOT_RECORDED, attempts 0)', async () => {
    const t = scripted('create_order', 'STATEFUL', () => 'created');
    const { executor, ctx, call, recorder } = setup([t.declaration]);
    recorder.failStarted = new Error(`disk full at /var/db (key ${SECRET})`);
    const settled = await executor.execute(call('create_order'), ctx);
    expect(t.runs).toHaveLength(0);
    expect(settled).toMatchObject({ status: 'failed', attempts: 0, error: { error_code: 'NOT_RECORDED' } });
    expect(settled.content).not.toContain(SECRET);
    // Nothing ran, so the call id is free once persistence works again.
    recorder.failStarted = undefined;
    expect((await executor.execute(call('create_order'), ctx)).status).toBe('ok');
    expect(t.runs).toHaveLength(1);
  });

  it('never rejects: a throwing recorder becomes a settled failure, and the tool does not run', async () => {
    const t = scripted('a', 'NONE', () => 1);
    const { executor, ctx, call } = setup([t.declaration]);
    const throwing = {
      ...ctx.recorder,
      policy: () => {
        throw new Error('log closed');
      },
    };
    const settled = await executor.execute(call('a'), { ...ctx, recorder: throwing });
    expect(settled).toMatchObject({ status: 'failed', attempts: 0, error: { error_code: 'INTERNAL_ERROR' } });
    expect(t.runs).toHaveLength(0);
  });
});

describe('tool pipeline: after stage', () => {
  it('output that does not match the declared output fails INVALID_OUTPUT', async () => {
    const t = scripted('q', 'NONE', () => ({ rows: 'not a number' }), { output: z.object({ rows: z.number() }) });
    const { executor, ctx, call } = setup([t.declaration]);
    const settled = await executor.execute(call('q'), ctx);
    expect(settled).toMatchObject({ status: 'failed', attempts: 1, error: { error_code: 'INVALID_OUTPUT' } });
    expect(settled.error!.error_message).toContain('rows: expected number, received string');
    expect(t.runs).toHaveLength(1); // not retried
  });

  it('output that is not JSON data fails INVALID_OUTPUT rather than breaking the log', async () => {
    const t = scripted('q', 'NONE', () => ({ n: 10n }));
    const { executor, ctx, call } = setup([t.declaration]);
    expect(await executor.execute(call('q'), ctx)).toMatchObject({ status: 'failed', error: { error_code: 'INVALID_OUTPUT' } });
  });

  it('redacts secrets in content, kept output, started args, error messages and spans', async () => {
    const leak = scripted('leak', 'NONE', () => ({ config: { apiKey: SECRET, other: `Bearer ${'a'.repeat(30)}` } }));
    const thrower = scripted(
      'thrower',
      'NONE',
      () => {
        throw new Error(`connect failed with password ${SECRET}`);
      },
      { maxRetries: 0 },
    );
    const { executor, ctx, call, recorder, tracer, root } = setup([leak.declaration, thrower.declaration]);
    const ok = await executor.execute(call('leak', { note: SECRET }, 'c1'), ctx);
    expect(ok.status).toBe('ok');
    expect(ok.content).not.toContain(SECRET);
    expect(ok.content).not.toContain('a'.repeat(30));
    expect(ok.output).toEqual({ config: { apiKey: '[REDACTED]', other: '[REDACTED]' } });
    expect(JSON.stringify(recorder.starts)).not.toContain(SECRET);
    const failed = await executor.execute(call('thrower', {}, 'c2'), ctx);
    expect(JSON.stringify(failed)).not.toContain(SECRET);
    expect(failed.error!.error_message).toContain('[REDACTED]');
    root.end('ok');
    expect(JSON.stringify(tracer.end())).not.toContain(SECRET);
  });

  it('truncates the text the model reads, says so, and keeps the full output', async () => {
    const big = 'x'.repeat(5_000);
    const t = scripted('dump', 'NONE', () => ({ data: big }));
    const { executor, ctx, call } = setup([t.declaration], { maxOutputChars: 1_000 });
    const settled = await executor.execute(call('dump'), ctx);
    const full = JSON.stringify({ data: big });
    expect(settled.status).toBe('ok');
    expect(settled.truncatedFrom).toBe(full.length);
    expect(settled.content.startsWith(full.slice(0, 1_000))).toBe(true);
    expect(settled.content).toMatch(/truncated: showing the first 1000 of 5011 characters; 4011 characters were cut\. The full output is kept in the log/);
    expect(settled.content.length).toBeLessThan(1_200);
    expect(settled.output).toEqual({ data: big });
  });
});

describe('tool pipeline: construction', () => {
  it('refuses bad options with the option name', () => {
    const registry = new ToolRegistry([]);
    expect(() => createToolExecutor({ registry, maxOutputChars: 0 })).toThrow(/maxOutputChars/);
    expect(() => createToolExecutor({ registry, defaultTimeoutMs: -1 })).toThrow(/defaultTimeoutMs/);
    expect(() => createToolExecutor({ registry, defaultMaxRetries: 1.5 })).toThrow(/defaultMaxRetries/);
    expect(() => createToolExecutor({ registry, policy: { rules: [{ id: '', decision: 'deny' }] } })).toThrow(/policy rule/);
  });

  it('every settled result is plain log data', async () => {
    const t = scripted(
      'x',
      'NONE',
      () => {
        throw new Error('e');
      },
      { maxRetries: 0 },
    );
    const { executor, ctx, call } = setup([t.declaration]);
    const results: SettledToolCall[] = [
      await executor.execute(call('x', {}, 'a'), ctx),
      await executor.execute(call('missing', {}, 'b'), ctx),
      await executor.execute(call('x', { id: 5 }, 'c'), ctx),
    ];
    for (const r of results) expect(() => toFrozenPlainData(r)).not.toThrow();
  });
});

describe('tool pipeline: a call id the model repeated (ctx.repeatOf)', () => {
  it('a STATEFUL repeat of a call that started is not run: ALREADY_STARTED, with what is known of the first', async () => {
    const t = scripted('refund', 'STATEFUL', () => 'refunded');
    const { executor, ctx, call, recorder } = setup([t.declaration]);
    expect(await executor.execute(call('refund', {}, 'r'), ctx)).toMatchObject({ status: 'ok' });
    const described = { ...recorder, describe: (id: string) => `refund ${id} was called; its result was ok: refunded` };
    const repeat = await executor.execute(call('refund', {}, 'r_2'), { ...ctx, recorder: described, repeatOf: 'r' });
    expect(repeat).toMatchObject({ status: 'unknown', attempts: 0, error: { error_code: 'ALREADY_STARTED' } });
    expect(repeat.error!.error_message).toMatch(
      /repeats the id of call r \(it was renamed r_2\).*What is known of call r: refund r was called; its result was ok: refunded/,
    );
    expect(t.runs).toHaveLength(1);
  });

  it('a repeat of a call that never started runs, with the first call’s idempotency key; so does an IDEMPOTENT repeat', async () => {
    const refund = scripted('refund', 'STATEFUL', () => 'refunded');
    const note = scripted('note', 'IDEMPOTENT', () => 'noted');
    const { executor, ctx, call } = setup([refund.declaration, note.declaration]);
    await executor.execute(call('refund', {}, 'r_2'), { ...ctx, repeatOf: 'r' });
    await executor.execute(call('note', {}, 'n'), ctx);
    await executor.execute(call('note', {}, 'n_2'), { ...ctx, repeatOf: 'n' });
    expect(refund.runs.map((r) => r.ctx.idempotencyKey)).toEqual(['refund:r']);
    expect(note.runs.map((r) => r.ctx.idempotencyKey)).toEqual(['note:n', 'note:n']);
  });
});

describe('tool pipeline: a copy of a call checked while the first one’s start record is on its way', () => {
  // A ledger as the loop's log keeps it: a refused start record still counts until the call's result is recorded, and a
  // repeat's start counts for its whole chain. The store refuses the first start (asynchronously); the next is taken at once.
  function ledgerRecorder(base: ReturnType<typeof setup>['recorder']) {
    const ledger = new Set<string>();
    let refuseNext = true;
    return {
      ...base,
      started(entry: { callId: string }) {
        ledger.add(entry.callId);
        if (entry.callId.includes('_')) ledger.add(entry.callId.split('_')[0]!);
        if (!refuseNext) return undefined;
        refuseNext = false;
        return Promise.reject(new Error('the store refused the write'));
      },
      alreadyStarted: (callId: string) => ledger.has(callId),
    };
  }

  it('waits for it: refused, the copy runs once; a later copy of the chain is refused ALREADY_STARTED, never run again', async () => {
    const t = scripted('hold', 'CRITICAL', () => 'held', { parallelSafe: true });
    const { executor, ctx, call, recorder } = setup([t.declaration]);
    const withLedger = { ...ctx, recorder: ledgerRecorder(recorder) as typeof recorder };
    const [first, copy] = await Promise.all([
      executor.execute(call('hold', {}, 'h'), withLedger),
      executor.execute(call('hold', {}, 'h_2'), { ...withLedger, repeatOf: 'h' }),
    ]);
    expect(first).toMatchObject({ status: 'failed', error: { error_code: 'NOT_RECORDED' } });
    expect(copy).toMatchObject({ status: 'ok' });
    // The chain did start (h_2's record was taken at once): a third copy must not run it again.
    const third = await executor.execute(call('hold', {}, 'h_3'), { ...withLedger, repeatOf: 'h' });
    expect(third).toMatchObject({ status: 'unknown', error: { error_code: 'ALREADY_STARTED' } });
    expect(t.runs).toHaveLength(1);
  });
});

describe('tool pipeline: arguments are data whatever their keys or depth', () => {
  it('keeps __proto__ and constructor as plain keys, assigning no prototype (the schema decides what the tool gets)', async () => {
    const t = scripted('echo', 'NONE', (args) => args, { input: z.looseObject({}) });
    const { executor, ctx, call, recorder } = setup([t.declaration]);
    const args = JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}},"note":"hi"}');
    const settled = await executor.execute(call('echo', args), ctx);
    expect(settled.status).toBe('ok');
    const received = t.runs[0]!.args as Record<string, unknown>;
    expect(Object.getPrototypeOf(received)).toBe(Object.prototype);
    // zod passes unknown keys through but leaves `__proto__` out; `constructor` is data like any key.
    expect(Object.keys(received)).toEqual(['constructor', 'note']);
    expect(received.constructor).toEqual({ prototype: { x: 1 } });
    expect(Object.keys(recorder.starts[0]!.args as object)).toEqual(['constructor', 'note']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses arguments nested deeper than the limit with INVALID_ARGUMENTS naming it, also as raw text thousands of levels deep', async () => {
    const t = scripted('echo', 'NONE', () => 'ok', { input: z.looseObject({}) });
    const { executor, ctx, call } = setup([t.declaration]);
    let deep: unknown = 1;
    for (let i = 0; i < MAX_ARGUMENT_DEPTH; i++) deep = { a: deep };
    expect(await executor.execute(call('echo', deep), ctx)).toMatchObject({ status: 'ok' });
    for (const args of [{ a: deep }, `${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`]) {
      const settled = await executor.execute(call('echo', args), ctx);
      expect(settled).toMatchObject({ status: 'failed', attempts: 0, error: { error_code: 'INVALID_ARGUMENTS' } });
      expect(settled.error!.error_message).toContain(`deeper than ${MAX_ARGUMENT_DEPTH} levels`);
    }
    expect(t.runs).toHaveLength(1);
  });
});

describe('tool pipeline: settled at once when nothing waits (executeNow)', () => {
  /** A recorder that records synchronously (no write-ahead to wait for), as the loop's journal does for NONE tools. */
  function syncRecorder(base: ReturnType<typeof setup>['recorder']) {
    return {
      ...base,
      policy: base.policy.bind(base),
      started: (entry: Parameters<typeof base.started>[0]) => {
        base.starts.push(entry);
      },
      alreadyStarted: base.alreadyStarted.bind(base),
    };
  }

  it('a tool that returns synchronously settles without a promise, records in order', () => {
    const t = scripted('lookup', 'NONE', () => ({ found: true }));
    const { executor, ctx, call, recorder, tracer } = setup([t.declaration]);
    const settled = executor.executeNow!(call('lookup', { id: 'a' }), { ...ctx, recorder: syncRecorder(recorder) });
    expect(settled).not.toBeInstanceOf(Promise);
    expect(settled).toMatchObject({ status: 'ok', attempts: 1, content: '{"found":true}' });
    expect(recorder.policies).toHaveLength(1);
    expect(recorder.starts).toHaveLength(1);
    expect(tracer.snapshot().filter((s) => s.kind === 'tool')[0]).toMatchObject({ status: 'ok' });
    expect(t.runs[0]!.ctx.signal.aborted).toBe(false);
  });

  it('a tool whose run sets off the cancel settles INTERRUPTED, as if the abort had been seen first', () => {
    const controller = new AbortController();
    const t = scripted('refund', 'NONE', () => {
      controller.abort('stop');
      return { refunded: true };
    });
    const { executor, ctx, call, recorder } = setup([t.declaration]);
    const settled = executor.executeNow!(call('refund'), { ...ctx, signal: controller.signal, recorder: syncRecorder(recorder) });
    expect(settled).toMatchObject({ status: 'unknown', error: { error_code: 'INTERRUPTED' } });
    expect(t.runs[0]!.ctx.signal.aborted).toBe(true);
    expect(t.runs[0]!.ctx.signal.reason).toBe('stop');
  });

  it('a write-ahead recorder (a promise) or an asynchronous tool makes it a promise, settled the same', async () => {
    const sync = scripted('lookup', 'NONE', () => 'x');
    const slow = scripted('later', 'NONE', async () => 'y');
    const { executor, ctx, call } = setup([sync.declaration, slow.declaration]);
    const viaPromise = executor.executeNow!(call('lookup'), ctx); // memoryRecorder.started is async
    expect(viaPromise).toBeInstanceOf(Promise);
    expect(await viaPromise).toMatchObject({ status: 'ok', content: 'x' });
    const asyncTool = executor.executeNow!(call('later', {}, 'call-2'), ctx);
    expect(asyncTool).toBeInstanceOf(Promise);
    expect(await asyncTool).toMatchObject({ status: 'ok', content: 'y' });
  });

  it('a spread context keeps the signal', () => {
    let seen: AbortSignal | undefined;
    const t = scripted('spread', 'NONE', (_a, c) => {
      seen = { ...c }.signal;
      return 'ok';
    });
    const { executor, ctx, call, recorder } = setup([t.declaration]);
    executor.executeNow!(call('spread'), { ...ctx, recorder: syncRecorder(recorder) });
    expect(seen).toBeInstanceOf(AbortSignal);
  });
});
