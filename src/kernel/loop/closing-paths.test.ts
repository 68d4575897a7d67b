/**
 * Every way a turn can close (invariant 4), each checked three ways: the outcome,
 * the projected history, and the trace's shape (seed 004 rule 5).
 */
import { describe, expect, it } from 'vitest';
import { call, maxTokens, overflow, refusal, reply, toolUse, transportError, unknownStop } from '../../../providers/fake/results.ts';
import { SupportBackend } from '../../../scenarios/example-agent/backend.ts';
import { supportTools } from '../../../scenarios/example-agent/tools.ts';
import { createWorld, renderMessages, spanShape, type World } from '../../../test/support/world.ts';
import { outcomeLabel } from '../outcome.ts';

function closedExactlyOnce(world: World): void {
  const opened = world.eventsOf('turn.opened').length;
  const closed = world.eventsOf('turn.closed').length;
  expect(closed).toBe(opened);
  expect(world.log.positions.openTurn).toBeUndefined();
}

function tools() {
  const backend = new SupportBackend();
  return { backend, tools: supportTools(backend) };
}

describe('closing paths: outcome, history and trace together', () => {
  it('replied — after a tool round', async () => {
    const { backend, tools: t } = tools();
    const world = createWorld({ tools: t, script: [toolUse([call('c1', 'lookup_order', { order_id: 'ORD-1001' })]), reply('Your kettle was delivered.')] });
    const result = await world.turn('Where is ORD-1001?');
    expect(outcomeLabel(result.outcome)).toBe('replied');
    expect(result.reply).toBe('Your kettle was delivered.');
    expect(renderMessages(world.projection())).toEqual([
      'user: Where is ORD-1001?',
      'assistant: call lookup_order#c1 {"order_id":"ORD-1001"}',
      expect.stringMatching(/^user: result#c1 ok: .*"status":"delivered"/),
      'assistant: Your kettle was delivered.',
    ]);
    expect(spanShape(result.trace)).toEqual(['turn:ok', 'turn > model_call:ok', 'turn > tool:ok', 'turn > tool > policy:ok', 'turn > model_call:ok']);
    expect(result.trace.spans[0]!.attributes.outcome).toBe('replied');
    expect(backend.executed('lookup_order')).toBe(1);
    closedExactlyOnce(world);
  });

  const failures: [string, Parameters<typeof createWorld>[0], RegExp | string][] = [
    ['failed{refusal}', { script: [refusal('I cannot help with that.')] }, 'cannot help'],
    ['failed{max_tokens}', { script: [maxTokens('The answer is')] }, 'output limit reached'],
    ['failed{unknown_stop_reason}', { script: [unknownStop('pause_turn')] }, 'pause_turn'],
    ['failed{empty_reply}', { script: [reply('')] }, 'no text'],
    ['failed{auth}', { script: [transportError('auth', { status: 401 })] }, 'auth'],
    ['failed{invalid_request}', { script: [transportError('invalid_request', { status: 400 })] }, 'invalid'],
  ];
  for (const [label, options, detail] of failures) {
    it(`${label} — adds nothing to the history`, async () => {
      const world = createWorld(options);
      const result = await world.turn('hello');
      expect(outcomeLabel(result.outcome)).toBe(label);
      expect(result.outcome.kind === 'failed' && result.outcome.detail).toMatch(detail);
      expect(world.projection()).toEqual([]);
      expect(world.eventsOf('user.message')).toHaveLength(1); // still in the log, for audit
      // The call completed (ok) when the model answered, even with nothing; the turn span never errors.
      const call = label === 'failed{empty_reply}' ? 'ok' : 'error';
      expect(spanShape(result.trace)).toEqual(['turn:ok', `turn > model_call:${call}`]);
      expect(result.trace.spans[0]!.attributes.outcome).toBe(label);
      closedExactlyOnce(world);
    });
  }

  it('failed{max_tokens} in the middle of a tool call — the partial call never runs', async () => {
    const { backend, tools: t } = tools();
    const world = createWorld({ tools: t, script: [maxTokens('', true)] });
    const result = await world.turn('refund ORD-1001');
    expect(outcomeLabel(result.outcome)).toBe('failed{max_tokens}');
    expect(result.outcome.kind === 'failed' && result.outcome.detail).toMatch(/partial call was not run/);
    expect(backend.executions.size).toBe(0);
    expect(world.eventsOf('tool.started')).toHaveLength(0);
    expect(world.projection()).toEqual([]);
    closedExactlyOnce(world);
  });

  it('failed{max_steps} — the step limit is checked before tools run (invariant 11)', async () => {
    const { backend, tools: t } = tools();
    const world = createWorld({
      tools: t,
      config: { maxSteps: 2 },
      script: [
        toolUse([call('a', 'lookup_order', { order_id: 'ORD-1001' })]),
        toolUse([call('b', 'issue_refund', { order_id: 'ORD-1001', amount: 10, reason: 'late' })]),
      ],
    });
    const result = await world.turn('refund me');
    expect(outcomeLabel(result.outcome)).toBe('failed{max_steps}');
    expect(backend.executed('lookup_order')).toBe(1);
    expect(backend.executed('issue_refund')).toBe(0); // the model could never have seen its result
    const refundResult = world.eventsOf('tool.result').find((e) => e.payload.callId === 'b')!;
    expect(refundResult.payload).toMatchObject({ status: 'failed', attempts: 0, error: { error_code: 'NOT_RUN' } });
    expect(world.projection()).toEqual([]);
    expect(spanShape(result.trace)).toEqual(['turn:ok', 'turn > model_call:ok', 'turn > tool:ok', 'turn > tool > policy:ok', 'turn > model_call:ok']);
    closedExactlyOnce(world);
  });

  it('failed{budget_exhausted} — tool calls per turn', async () => {
    const { backend, tools: t } = tools();
    const world = createWorld({
      tools: t,
      config: { maxToolCallsPerTurn: 2 },
      script: [
        toolUse([
          call('a', 'lookup_order', { order_id: 'ORD-1001' }),
          call('b', 'lookup_order', { order_id: 'ORD-1002' }),
          call('c', 'lookup_order', { order_id: 'ORD-1003' }),
        ]),
      ],
    });
    const result = await world.turn('check all my orders');
    expect(outcomeLabel(result.outcome)).toBe('failed{budget_exhausted}');
    expect(result.outcome.kind === 'failed' && result.outcome.detail).toMatch(/per turn \(2\)/);
    expect(backend.executed('lookup_order')).toBe(0);
    expect(world.projection()).toEqual([]);
    closedExactlyOnce(world);
  });

  it('failed{budget_exhausted} — tool calls per session, across turns', async () => {
    const { tools: t } = tools();
    const world = createWorld({
      tools: t,
      config: { maxToolCallsPerSession: 1 },
      script: [
        toolUse([call('a', 'lookup_order', { order_id: 'ORD-1001' })]),
        reply('delivered'),
        toolUse([call('b', 'lookup_order', { order_id: 'ORD-1002' })]),
      ],
    });
    expect(outcomeLabel((await world.turn('first')).outcome)).toBe('replied');
    const second = await world.turn('second');
    expect(outcomeLabel(second.outcome)).toBe('failed{budget_exhausted}');
    expect(second.outcome.kind === 'failed' && second.outcome.detail).toMatch(/per session \(1\)/);
    expect(renderMessages(world.projection())).toHaveLength(4); // only the first turn
  });

  it('failed{budget_exhausted} — tokens per turn, checked before the next request', async () => {
    const { tools: t } = tools();
    const world = createWorld({
      tools: t,
      config: { maxTokensPerTurn: 100 },
      script: [toolUse([call('a', 'lookup_order', { order_id: 'ORD-1001' })], '', { inputTokens: 90, outputTokens: 20 }), reply('never sent')],
    });
    const result = await world.turn('hi');
    expect(outcomeLabel(result.outcome)).toBe('failed{budget_exhausted}');
    expect(world.scripted!.requests).toHaveLength(1);
    expect(result.usage).toEqual({ inputTokens: 90, outputTokens: 20 });
  });

  it('failed{provider_unavailable} — after every retry tier is spent', async () => {
    const world = createWorld({ script: Array.from({ length: 5 }, () => transportError('server_error', { status: 500 })) });
    const result = await world.turn('hello');
    expect(outcomeLabel(result.outcome)).toBe('failed{provider_unavailable}');
    expect(world.scripted!.requests).toHaveLength(5); // 1 + 1 immediate + 3 backoff
    expect(world.projection()).toEqual([]);
    expect(spanShape(result.trace).filter((s) => s.includes('model_call'))).toHaveLength(5);
    closedExactlyOnce(world);
  });

  it('failed{rate_limited} — 429s until the tiers are spent', async () => {
    const world = createWorld({ script: Array.from({ length: 5 }, () => transportError('rate_limited', { status: 429, retryAfterMs: 1_000 })) });
    const result = await world.turn('hello');
    expect(outcomeLabel(result.outcome)).toBe('failed{rate_limited}');
    closedExactlyOnce(world);
  });

  it('failed{persistence} — a store write failure stops the turn and is never swallowed', async () => {
    const world = createWorld({ script: [reply('hi'), reply('never')] });
    world.send('hello');
    // The claim flush succeeds; the flush after the model's reply fails.
    let appends = 0;
    const original = world.store.append.bind(world.store);
    world.store.append = async (id, records) => {
      appends++;
      if (appends === 2) throw new Error('disk full');
      return original(id, records);
    };
    const [result] = await world.drain();
    expect(outcomeLabel(result!.outcome)).toBe('failed{persistence}');
    expect(result!.outcome.kind === 'failed' && result!.outcome.detail).toMatch(/disk full/);
    expect(world.projection()).toEqual([]);
    closedExactlyOnce(world);
  });

  it('failed{persistence} — also when the step writes before it were done at once (WRITTEN)', async () => {
    const { backend, tools: t } = tools();
    const world = createWorld({ tools: t, script: [toolUse([call('c1', 'lookup_order', { order_id: 'ORD-1001' })]), reply('never')] });
    world.send('Where is ORD-1001?');
    // The claim and the tool call's write are done at once; the write of its result is refused.
    let appends = 0;
    const original = world.store.append.bind(world.store);
    world.store.append = (id, records) => {
      appends++;
      if (appends === 3) return Promise.reject(new Error('disk full'));
      return original(id, records);
    };
    const [result] = await world.drain();
    expect(outcomeLabel(result!.outcome)).toBe('failed{persistence}');
    expect(result!.outcome.kind === 'failed' && result!.outcome.detail).toMatch(/disk full/);
    expect(backend.executed('lookup_order')).toBe(1);
    expect(world.projection()).toEqual([]);
    closedExactlyOnce(world);
  });

  it('failed{internal} — an unexpected exception becomes an outcome, not a throw', async () => {
    // A client that reports NaN tokens breaks the log's plain-data rule: the append throws inside the turn.
    const failing = createWorld({
      script: [
        {
          result: {
            type: 'reply',
            text: 'x',
            content: [{ type: 'text', text: 'x' }],
            stopReason: 'end_turn',
            usage: { inputTokens: Number.NaN, outputTokens: 1 },
          },
        },
      ],
    });
    const result = await failing.turn('hello');
    expect(outcomeLabel(result.outcome)).toBe('failed{internal}');
    expect(result.outcome.kind === 'failed' && result.outcome.detail).toMatch(/NaN is not JSON data/);
    expect(failing.projection()).toEqual([]);
    closedExactlyOnce(failing);
  });

  it('conversation_full — overflow and no compaction that shrinks the history', async () => {
    const world = createWorld({ script: [overflow('request')] });
    const result = await world.turn('hello');
    expect(outcomeLabel(result.outcome)).toBe('conversation_full');
    expect(world.projection()).toEqual([]);
    expect(spanShape(result.trace)).toEqual(['turn:ok', 'turn > model_call:error', 'turn > compaction:error']);
    closedExactlyOnce(world);
  });

  it('rejected — the claim policy denies the first claim; no step runs', async () => {
    const world = createWorld({ script: [reply('never')], claim: { claim: () => ({ decision: 'deny', reason: 'account suspended' }) } });
    const result = await world.turn('refund everything');
    expect(result.outcome).toEqual({ kind: 'rejected', reason: 'account suspended' });
    expect(result.steps).toBe(0);
    expect(world.scripted!.requests).toHaveLength(0);
    expect(world.projection()).toEqual([]);
    expect(spanShape(result.trace)).toEqual(['turn:ok']);
    closedExactlyOnce(world);
  });

  it('nothing_to_do — the input filters to nothing', async () => {
    const world = createWorld({
      script: [reply('never')],
      claim: { claim: (messages) => ({ decision: 'allow', rewrite: new Map(messages.map((m) => [m.id, null])) }) },
    });
    const result = await world.turn('   ');
    expect(outcomeLabel(result.outcome)).toBe('nothing_to_do');
    expect(world.scripted!.requests).toHaveLength(0);
    expect(world.projection()).toEqual([]);
    expect(world.eventsOf('user.message')[0]!.payload).toMatchObject({ dropped: true });
    closedExactlyOnce(world);
  });

  for (const by of ['user', 'parent', 'shutdown'] as const) {
    it(`cancelled{${by}} — while the model is thinking; the message goes back to the inbox`, async () => {
      const parent = new AbortController();
      const shutdown = new AbortController();
      const world = createWorld({ script: [{ result: reply('too late'), latencyMs: 5_000 }], signals: { parent: parent.signal, shutdown: shutdown.signal } });
      const id = world.send('hello');
      // At virtual time 1 s, while the model (5 s) is still thinking:
      void world.clock.sleep(1_000).then(() => {
        if (by === 'user') world.loop.cancel('user', 'pressed stop');
        if (by === 'parent') parent.abort('parent task ended');
        if (by === 'shutdown') shutdown.abort('deploying');
      });
      const [result] = await world.drain();
      expect(result!.outcome).toEqual({ kind: 'cancelled', by });
      // A signal's cancel is recorded as the loop's own: who and why.
      const reason = { user: 'pressed stop', parent: 'parent task ended', shutdown: 'deploying' }[by];
      expect(world.eventsOf('cancel.requested').map((e) => e.payload)).toEqual([{ by, reason }]);
      expect(result!.returnedToInbox).toEqual([id]);
      expect(world.log.positions.inboxState(id)).toBe('pending'); // never lost
      expect(world.projection()).toEqual([]);
      expect(spanShape(result!.trace)).toEqual(['turn:ok', 'turn > model_call:cancelled']);
      closedExactlyOnce(world);
    });
  }

  it('cancelled — during a slow tool: the tool sees the abort, the call is closed unknown and the model will see it', async () => {
    let toolSignal: AbortSignal | undefined;
    const backend = new SupportBackend();
    const slow = supportTools(backend).map((t) =>
      t.name === 'issue_refund'
        ? {
            ...t,
            run: (_args: unknown, ctx: { signal: AbortSignal }) => {
              toolSignal = ctx.signal;
              backend.count('issue_refund');
              return new Promise(() => {}); // a tool that never settles on its own
            },
          }
        : t,
    );
    const world = createWorld({
      tools: slow,
      script: [toolUse([call('r1', 'issue_refund', { order_id: 'ORD-1001', amount: 20, reason: 'damaged' })]), reply('next turn')],
    });
    world.send('refund ORD-1001');
    let cancelled = false;
    void world.clock.sleep(1_000).then(() => (cancelled = world.loop.cancel('user', 'stop')));
    const [result] = await world.drain();
    expect(cancelled).toBe(true);
    expect(result!.outcome).toEqual({ kind: 'cancelled', by: 'user' });
    expect(toolSignal?.aborted).toBe(true);
    const refund = world.eventsOf('tool.result')[0]!.payload;
    expect(refund).toMatchObject({ callId: 'r1', status: 'unknown', error: { error_code: 'INTERRUPTED' } });
    const lines = renderMessages(world.projection());
    expect(lines[1]).toBe('assistant: call issue_refund#r1 {"order_id":"ORD-1001","amount":20,"reason":"damaged"}');
    expect(lines[2]).toMatch(/^user: result#r1 unknown: .*INTERRUPTED.*It may have run.*\| \[This turn was cancelled by the user/);
    expect(spanShape(result!.trace)).toEqual(['turn:ok', 'turn > model_call:ok', 'turn > tool:cancelled', 'turn > tool > policy:ok']);
    closedExactlyOnce(world);
  });
});
