import { describe, expect, it } from 'vitest';
import type { Message } from '../../../kernel/index.ts';
import { checkToolPairing } from '../../../kernel/index.ts';
import { referencePairing } from './reference-pairing.ts';

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const calls = (...ids: string[]): Message => ({ role: 'assistant', content: ids.map((id) => ({ type: 'tool_call', id, name: 't', args: {} })) });
const results = (...ids: string[]): Message => ({ role: 'user', content: ids.map((callId) => ({ type: 'tool_result', callId, status: 'ok', content: 'x' })) });

describe('referencePairing (invariant 6, apart from the kernel)', () => {
  const cases: [string, Message[], boolean][] = [
    ['paired', [user('q'), calls('a', 'b'), results('a', 'b'), { role: 'assistant', content: [{ type: 'text', text: 'done' }] }], true],
    ['the second of two calls unanswered in the next message', [user('q'), calls('a', 'b'), results('a')], false],
    ['results out of order', [user('q'), calls('a', 'b'), results('b', 'a')], false],
    ['a result without its call', [user('q'), results('a')], false],
    [
      'text after a call',
      [
        user('q'),
        {
          role: 'assistant',
          content: [
            { type: 'tool_call', id: 'a', name: 't', args: {} },
            { type: 'text', text: 'x' },
          ],
        },
      ],
      false,
    ],
    ['a call never answered', [user('q'), calls('a')], false],
  ];
  it.each(cases)('%s', (_name, messages, paired) => {
    expect(referencePairing(messages) === undefined).toBe(paired);
    // The kernel's own check agrees on each of them (the reference is a second reading, not another rule).
    expect(checkToolPairing(messages) === undefined).toBe(paired);
  });
});

describe("referencePairing in any order (a peer's, read from outside: providers take a step's results in any order)", () => {
  it('takes the results of a step in another order, still one each', () => {
    expect(referencePairing([user('q'), calls('a', 'b'), results('b', 'a')], undefined, 'any order')).toBeUndefined();
    expect(referencePairing([user('q'), calls('a', 'b'), results('b', 'b')], undefined, 'any order')?.problem).toBe(
      'tool results [b, b] do not answer the calls [a, b] one each',
    );
    expect(referencePairing([user('q'), calls('a', 'b'), results('b')], undefined, 'any order')).toBeDefined();
    expect(referencePairing([user('q'), calls('a'), results('a', 'c')], undefined, 'any order')).toBeDefined();
  });
});

describe('referencePairing with calls left open (a turn an unreadable store keeps open)', () => {
  it('accepts only the named calls, and only at the end', () => {
    expect(referencePairing([user('q'), calls('a')], new Set(['a']))).toBeUndefined();
    expect(referencePairing([user('q'), calls('a', 'b')], new Set(['a']))?.problem).toBe('tool calls b have no result');
    expect(referencePairing([user('q'), calls('a'), calls('b')], new Set(['a', 'b']))?.problem).toBe(
      'tool calls a have no result before the next assistant message',
    );
  });
});

describe('referencePairing with a call id used twice (outside probe 28, F3: a history glue copying a turn twice)', () => {
  it('refuses an id repeated in a later assistant message, or in the same one, however each is answered', () => {
    expect(referencePairing([user('q'), calls('a'), results('a'), calls('a'), results('a')])?.problem).toBe(
      'tool call id a is used again (a provider refuses a request that repeats a call id)',
    );
    expect(referencePairing([user('q'), calls('a', 'a'), results('a', 'a')])?.messageIndex).toBe(1);
    expect(referencePairing([user('q'), calls('a'), results('a'), calls('b'), results('b')])).toBeUndefined();
  });
});
