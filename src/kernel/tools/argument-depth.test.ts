import { describe, expect, it } from 'vitest';
import { MAX_ARGUMENT_DEPTH, nestedDeeperThan } from './argument-depth.ts';

function nest(levels: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i++) value = i % 2 ? { v: value } : [value];
  return value;
}

describe('nestedDeeperThan', () => {
  it('counts levels of objects and arrays, the value itself being level 1', () => {
    expect(nestedDeeperThan({ a: 1 })).toBe(false);
    expect(nestedDeeperThan(nest(MAX_ARGUMENT_DEPTH))).toBe(false);
    expect(nestedDeeperThan(nest(MAX_ARGUMENT_DEPTH + 1))).toBe(true);
    expect(nestedDeeperThan(nest(3), 2)).toBe(true);
    expect(nestedDeeperThan('text')).toBe(false);
  });

  it('a cycle is not depth', () => {
    const a: Record<string, unknown> = { x: 1 };
    a.self = a;
    expect(nestedDeeperThan(a)).toBe(false);
  });

  it('a shallow graph that shares its subtrees heavily is answered (no exponential walk: 2^60 paths)', () => {
    let level: unknown = { leaf: true };
    for (let i = 0; i < 60; i++) level = { left: level, right: level };
    expect(nestedDeeperThan(level)).toBe(false);
    expect(nestedDeeperThan({ deeper: level }, 40)).toBe(true);
  });
});
