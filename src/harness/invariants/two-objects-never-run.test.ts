import { describe, expect, it } from 'vitest';
import { objectsIn } from './two-objects-never-run.ts';

describe('two-objects-never-run: the objects it counts in argument text', () => {
  it('counts top-level objects in prose, not nested ones or braces inside strings', () => {
    expect(objectsIn('Refund {"amount": 50} - no, rather {"amount": 5}')).toBe(2);
    expect(objectsIn('{"a": 1}{"b": {"c": 2}}')).toBe(2);
    expect(objectsIn('Here: {"note": "use {x} and {y}"}')).toBe(1);
    expect(objectsIn('{"a": {"b": 1}, "c": {"d": 2}}')).toBe(0); // JSON as a whole: not ambiguous
    expect(objectsIn('{"a": 1} and {not json}')).toBe(1);
    expect(objectsIn('```json\n{"a": 1}\n```')).toBe(1);
  });
});
