/**
 * The tool registry: every declaration checked once, at construction, so a bad
 * declaration fails at startup with its name rather than mid-conversation. Names
 * are unique — a duplicate is refused, never "last one wins" (seed 000 §5). The
 * JSON Schema offered to providers is computed here, once per tool.
 */
import { z } from 'zod';
import type { JsonSchema, ToolSpec } from '../model/client.ts';
import { MAX_TIMEOUT_MS, TIMEOUT_TOO_LONG } from '../timer-wheel.ts';
import { inputTransform } from './schema-transforms.ts';
import type { AnyToolDeclaration, SideEffect } from './types.ts';

/** What Anthropic and OpenAI both accept as a tool name. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const SIDE_EFFECTS: readonly SideEffect[] = ['NONE', 'IDEMPOTENT', 'STATEFUL', 'CRITICAL'];

export class ToolDeclarationError extends Error {
  readonly tool: string;
  constructor(tool: string, message: string) {
    super(`tool "${tool}": ${message}`);
    this.name = 'ToolDeclarationError';
    this.tool = tool;
  }
}

export interface RegisteredTool {
  readonly declaration: AnyToolDeclaration;
  readonly spec: ToolSpec;
}

export class ToolRegistry {
  readonly #tools = new Map<string, RegisteredTool>();

  constructor(declarations: readonly AnyToolDeclaration[]) {
    const indexOf = new Map<string, number>();
    declarations.forEach((declaration, index) => {
      const name = nameOf(declaration, index);
      const [first] = declarationProblems(name, declaration);
      if (first !== undefined) throw new ToolDeclarationError(name, first);
      const duplicate = duplicateOf(name, index, indexOf);
      if (duplicate !== undefined) throw new ToolDeclarationError(name, duplicate);
      this.#tools.set(name, Object.freeze({ declaration, spec: toSpec(declaration) }));
    });
  }

  /** Names in declaration order. */
  names(): string[] {
    return [...this.#tools.keys()];
  }

  get(name: string): RegisteredTool | undefined {
    return this.#tools.get(name);
  }

  has(name: string): boolean {
    return this.#tools.has(name);
  }
}

/**
 * Every problem of every declaration, in declaration order, each tool's in the
 * order the registry checks them (what the constructor would refuse first is
 * first): for a config check that lists them all, one line each.
 */
export function toolDeclarationProblems(declarations: readonly AnyToolDeclaration[]): ToolDeclarationError[] {
  const errors: ToolDeclarationError[] = [];
  const indexOf = new Map<string, number>();
  declarations.forEach((declaration, index) => {
    const name = nameOf(declaration, index);
    const problems = declarationProblems(name, declaration);
    for (const problem of problems) errors.push(new ToolDeclarationError(name, problem));
    const duplicate = duplicateOf(name, index, indexOf);
    if (duplicate !== undefined) errors.push(new ToolDeclarationError(name, duplicate));
    if (problems.length > 0) return;
    try {
      toSpec(declaration);
    } catch (error) {
      if (error instanceof ToolDeclarationError) errors.push(error);
      else throw error;
    }
  });
  return errors;
}

function nameOf(declaration: AnyToolDeclaration, index: number): string {
  return typeof declaration?.name === 'string' ? declaration.name : `#${index}`;
}

/** Why `name` at `index` is a duplicate (remembering it when it is not). */
function duplicateOf(name: string, index: number, indexOf: Map<string, number>): string | undefined {
  const first = indexOf.get(name);
  if (first !== undefined) return `declared twice (tools[${first}] and tools[${index}]); tool names must be unique: rename or remove one`;
  indexOf.set(name, index);
  return undefined;
}

/** Every problem of one declaration, in the order they are checked (empty when none). */
function declarationProblems(name: string, d: AnyToolDeclaration): string[] {
  if (d === null || typeof d !== 'object') return ['declaration is not an object'];
  // A getter of the team's that throws (a lazily built schema) is a problem of the declaration, told in one line.
  try {
    return fieldProblems(d);
  } catch (error) {
    return [`reading its declaration threw: ${error instanceof Error ? error.message : String(error)}`];
  }
}

function fieldProblems(d: AnyToolDeclaration): string[] {
  const problems: string[] = [];
  if (typeof d.name !== 'string' || !TOOL_NAME.test(d.name)) {
    problems.push('name must be 1-64 characters of letters, digits, "_" or "-" (what providers accept)');
  }
  if (typeof d.description !== 'string' || d.description.trim() === '') {
    problems.push('description is empty; it is what the model reads to decide whether to call the tool');
  }
  if (d.input === undefined) problems.push('input is missing: declare the arguments as a zod schema, e.g. input: z.object({ … })');
  else if (!isZodSchema(d.input)) problems.push(`input ${notZod4(d.input)}`);
  if (d.output !== undefined && !isZodSchema(d.output)) problems.push(`output ${notZod4(d.output)} (or leave output out)`);
  if (!SIDE_EFFECTS.includes(d.sideEffect)) problems.push(`sideEffect must be one of ${SIDE_EFFECTS.join(', ')} (got ${JSON.stringify(d.sideEffect)})`);
  if (typeof d.run !== 'function') problems.push('run must be a function');
  if (d.timeoutMs !== undefined && !(Number.isFinite(d.timeoutMs) && d.timeoutMs > 0)) {
    problems.push(`timeoutMs must be a positive number of milliseconds (got ${String(d.timeoutMs)})`);
  } else if (d.timeoutMs !== undefined && d.timeoutMs > MAX_TIMEOUT_MS) {
    problems.push(`timeoutMs ${TIMEOUT_TOO_LONG} (got ${String(d.timeoutMs)})`);
  }
  if (d.maxRetries !== undefined) {
    if (!(Number.isInteger(d.maxRetries) && d.maxRetries >= 0)) {
      problems.push(`maxRetries must be a non-negative integer (got ${String(d.maxRetries)})`);
    } else if ((d.sideEffect === 'STATEFUL' || d.sideEffect === 'CRITICAL') && d.maxRetries > 0) {
      problems.push(`is ${d.sideEffect}: such tools are never retried automatically, so maxRetries must be 0 or absent`);
    }
  }
  for (const key of ['renderForModel', 'renderForPeople'] as const) {
    if (d[key] !== undefined && typeof d[key] !== 'function') problems.push(`${key} must be a function when given`);
  }
  return problems;
}

function isZodSchema(value: unknown): boolean {
  return value !== null && typeof value === 'object' && '_zod' in value && typeof (value as { safeParse?: unknown }).safeParse === 'function';
}

/** What a schema that is not a zod 4 schema is, and what to do instead. */
function notZod4(value: unknown): string {
  const zod3 = value !== null && typeof value === 'object' && '_def' in value && typeof (value as { safeParse?: unknown }).safeParse === 'function';
  if (zod3) return "is a zod 3 schema: loopgate needs zod 4 (import { z } from 'zod' with zod@4)";
  return "must be a zod schema, e.g. z.object({ … }) (import { z } from 'zod' with zod@4)";
}

/**
 * JSON Schemas already computed, by zod schema: hosts that build a registry per
 * conversation (or the harness, per case) reuse the same schema objects, and the
 * conversion is the expensive part. Zod schemas are immutable, so this is safe.
 */
const jsonSchemas = new WeakMap<object, JsonSchema>();

function toSpec(d: AnyToolDeclaration): ToolSpec {
  let inputSchema = jsonSchemas.get(d.input);
  if (!inputSchema) {
    const transform = inputTransform(d.input);
    if (transform !== undefined) {
      throw new ToolDeclarationError(
        d.name,
        `input schema changes the arguments it validates (${transform}): the log records the arguments the tool runs with, which must be valid against the JSON Schema the model is offered; take the value as the model sends it and convert it in run()`,
      );
    }
    let schema: Record<string, unknown>;
    try {
      // `io: 'input'`: the model writes the input side (defaults make fields optional).
      schema = z.toJSONSchema(d.input, { io: 'input' }) as Record<string, unknown>;
    } catch (error) {
      throw new ToolDeclarationError(d.name, `input schema cannot be expressed as JSON Schema: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (schema['type'] !== 'object') {
      throw new ToolDeclarationError(d.name, 'input schema must describe an object (providers require object arguments)');
    }
    // The dialect marker is noise to providers; everything else is kept as zod wrote it.
    const { $schema: _dialect, ...rest } = schema;
    inputSchema = deepFreezeJson(rest);
    jsonSchemas.set(d.input, inputSchema);
  }
  return Object.freeze({ name: d.name, description: d.description, inputSchema });
}

function deepFreezeJson(value: Record<string, unknown>): JsonSchema {
  return JSON.parse(JSON.stringify(value), (_key, v: unknown) => (v !== null && typeof v === 'object' ? Object.freeze(v) : v)) as JsonSchema;
}
