import { describe, expect, it } from 'vitest';
import { createRedactor } from '../redact/index.ts';
import { EventLog } from './event-log.ts';
import { LogAppendError } from './errors.ts';

const clock = { now: () => 1_000 };
const newLog = () => new EventLog(clock);

function expectRejected(fn: () => unknown, field: string, reason: RegExp): void {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(LogAppendError);
  expect((caught as LogAppendError).field).toBe(field);
  expect((caught as LogAppendError).reason).toMatch(reason);
}

const inbox = (text: unknown) => ({ id: 'm1', intent: 'follow_up', text, source: 'user' }) as never;

describe('EventLog.append: the single validated entry point (invariant 2)', () => {
  it('assigns gapless seqs from 0 and records type, version, time and ignorable', () => {
    const log = newLog();
    const a = log.append('inbox.received', { id: 'a', intent: 'follow_up', text: 'hi', source: 'user' });
    const b = log.append('model.delta', { turn: 0, step: 1, attempt: 1, delta: { kind: 'text', text: 'x' } });
    expect([a.seq, b.seq]).toEqual([0, 1]);
    expect(a).toMatchObject({ type: 'inbox.received', v: 1, at: 1_000, ignorable: false });
    expect(b.ignorable).toBe(true); // deltas are for people; older readers may skip them
    expect(log.length).toBe(2);
  });

  describe('rejects payloads that are not plain JSON data, naming the field', () => {
    it('a function', () =>
      expectRejected(
        () =>
          newLog().append(
            'inbox.received',
            inbox(() => 1),
          ),
        'inbox.received.payload.text',
        /function/,
      ));
    it('undefined', () => expectRejected(() => newLog().append('inbox.received', inbox(undefined)), 'inbox.received.payload.text', /undefined/));
    it('NaN', () => expectRejected(() => newLog().append('inbox.received', inbox(Number.NaN)), 'inbox.received.payload.text', /NaN/));
    it('Infinity', () => expectRejected(() => newLog().append('inbox.received', inbox(Infinity)), 'inbox.received.payload.text', /Infinity/));
    it('BigInt', () => expectRejected(() => newLog().append('inbox.received', inbox(10n)), 'inbox.received.payload.text', /BigInt/));
    it('a symbol', () => expectRejected(() => newLog().append('inbox.received', inbox(Symbol('s'))), 'inbox.received.payload.text', /symbol/));
    it('a class instance (Date)', () =>
      expectRejected(() => newLog().append('inbox.received', inbox(new Date())), 'inbox.received.payload.text', /instance of Date/));
    it('a class instance (Map)', () =>
      expectRejected(() => newLog().append('inbox.received', inbox(new Map())), 'inbox.received.payload.text', /instance of Map/));
    it('a user class instance, deep inside', () => {
      class Order {
        id = 1;
      }
      expectRejected(
        () => newLog().append('tools.declared', { tools: [{ name: 't', description: 'd', inputSchema: { nested: [new Order()] } }] }),
        'tools.declared.payload.tools[0].inputSchema.nested[0]',
        /instance of Order/,
      );
    });
    it('a cycle', () => {
      const schema: Record<string, unknown> = { type: 'object' };
      schema.self = schema;
      expectRejected(
        () => newLog().append('tools.declared', { tools: [{ name: 't', description: 'd', inputSchema: schema }] }),
        'tools.declared.payload.tools[0].inputSchema.self',
        /cycle/,
      );
    });
    it('an array with holes', () => {
      // eslint-disable-next-line no-sparse-arrays
      const holes = [1, , 3];
      expectRejected(
        () => newLog().append('tools.declared', { tools: [{ name: 't', description: 'd', inputSchema: { holes } }] }),
        'tools.declared.payload.tools[0].inputSchema.holes',
        /holes/,
      );
    });
    it('leaves the log unchanged when it rejects', () => {
      const log = newLog();
      expect(() =>
        log.append(
          'inbox.received',
          inbox(() => 1),
        ),
      ).toThrow(LogAppendError);
      expect(log.length).toBe(0);
      expect(log.append('inbox.received', { id: 'm', intent: 'follow_up', text: 'ok', source: 'user' }).seq).toBe(0);
    });
  });

  it('validates and stores in one pass: a getter is read once, and what validation saw is what is stored', () => {
    let reads = 0;
    const payload = {
      id: 'm1',
      intent: 'follow_up',
      source: 'user',
      get text(): unknown {
        reads++;
        return reads === 1 ? 'valid text' : () => 'a function on the second read';
      },
    };
    const event = newLog().append('inbox.received', payload as never);
    expect(reads).toBe(1);
    expect(event.payload.text).toBe('valid text');
  });

  it('stores a frozen copy: neither the stored event nor the caller can change history', () => {
    const log = newLog();
    const args = { order: { id: 'A1', items: ['x'] } };
    log.append('inbox.received', { id: 'm1', intent: 'follow_up', text: 't', source: 'user' });
    log.append('turn.opened', { turn: 0, trigger: 'm1' });
    const event = log.append('assistant.message', { turn: 0, step: 1, content: [{ type: 'tool_call', id: 'c1', name: 'lookup', args }] });
    args.order.items.push('mutated by caller');
    const stored = event.payload.content[0] as { args: { order: { items: string[] } } };
    expect(stored.args.order.items).toEqual(['x']);
    expect(Object.isFrozen(event)).toBe(true);
    expect(Object.isFrozen(event.payload)).toBe(true);
    expect(Object.isFrozen(stored.args.order.items)).toBe(true);
    expect(() => stored.args.order.items.push('y')).toThrow(TypeError);
    expect(() => {
      (event as { seq: number }).seq = 99;
    }).toThrow(TypeError);
  });

  it('rejects an append made from inside an append listener, and keeps the outer one', () => {
    const log = newLog();
    let inner: unknown;
    log.subscribe(() => {
      try {
        log.append('inbox.received', { id: 'nested', intent: 'inject', text: 'x', source: 'listener' });
      } catch (error) {
        inner = error;
      }
    });
    const outer = log.append('inbox.received', { id: 'outer', intent: 'follow_up', text: 'x', source: 'user' });
    expect(inner).toBeInstanceOf(LogAppendError);
    expect((inner as LogAppendError).reason).toMatch(/re-entrant append/);
    expect(outer.seq).toBe(0);
    expect(log.length).toBe(1);
  });

  it('contains a listener that throws: the append returns its stored event, the others still hear it, and the failure is recorded', () => {
    const log = newLog();
    const heard: number[] = [];
    log.subscribe(() => {
      throw new Error('listener bug');
    });
    log.subscribe((e) => heard.push(e.seq));
    const event = log.append('inbox.received', { id: 'm', intent: 'follow_up', text: 'x', source: 'user' });
    expect(event.seq).toBe(0);
    expect(heard).toEqual([0, 1]);
    expect(log.events.map((e) => e.type)).toEqual(['inbox.received', 'log.listener_failed']);
    expect(log.at(1)!.payload).toEqual({ seq: 0, error: 'Error: listener bug' });
    expect(log.at(1)!.ignorable).toBe(true);
    // The failure event's own listener failure is not recorded again: the log does not grow without end.
    expect(log.length).toBe(2);
  });

  it('redacts every string of every payload, keys too, with the redactor it was given (or one the loop installs)', () => {
    const secret = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';
    const redact = createRedactor({ secrets: [secret] });
    const log = new EventLog(clock, [], { redact });
    const event = log.append('model.delta', {
      turn: 0,
      step: 1,
      attempt: 1,
      // An own `__proto__` key, as JSON.parse makes it (in a literal it would set the prototype).
      delta: JSON.parse(JSON.stringify({ [secret]: [`key ${secret}`, { deep: secret }] }).replace(/}$/, `,"__proto__":{"x":"${secret}"}}`)),
    });
    expect(JSON.stringify(event.payload)).not.toContain(secret);
    const args = event.payload.delta;
    expect(Object.keys(args)).toEqual(['[REDACTED]', '__proto__']);
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    const plain = newLog();
    plain.redactWith(redact);
    plain.redactWith(createRedactor()); // the first one set stays
    expect(plain.append('inbox.received', { id: 'm', intent: 'follow_up', text: `my key ${secret}`, source: 'user' }).payload.text).toBe('my key [REDACTED]');
  });

  describe('rejects positions that do not exist', () => {
    it('sources beyond the log', () => {
      const log = newLog();
      log.append('inbox.received', { id: 'm', intent: 'follow_up', text: 'x', source: 'user' });
      expectRejected(
        () => log.append('inbox.received', { id: 'n', intent: 'follow_up', text: 'x', source: 'user' }, { sources: [0, 5] }),
        'inbox.received.sources[1]',
        /seq 5 does not exist/,
      );
    });
    it('a replaced range ending beyond the log', () => {
      const log = newLog();
      log.append('inbox.received', { id: 'm', intent: 'follow_up', text: 'x', source: 'user' });
      expectRejected(
        () => log.append('projection.replaced', { from: 0, to: 7, summary: 's', tokensBefore: 1, tokensAfter: 0 }),
        'projection.replaced.payload.to',
        /seq 7 does not exist/,
      );
    });
    it('an empty replaced range', () => {
      const log = newLog();
      log.append('inbox.received', { id: 'm', intent: 'follow_up', text: 'x', source: 'user' });
      log.append('inbox.received', { id: 'n', intent: 'follow_up', text: 'x', source: 'user' });
      expectRejected(
        () => log.append('projection.replaced', { from: 1, to: 0, summary: 's', tokensBefore: 1, tokensAfter: 0 }),
        'projection.replaced.payload.from',
        /empty/,
      );
    });
    it('restoring something that is not a compaction', () => {
      const log = newLog();
      log.append('inbox.received', { id: 'm', intent: 'follow_up', text: 'x', source: 'user' });
      expectRejected(() => log.append('projection.restored', { replacement: 0 }), 'projection.restored.payload.replacement', /not a projection.replaced/);
    });
    it('a tool result without its call', () => {
      const log = newLog();
      expectRejected(
        () => log.append('tool.result', { turn: 0, step: 1, callId: 'ghost', name: 't', status: 'ok', content: '', durationMs: 0, attempts: 1 }),
        'tool.result.payload.callId',
        /no tool call "ghost"/,
      );
    });
    it('a second result for one call', () => {
      const log = newLog();
      log.append('inbox.received', { id: 'm', intent: 'follow_up', text: 'x', source: 'user' });
      log.append('turn.opened', { turn: 0, trigger: 'm' });
      log.append('assistant.message', { turn: 0, step: 1, content: [{ type: 'tool_call', id: 'c1', name: 't', args: {} }] });
      const result = { turn: 0, step: 1, callId: 'c1', name: 't', status: 'ok' as const, content: '', durationMs: 0, attempts: 1 };
      log.append('tool.result', result);
      expectRejected(() => log.append('tool.result', result), 'tool.result.payload.callId', /already has a result/);
    });
    it('taking an inbox message twice (never delivered twice)', () => {
      const log = newLog();
      log.append('inbox.received', { id: 'm', intent: 'follow_up', text: 'x', source: 'user' });
      log.append('turn.opened', { turn: 0, trigger: 'm' });
      log.append('user.message', { turn: 0, id: 'm', intent: 'follow_up', text: 'x' });
      expectRejected(() => log.append('user.message', { turn: 0, id: 'm', intent: 'follow_up', text: 'x' }), 'user.message.payload.id', /already taken/);
    });
    it('closing a turn twice, or one that is not open', () => {
      const log = newLog();
      const closed = { turn: 0, outcome: { kind: 'replied' as const }, steps: 1, usage: { inputTokens: 0, outputTokens: 0 }, toolCalls: 0 };
      expectRejected(() => log.append('turn.closed', closed), 'turn.closed.payload.turn', /no turn is open/);
      log.append('inbox.received', { id: 'm', intent: 'follow_up', text: 'x', source: 'user' });
      log.append('turn.opened', { turn: 0, trigger: 'm' });
      log.append('turn.closed', closed);
      expectRejected(() => log.append('turn.closed', closed), 'turn.closed.payload.turn', /no turn is open/);
    });
  });
});

describe('positions: a start the store refused is taken back by its result (probe 6, finding 3)', () => {
  function startedThenSettled(result: { status: 'ok' | 'failed' | 'unknown'; attempts: number; code?: string }) {
    const log = newLog();
    log.append('inbox.received', { id: 'm', intent: 'follow_up', text: 'x', source: 'user' });
    log.append('turn.opened', { turn: 0, trigger: 'm' });
    log.append('assistant.message', { turn: 0, step: 1, content: [{ type: 'tool_call', id: 'c1', name: 't', args: {} }] });
    log.append('tool.started', { turn: 0, step: 1, callId: 'c1', name: 't', args: {}, sideEffect: 'STATEFUL', attempt: 1 });
    log.append('assistant.message', { turn: 0, step: 2, content: [{ type: 'tool_call', id: 'c1_2', name: 't', args: {}, repeatOf: 'c1' }] });
    log.append('tool.started', { turn: 0, step: 2, callId: 'c1_2', name: 't', args: {}, sideEffect: 'STATEFUL', attempt: 1 });
    expect(log.positions.call('c1')).toMatchObject({ started: true, repeatStarted: true });
    const error = result.code ? { failed_tool: 't', error_code: result.code, error_message: 'm', suggestion: 's' } : undefined;
    log.append('tool.result', { turn: 0, step: 2, callId: 'c1_2', name: 't', content: '', durationMs: 0, ...result, ...(error ? { error } : {}) });
    return log;
  }
  it('failed / NOT_RECORDED after 0 attempts: neither the call nor its chain counts as started, also in a snapshot', () => {
    const log = startedThenSettled({ status: 'failed', attempts: 0, code: 'NOT_RECORDED' });
    expect(log.positions.call('c1_2')?.started).toBe(false);
    expect(log.positions.call('c1')?.repeatStarted).toBe(false);
    expect(log.positions.call('c1')?.started).toBe(true); // the first call's own start stands
    const restored = JSON.parse(JSON.stringify(log.positions.state())) as ReturnType<typeof log.positions.state>;
    expect(restored.calls[2]).toEqual([true, false]);
  });
  it('a result after the call ran, or with another code, leaves the start standing', () => {
    for (const result of [
      { status: 'failed' as const, attempts: 1, code: 'NOT_RECORDED' },
      { status: 'failed' as const, attempts: 0, code: 'CANCELLED' },
      { status: 'unknown' as const, attempts: 0, code: 'NOT_RECORDED' },
      { status: 'ok' as const, attempts: 0 },
    ]) {
      const log = startedThenSettled(result);
      expect(log.positions.call('c1_2')?.started, JSON.stringify(result)).toBe(true);
      expect(log.positions.call('c1')?.repeatStarted).toBe(true);
    }
  });
});
