import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import { defineTool } from './define-tool.ts';
import { ToolDeclarationError, ToolRegistry } from './registry.ts';
import type { AnyToolDeclaration } from './types.ts';

const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather for a city.',
  input: z.object({ city: z.string(), units: z.enum(['c', 'f']).default('c') }),
  output: z.object({ tempC: z.number() }),
  sideEffect: 'NONE',
  run: (args) => ({ tempC: args.city.length }),
});

function tool(overrides: Partial<AnyToolDeclaration>): AnyToolDeclaration {
  return { ...weather, ...overrides } as AnyToolDeclaration;
}

describe('defineTool', () => {
  it('returns the declaration itself', () => {
    const decl = { name: 'x', description: 'd', input: z.object({}), sideEffect: 'NONE' as const, run: () => 1 };
    expect(defineTool(decl)).toBe(decl);
  });
});

describe('ToolRegistry', () => {
  it('keeps declarations in order and computes an object JSON Schema for providers', () => {
    const registry = new ToolRegistry([weather, tool({ name: 'other' })]);
    expect(registry.names()).toEqual(['get_weather', 'other']);
    const spec = registry.get('get_weather')!.spec;
    expect(spec.name).toBe('get_weather');
    expect(spec.description).toBe('Current weather for a city.');
    expect(spec.inputSchema).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string' }, units: { enum: ['c', 'f'] } },
      required: ['city'], // input side: a defaulted field is optional for the model
    });
    expect(spec.inputSchema).not.toHaveProperty('$schema');
    expect(Object.isFrozen(spec.inputSchema)).toBe(true);
  });

  it('computes the schema once per tool', () => {
    const registry = new ToolRegistry([weather]);
    expect(registry.get('get_weather')!.spec).toBe(registry.get('get_weather')!.spec);
  });

  it('refuses a duplicate name, naming it', () => {
    expect(() => new ToolRegistry([weather, tool({ description: 'again' })])).toThrow(ToolDeclarationError);
    expect(() => new ToolRegistry([weather, tool({ name: 'other' }), tool({ description: 'again' })])).toThrow(
      /"get_weather": declared twice \(tools\[0\] and tools\[2\]\); tool names must be unique: rename or remove one/,
    );
  });

  it('refuses bad declarations with the tool name and the problem', () => {
    const cases: [Partial<AnyToolDeclaration>, RegExp][] = [
      [{ name: 'has space' }, /"has space".*name must be/],
      [{ description: ' ' }, /description is empty/],
      [{ sideEffect: 'MAYBE' as never }, /sideEffect must be one of/],
      [{ run: undefined as never }, /run must be a function/],
      [{ timeoutMs: 0 }, /timeoutMs must be a positive/],
      [{ maxRetries: -1 }, /maxRetries must be a non-negative integer/],
      [{ sideEffect: 'STATEFUL', maxRetries: 1 }, /STATEFUL.*never retried automatically/],
      [{ sideEffect: 'CRITICAL', maxRetries: 3 }, /CRITICAL.*never retried automatically/],
      [{ input: { parse: () => 1 } as never }, /input must be a zod schema/],
      [{ input: undefined as never }, /input is missing: declare the arguments as a zod schema/],
      [{ input: z3.object({ n: z3.number() }) as never }, /input is a zod 3 schema: loopgate needs zod 4 \(import \{ z \} from 'zod' with zod@4\)/],
      [{ output: z3.string() as never }, /output is a zod 3 schema: loopgate needs zod 4/],
      [{ input: z.string() as never }, /must describe an object/],
      [{ input: z.object({ when: z.date() }) as never }, /cannot be expressed as JSON Schema/],
    ];
    for (const [overrides, message] of cases) {
      expect(() => new ToolRegistry([tool(overrides)]), String(message)).toThrow(message);
    }
  });

  it('accepts maxRetries 0 on a STATEFUL tool', () => {
    expect(() => new ToolRegistry([tool({ sideEffect: 'STATEFUL', maxRetries: 0 })])).not.toThrow();
  });
});

describe('input schemas that change what they validate (probe 6, finding 5)', () => {
  const declare = (input: z.ZodType) => new ToolRegistry([{ name: 't', description: 'd', input, sideEffect: 'NONE', run: () => 1 } as AnyToolDeclaration]);
  it('a transform anywhere the parsed value comes from is refused, naming where', () => {
    expect(() => declare(z.object({ a: z.optional(z.union([z.number(), z.string().transform((s) => s.length)])) }))).toThrow(
      /^tool "t": input schema changes the arguments it validates \(a \.transform\(\) at a\)/,
    );
    expect(() => declare(z.object({ m: z.record(z.string(), z.string().transform(Number)) }))).toThrow(/a \.transform\(\) at m\[\*\]/);
    expect(() => declare(z.object({ a: z.string() }).transform((o) => o.a))).toThrow(/a \.transform\(\) at the top level/);
  });
  it('a recursive schema without transforms is accepted (the walk ends), one with a transform deep inside refused', () => {
    type Node = { name: string; children: Node[] };
    const node: z.ZodType<Node> = z.lazy(() => z.object({ name: z.string(), children: z.array(node) }));
    expect(() => declare(z.object({ root: node }))).not.toThrow();
    const deep: z.ZodType = z.lazy(() => z.object({ name: z.string().transform((s) => s.trim()), children: z.array(deep) }));
    expect(() => declare(z.object({ root: deep }))).toThrow(/a \.transform\(\) at root\.name/);
  });
});
