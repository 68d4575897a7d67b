import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fragmentLength, longestFragment } from './secret-fragments-never-leave.ts';

const SECRET = 'dpl_tok_9f8e7d6c5b4a3f2e1d0c'; // 28 characters: a piece of 14 or more is a leak

describe('secret-fragments-never-leave: the pieces of a secret it looks for', () => {
  it('counts half the secret, at least 8 characters, and no piece of a secret of 8 or fewer', () => {
    expect(fragmentLength(SECRET)).toBe(14);
    expect(fragmentLength('orchard-FUZZ-7731-teal-quill-0042')).toBe(17);
    expect(fragmentLength('abcdefghij')).toBe(8);
    expect(fragmentLength('abcdefgh')).toBeUndefined();
    expect(fragmentLength('abcd')).toBeUndefined();
  });

  it('finds the head a cut kept, the tail a clip kept and a middle, as the longest piece', () => {
    expect(longestFragment(`…xxxx${SECRET.slice(0, 20)} [output truncated: …]`, SECRET)).toEqual([0, 20]);
    expect(longestFragment(`…${SECRET.slice(-15)}"}`, SECRET)).toEqual([13, 15]);
    expect(longestFragment(`(${SECRET.slice(3, 19)})`, SECRET)).toEqual([3, 16]);
    expect(longestFragment(`${SECRET.slice(0, 14)} and ${SECRET.slice(5, 25)}`, SECRET)).toEqual([5, 20]);
  });

  it('finds a piece JSON-escaped', () => {
    const secret = 'pass"word\\with-quotes-and-more';
    const json = JSON.stringify({ content: `cut here: ${secret.slice(0, 20)}` });
    expect(longestFragment(json, secret)).toEqual([0, 20]);
  });

  it('finds every piece at least as long as the threshold, at any place, escaped 0 to 3 times (the block pre-check loses none)', () => {
    const char = fc.constantFrom(...'abcXYZ019-_"\\/\n\t\u0001é€');
    fc.assert(
      fc.property(fc.array(char, { minLength: 9, maxLength: 60 }), fc.nat(), fc.nat(), fc.nat(3), (chars, a, b, times) => {
        const secret = chars.join('');
        const min = fragmentLength(secret)!;
        const length = min + (b % (secret.length - min));
        const start = a % (secret.length - length + 1);
        let text = `<<${secret.slice(start, start + length)}>>`;
        for (let i = 0; i < times; i++) text = JSON.stringify(text);
        const found = longestFragment(text, secret);
        expect(found).toBeDefined();
        expect(found![1]).toBeGreaterThanOrEqual(length);
      }),
      { seed: 7, numRuns: 300 },
    );
  });

  it('leaves a piece shorter than the threshold, a public prefix, the whole secret and the redacted text alone', () => {
    expect(longestFragment(`tokens look like dpl_tok_… ${SECRET.slice(0, 13)}`, SECRET)).toBeUndefined();
    expect(longestFragment(`before ${SECRET} after`, SECRET)).toBeUndefined(); // invariant 15's
    expect(longestFragment('token=[REDACTED] ok', SECRET)).toBeUndefined();
  });
});
