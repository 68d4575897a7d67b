import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validateArgs } from './validate.ts';

const orderNote = z.object({
  order_id: z.string().regex(/^ORD-[0-9]+$/),
  amount: z.number(),
  note: z.string().max(10).optional(),
  lines: z.array(z.object({ sku: z.string() })).optional(),
});

describe('validateArgs', () => {
  it('returns the parsed arguments, deep-frozen', () => {
    const r = validateArgs('create_note', orderNote, { order_id: 'ORD-1', amount: 3, lines: [{ sku: 'a' }] });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.args).toEqual({ order_id: 'ORD-1', amount: 3, lines: [{ sku: 'a' }] });
    expect(Object.isFrozen(r.args)).toBe(true);
    const lines = (r.args as { lines: { sku: string }[] }).lines;
    expect(Object.isFrozen(lines)).toBe(true);
    expect(Object.isFrozen(lines[0])).toBe(true);
  });

  it('names each wrong field with what was expected and received', () => {
    const r = validateArgs('create_note', orderNote, { order_id: 42, amount: '5' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems).toEqual(['order_id: expected string, received number', 'amount: expected number, received string']);
    expect(r.error).toEqual({
      failed_tool: 'create_note',
      error_code: 'INVALID_ARGUMENTS',
      error_message: 'Invalid arguments for create_note: order_id: expected string, received number; amount: expected number, received string',
      suggestion: expect.stringContaining('create_note'),
    });
  });

  it('reports a missing required field as missing, not as "received undefined"', () => {
    const r = validateArgs('create_note', orderNote, { order_id: 'ORD-1' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems).toEqual(['missing required field "amount" (expected number)']);
  });

  it('gives nested paths, including array indexes', () => {
    const r = validateArgs('create_note', orderNote, { order_id: 'ORD-1', amount: 1, lines: [{ sku: 'a' }, {}] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems).toEqual(['missing required field "sku" in lines[1] (expected string)']);
  });

  it('passes format and size constraints through with the field name', () => {
    const r = validateArgs('create_note', orderNote, { order_id: 'X-1', amount: 1, note: 'far too long a note' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems[0]).toMatch(/^order_id: .*pattern/);
    expect(r.problems[1]).toMatch(/^note: .*10/);
  });

  it('reports a non-object top level against the arguments as a whole', () => {
    const r = validateArgs('create_note', orderNote, [1, 2]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems).toEqual(['arguments: expected object, received array']);
  });

  it('names unexpected fields when the schema is strict', () => {
    const r = validateArgs('t', z.object({ a: z.string() }).strict(), { a: 'x', b: 1 });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems).toEqual(['unexpected field "b"']);
  });

  it('lists the allowed types of a union', () => {
    const r = validateArgs('t', z.object({ id: z.union([z.string(), z.number()]) }), { id: true });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems).toEqual(['id: expected string | number, received boolean']);
  });
});
