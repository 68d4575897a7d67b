import { describe, expect, it } from 'vitest';
import { deepFreeze } from './deep-freeze.ts';

describe('deepFreeze', () => {
  it('freezes every object reachable through own data properties: string keys, symbol keys, non-enumerable ones, array items', () => {
    const sym = Symbol('s');
    const hidden = { deep: { x: 1 } };
    const value: Record<string | symbol, unknown> = { a: { b: [{ c: 1 }, [2]] }, [sym]: { d: {} } };
    Object.defineProperty(value, 'hidden', { value: hidden, enumerable: false });
    expect(deepFreeze(value)).toBe(value);
    const a = value.a as { b: [{ c: number }, number[]] };
    for (const o of [value, a, a.b, a.b[0], a.b[1], value[sym], (value[sym] as { d: object }).d, hidden, hidden.deep]) expect(Object.isFrozen(o)).toBe(true);
  });

  it('never calls an accessor, and leaves what only an accessor reaches unfrozen', () => {
    const behind = { y: 1 };
    let calls = 0;
    const value = {
      plain: { z: 1 },
      get viaGetter() {
        calls++;
        return behind;
      },
    };
    deepFreeze(value);
    expect(calls).toBe(0);
    expect(Object.isFrozen(value)).toBe(true);
    expect(Object.isFrozen(value.plain)).toBe(true);
    expect(Object.isFrozen(behind)).toBe(false);
  });

  it('handles cycles and shared objects, and leaves primitives as they are', () => {
    const shared = { s: 1 };
    const cyclic: Record<string, unknown> = { left: shared, right: shared };
    cyclic.self = cyclic;
    deepFreeze(cyclic);
    expect(Object.isFrozen(cyclic)).toBe(true);
    expect(Object.isFrozen(shared)).toBe(true);
    expect(deepFreeze(3)).toBe(3);
    expect(deepFreeze(null)).toBe(null);
  });
});
