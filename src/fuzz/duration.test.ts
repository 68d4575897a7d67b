import { describe, expect, it } from 'vitest';
import { parseDuration } from './duration.ts';

describe('parseDuration', () => {
  it('reads ms, s, m and h', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('1.5m')).toBe(90_000);
    expect(parseDuration(' 2h ')).toBe(7_200_000);
  });
  it('refuses what is not a positive duration with a unit', () => {
    for (const bad of ['30', 's', '0s', '-1s', '1 d', '5x', '']) expect(parseDuration(bad), bad).toBeUndefined();
  });
});
