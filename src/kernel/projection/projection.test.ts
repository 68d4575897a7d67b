import { describe, expect, it } from 'vitest';
import { EventLog } from '../log/event-log.ts';
import type { Outcome } from '../outcome.ts';
import { checkToolPairing } from './invariants/tool-pairing.ts';
import { ProjectionCache, project, SUMMARY_PREFIX } from './projection.ts';

/** A tiny writer of well-formed conversations, straight onto the log. */
class Conversation {
  readonly log = new EventLog({ now: () => 0 });
  #turn = -1;
  #ids = 0;
  user(text: string, intent: 'follow_up' | 'steer' | 'inject' = 'follow_up'): string {
    const id = `m${this.#ids++}`;
    this.log.append('inbox.received', { id, intent, text, source: 'user' });
    return id;
  }
  open(...ids: string[]): void {
    this.#turn++;
    this.log.append('turn.opened', { turn: this.#turn, trigger: ids[0] ?? '' });
    for (const id of ids) this.take(id);
  }
  take(id: string): void {
    const received = this.log.events.find((e) => e.type === 'inbox.received' && (e.payload as { id: string }).id === id)!;
    const p = received.payload as { text: string; intent: 'follow_up' };
    this.log.append('user.message', { turn: this.#turn, id, intent: p.intent, text: p.text });
  }
  delta(text: string): void {
    this.log.append('model.delta', { turn: this.#turn, step: 1, attempt: 1, delta: { kind: 'text', text } });
  }
  say(text: string): void {
    this.log.append('assistant.message', { turn: this.#turn, step: 1, content: [{ type: 'text', text }] });
  }
  call(ids: string[], text = ''): void {
    const content = [
      ...ids.map((id) => ({ type: 'tool_call' as const, id, name: 'lookup', args: { id } })),
      ...(text ? [{ type: 'text' as const, text }] : []), // text after calls: must be moved before them
    ];
    this.log.append('assistant.message', { turn: this.#turn, step: 1, content });
  }
  result(callId: string, content = `result of ${callId}`, status: 'ok' | 'failed' | 'unknown' = 'ok'): void {
    this.log.append('tool.result', { turn: this.#turn, step: 1, callId, name: 'lookup', status, content, durationMs: 1, attempts: 1 });
  }
  close(outcome: Outcome = { kind: 'replied' }): void {
    this.log.append('turn.closed', { turn: this.#turn, outcome, steps: 1, usage: { inputTokens: 0, outputTokens: 0 }, toolCalls: 0 });
  }
  /** A replied turn: question, one tool round, answer. */
  exchange(question: string, answer: string): void {
    const id = this.user(question);
    this.open(id);
    const callId = `c${this.#ids++}`;
    this.call([callId]);
    this.result(callId);
    this.say(answer);
    this.close();
  }
}

const texts = (messages: ReturnType<typeof project>) =>
  messages.map(
    (m) => `${m.role}: ${m.content.map((b) => (b.type === 'text' ? b.text : b.type === 'tool_call' ? `call(${b.id})` : `result(${b.callId})`)).join(' | ')}`,
  );

describe('projection: messages from the log', () => {
  it('projects user messages, assistant messages and tool results; never deltas or bookkeeping', () => {
    const c = new Conversation();
    const id = c.user('where is my order?');
    c.open(id);
    c.delta('Let me ');
    c.delta('check.');
    c.call(['c1'], 'Let me check.');
    c.result('c1');
    c.say('It ships today.');
    c.close();
    expect(texts(project(c.log.events))).toEqual([
      'user: where is my order?',
      'assistant: Let me check. | call(c1)', // text after a call is moved before it (invariant 6)
      'user: result(c1)',
      'assistant: It ships today.',
    ]);
  });

  it('puts parallel results in call order, whatever order they settled in (invariant 6)', () => {
    const c = new Conversation();
    c.open(c.user('q'));
    c.call(['a', 'b', 'c']);
    c.result('c');
    c.result('a');
    c.result('b');
    c.say('done');
    c.close();
    const messages = project(c.log.events);
    expect(texts(messages)[2]).toBe('user: result(a) | result(b) | result(c)');
    expect(checkToolPairing(messages)).toBeUndefined();
  });

  it('puts a steer taken after tool results in the same user message, after the results', () => {
    const c = new Conversation();
    c.open(c.user('q'));
    c.call(['a']);
    c.result('a');
    c.take(c.user('actually, use the other order', 'steer'));
    c.say('ok');
    c.close();
    expect(texts(project(c.log.events))[2]).toBe('user: result(a) | actually, use the other order');
  });

  it('a failed turn adds nothing to the projection, and its events stay in the log (invariant 5)', () => {
    const c = new Conversation();
    c.exchange('first', 'answer one');
    const before = project(c.log.events);
    const lengthBefore = c.log.length;
    c.open(c.user('second'));
    c.call(['x']);
    c.result('x');
    c.close({ kind: 'failed', reason: 'max_steps' });
    expect(project(c.log.events)).toEqual(before);
    expect(c.log.length).toBeGreaterThan(lengthBefore + 4); // the failed turn is still there to audit
    expect(c.log.events.some((e) => e.type === 'tool.result' && (e.payload as { callId: string }).callId === 'x')).toBe(true);
  });

  it('while a turn is open its messages are projected (the model must see its own step results)', () => {
    const c = new Conversation();
    c.open(c.user('q'));
    c.call(['x']);
    c.result('x');
    expect(texts(project(c.log.events))).toEqual(['user: q', 'assistant: call(x)', 'user: result(x)']);
  });

  it('a cancelled turn keeps its completed steps with a notice; messages taken after them are not projected', () => {
    const c = new Conversation();
    c.open(c.user('refund my order'));
    c.call(['r1']);
    c.result('r1', 'Interrupted: may or may not have run', 'unknown');
    c.take(c.user('and add a note', 'steer')); // taken for the next step, never reached the model
    c.close({ kind: 'cancelled', by: 'user' });
    const lines = texts(project(c.log.events));
    expect(lines.slice(0, 2)).toEqual(['user: refund my order', 'assistant: call(r1)']);
    expect(lines[2]).toMatch(/^user: result\(r1\) \| \[This turn was cancelled by the user before it finished\./);
    expect(lines.join('\n')).not.toContain('and add a note');
    expect(checkToolPairing(project(c.log.events))).toBeUndefined();
  });

  it('a turn cancelled before the model answered contributes nothing', () => {
    const c = new Conversation();
    c.exchange('first', 'one');
    const before = project(c.log.events);
    c.open(c.user('second'));
    c.close({ kind: 'cancelled', by: 'shutdown' });
    expect(project(c.log.events)).toEqual(before);
  });

  it('compaction replaces a range by a summary; the originals stay and restoring brings them back', () => {
    const c = new Conversation();
    c.exchange('first', 'one');
    c.exchange('second', 'two');
    const full = project(c.log.events);
    const lastClose = c.log.length - 1;
    const replaced = c.log.append(
      'projection.replaced',
      { from: 2, to: lastClose, summary: 'asked twice, answered twice', tokensBefore: 100, tokensAfter: 10 },
      { sources: [2, lastClose] },
    );
    // seq 0 and 1 are the two inbox.received events; turn 0 opens at seq 2
    const compacted = project(c.log.events);
    expect(texts(compacted)).toEqual([`user: ${SUMMARY_PREFIX}asked twice, answered twice`]);
    c.exchange('third', 'three');
    expect(texts(project(c.log.events))[0]).toBe(`user: ${SUMMARY_PREFIX}asked twice, answered twice | third`);
    c.log.append('projection.restored', { replacement: replaced.seq });
    expect(texts(project(c.log.events)).slice(0, full.length)).toEqual(texts(full));
  });
});

describe('re-compaction', () => {
  it('a newer summary of the same range replaces the older one', () => {
    const c = new Conversation();
    c.exchange('first', 'one');
    const to = c.log.length - 1;
    c.log.append('projection.replaced', { from: 1, to, summary: 'long summary of the first exchange', tokensBefore: 50, tokensAfter: 20 });
    c.log.append('projection.replaced', { from: 1, to, summary: 'short', tokensBefore: 20, tokensAfter: 5 });
    expect(texts(project(c.log.events))).toEqual([`user: ${SUMMARY_PREFIX}short`]);
  });
});

describe('ProjectionCache: incremental, keyed by the replace generation', () => {
  it('equals the pure projection after every append, across a compaction and a failed turn', () => {
    const c = new Conversation();
    const cache = new ProjectionCache(c.log);
    const check = () => expect(cache.current()).toEqual(project(c.log.events));
    c.exchange('a', 'A');
    check();
    c.open(c.user('b'));
    check();
    c.call(['k1', 'k2']);
    c.result('k2');
    check();
    c.result('k1');
    check();
    c.close({ kind: 'failed', reason: 'refusal' });
    check();
    c.exchange('c', 'C');
    c.log.append('projection.replaced', { from: 1, to: 6, summary: 'S', tokensBefore: 9, tokensAfter: 1 });
    check();
    c.exchange('d', 'D');
    check();
  });

  it('its pairing check equals checkToolPairing of the projection after every append', () => {
    const c = new Conversation();
    const cache = new ProjectionCache(c.log);
    const seen: (string | undefined)[] = [];
    c.log.subscribe(() => {
      const incremental = cache.pairingViolation();
      expect(incremental).toEqual(checkToolPairing(cache.current()));
      seen.push(incremental?.problem);
    });
    c.exchange('a', 'A');
    c.open(c.user('b'));
    c.call(['k1', 'k2']); // calls waiting: a violation at the tail
    c.result('k2'); // results out of order
    c.result('k1');
    c.close({ kind: 'failed', reason: 'refusal' }); // the turn's messages are removed again
    c.exchange('c', 'C');
    const replaced = c.log.append('projection.replaced', { from: 1, to: 6, summary: 'S', tokensBefore: 9, tokensAfter: 1 }).seq;
    c.open(c.user('d'));
    c.call(['k3']);
    c.say('no result came'); // an assistant message right after an unanswered call
    c.result('k3'); // too late: it has nowhere to go
    c.say('still');
    c.close({ kind: 'replied' });
    c.log.append('projection.restored', { replacement: replaced });
    c.exchange('e', 'E');
    c.open(c.user('f'));
    c.call(['k9']);
    c.result('k9');
    c.close({ kind: 'cancelled', by: 'user' }); // ends with a notice: a trailing user message
    c.open(c.user('g')); // joins that trailing message
    c.close({ kind: 'failed', reason: 'internal' }); // and is taken out of it again
    c.exchange('h', 'H');
    expect(seen).toContain('tool calls k1, k2 have no result');
    expect(seen.some((p) => p?.includes('do not match'))).toBe(true);
    expect(seen).toContain('tool calls k3 have no result before the next assistant message');
    expect(seen.filter((p) => p === undefined).length).toBeGreaterThan(10);
  });

  it('its pairing check looks at what changed, not the whole history (counted, not timed)', () => {
    const c = new Conversation();
    const cache = new ProjectionCache(c.log);
    const perExchange: number[] = [];
    for (let step = 0; step < 500; step++) {
      const before = cache.pairingLooks;
      c.exchange(`question ${step}`, `answer ${step}`);
      expect(cache.pairingViolation()).toBeUndefined();
      perExchange.push(cache.pairingLooks - before);
    }
    // An exchange adds a user message, a call, its result and the answer: the check
    // resumes at the first of them whatever came before.
    expect(new Set(perExchange.slice(1))).toEqual(new Set([perExchange[1]]));
    expect(perExchange[1]).toBeLessThanOrEqual(4);
  });

  it('touches only new events per step: a 1,000-step conversation stays flat (counted, not timed)', () => {
    const c = new Conversation();
    const cache = new ProjectionCache(c.log);
    const perStep: number[] = [];
    for (let step = 0; step < 1_000; step++) {
      const before = cache.eventsTouched;
      c.exchange(`question ${step}`, `answer ${step}`);
      cache.current();
      perStep.push(cache.eventsTouched - before);
    }
    // Every exchange appends the same number of events; the cache folds exactly those.
    const eventsPerExchange = 7;
    expect(new Set(perStep)).toEqual(new Set([eventsPerExchange]));
    expect(cache.eventsTouched).toBe(c.log.length);
  });
});

describe('checkToolPairing: the gate before every request (invariant 6)', () => {
  const call = (id: string) => ({ type: 'tool_call' as const, id, name: 't', args: {} });
  const result = (callId: string) => ({ type: 'tool_result' as const, callId, status: 'ok' as const, content: '' });
  const text = (t: string) => ({ type: 'text' as const, text: t });

  it('accepts well-paired history', () => {
    expect(
      checkToolPairing([
        { role: 'user', content: [text('q')] },
        { role: 'assistant', content: [text('x'), call('a'), call('b')] },
        { role: 'user', content: [result('a'), result('b'), text('more')] },
      ]),
    ).toBeUndefined();
  });
  it('finds a call without a result', () => {
    expect(
      checkToolPairing([
        { role: 'assistant', content: [call('a'), call('b')] },
        { role: 'user', content: [result('a')] },
      ])?.problem,
    ).toMatch(/do not match/);
    expect(checkToolPairing([{ role: 'assistant', content: [call('a')] }])?.problem).toMatch(/have no result/);
  });
  it('finds results out of order, orphans, text after a call, and results after text', () => {
    expect(
      checkToolPairing([
        { role: 'assistant', content: [call('a'), call('b')] },
        { role: 'user', content: [result('b'), result('a')] },
      ]),
    ).toBeDefined();
    expect(checkToolPairing([{ role: 'user', content: [result('z')] }])).toBeDefined();
    expect(
      checkToolPairing([
        { role: 'assistant', content: [call('a'), text('after')] },
        { role: 'user', content: [result('a')] },
      ])?.problem,
    ).toMatch(/text after a tool call/);
    expect(
      checkToolPairing([
        { role: 'assistant', content: [call('a')] },
        { role: 'user', content: [text('t'), result('a')] },
      ])?.problem,
    ).toMatch(/after text/);
  });
});
