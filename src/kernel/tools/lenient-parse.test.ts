import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { lenientParse } from './lenient-parse.ts';

describe('lenientParse', () => {
  it('passes already-parsed arguments through unchanged', () => {
    const args = { a: 1 };
    expect(lenientParse(args)).toEqual({ ok: true, value: args, repairs: [] });
  });

  it('treats an empty or whitespace string, and absent arguments, as {}', () => {
    expect(lenientParse('')).toMatchObject({ ok: true, value: {} });
    expect(lenientParse('  \n\t')).toMatchObject({ ok: true, value: {} });
    expect(lenientParse(undefined)).toMatchObject({ ok: true, value: {} });
  });

  it('uses rawArgs when args is absent', () => {
    expect(lenientParse(undefined, '{"x":2}')).toMatchObject({ ok: true, value: { x: 2 } });
  });

  it('parses valid JSON text', () => {
    expect(lenientParse('{"order_id":"ORD-1","amount":5}')).toEqual({ ok: true, value: { order_id: 'ORD-1', amount: 5 }, repairs: [] });
  });

  it('strips a markdown code fence', () => {
    const r = lenientParse('```json\n{"a": 1}\n```');
    expect(r).toEqual({ ok: true, value: { a: 1 }, repairs: ['code_fence'] });
    expect(lenientParse('```\n{"a": 1}\n```')).toMatchObject({ ok: true, value: { a: 1 } });
  });

  it('removes trailing commas, but not commas inside strings', () => {
    expect(lenientParse('{"a": [1, 2,], "b": "x,}",}')).toEqual({ ok: true, value: { a: [1, 2], b: 'x,}' }, repairs: ['trailing_comma'] });
  });

  it('extracts one JSON object embedded in prose', () => {
    const r = lenientParse('Sure! Here are the arguments: {"city": "Paris", "note": "a } in a string"} Hope that helps.');
    expect(r).toEqual({ ok: true, value: { city: 'Paris', note: 'a } in a string' }, repairs: ['embedded_object'] });
  });

  it('combines repairs: fence + trailing comma', () => {
    expect(lenientParse('```json\n{"a": 1,}\n```')).toEqual({ ok: true, value: { a: 1 }, repairs: ['code_fence', 'trailing_comma'] });
  });

  it('does not complete truncated JSON (a max_tokens cut must not run as a smaller call)', () => {
    const r = lenientParse('{"path": "a.txt", "content": "hello');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.raw).toBe('{"path": "a.txt", "content": "hello');
    expect(lenientParse('{"a": {"b": 1}, "c": 2').ok).toBe(false);
  });

  it('does not pull an inner object out of a truncated array or object', () => {
    expect(lenientParse('[{"a": 1}').ok).toBe(false);
    expect(lenientParse('{"outer": {"a": 1}').ok).toBe(false);
  });

  it('refuses to choose between several embedded objects', () => {
    const r = lenientParse('either {"a": 1} or {"a": 2}');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/2 separate JSON objects/);
  });

  it('returns natural language as a failure with the raw text', () => {
    const r = lenientParse('please look up the weather in Paris');
    expect(r).toMatchObject({ ok: false, raw: 'please look up the weather in Paris' });
    if (!r.ok) expect(r.reason).toMatch(/not valid JSON/);
  });

  it('does not repair a non-object top level: it is returned for strict validation to report', () => {
    expect(lenientParse('[1, 2]')).toMatchObject({ ok: true, value: [1, 2] });
    expect(lenientParse('42')).toMatchObject({ ok: true, value: 42 });
  });

  it('never throws, whatever the text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.anything()), (input) => {
        const r = lenientParse(input);
        expect(typeof r.ok).toBe('boolean');
      }),
      { numRuns: 500 },
    );
  });

  it('round-trips any JSON object text exactly', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (obj) => {
        const r = lenientParse(JSON.stringify(obj));
        expect(r).toEqual({ ok: true, value: JSON.parse(JSON.stringify(obj)), repairs: [] });
      }),
      { numRuns: 200 },
    );
  });
});
