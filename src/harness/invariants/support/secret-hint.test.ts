import { describe, expect, it } from 'vitest';
import { secretHint } from './secret-hint.ts';

describe('secretHint', () => {
  it('shows at most 4 characters and never more than a quarter, with the length', () => {
    expect(secretHint('Zq9w')).toBe('Z…, 4 characters');
    expect(secretHint('pin~7731')).toBe('pi…, 8 characters');
    expect(secretHint('sk_live_4eC39HqLyjWDarjtT1zdp7dc')).toBe('sk_l…, 32 characters');
  });

  it('never cuts a character in half', () => {
    const hint = secretHint('🔑🔑🔑🔑abcd'); // 12 UTF-16 units: a quarter is 3, the third a high surrogate
    expect(hint).toBe('🔑…, 12 characters');
    expect(hint.isWellFormed()).toBe(true);
  });
});
