import { describe, expect, it } from 'vitest';
import { truncateForModel } from './truncate.ts';

describe('truncateForModel', () => {
  it('leaves text within the limit alone', () => {
    expect(truncateForModel('abc', 3)).toEqual({ content: 'abc' });
  });

  it('cuts, announces how much was cut and where the rest is, and reports the full length', () => {
    const r = truncateForModel('abcdefghij', 4);
    expect(r.truncatedFrom).toBe(10);
    expect(r.content).toBe('abcd\n\n[output truncated: showing the first 4 of 10 characters; 6 characters were cut. The full output is kept in the log.]');
  });

  it('never splits a surrogate pair', () => {
    const r = truncateForModel('ab😀cd', 3);
    expect(r.content.startsWith('ab\n')).toBe(true);
    expect(r.content).toContain('showing the first 2 of 6');
  });
});
