/**
 * The second argument layer (seed 000 §5, seed 001 §2.5): strict validation against
 * the tool's zod input schema. A failure becomes one message the model can act on,
 * naming every field that was wrong and what was expected there — a model that
 * reads `amount: expected number, received string` fixes its call; one that reads
 * "invalid arguments" guesses.
 */
import type { z } from 'zod';
import { deepFreeze } from './deep-freeze.ts';
import type { ToolError } from './types.ts';

export type ValidationResult =
  | { readonly ok: true; readonly args: unknown }
  | { readonly ok: false; readonly error: ToolError; readonly problems: readonly string[] };

/**
 * Validates, and on success returns the parsed arguments deep-frozen. `copy`, when
 * given, is called for parsed arguments that are `args` itself (a schema that hands
 * its input back, such as `z.unknown()`): the caller's object is never frozen.
 */
export function validateArgs(tool: string, schema: z.ZodType, args: unknown, copy?: (value: unknown) => unknown): ValidationResult {
  const result = schema.safeParse(args);
  if (result.success) return { ok: true, args: deepFreeze(copy && result.data === args ? copy(args) : result.data) };
  const problems = describeIssues(result.error.issues, args);
  return {
    ok: false,
    problems,
    error: {
      failed_tool: tool,
      error_code: 'INVALID_ARGUMENTS',
      error_message: `Invalid arguments for ${tool}: ${problems.join('; ')}`,
      suggestion: `Call ${tool} again with arguments that match its input schema, fixing the fields listed.`,
    },
  };
}

/** One line per issue, `path: what was wrong`. Exported for output validation. */
export function describeIssues(issues: readonly z.core.$ZodIssue[], input: unknown): string[] {
  const lines: string[] = [];
  for (const issue of issues) lines.push(...describeIssue(issue, input));
  return lines;
}

function describeIssue(issue: z.core.$ZodIssue, input: unknown): string[] {
  const path = issue.path;
  const where = formatPath(path);
  switch (issue.code) {
    case 'invalid_type': {
      const lookup = valueAt(input, path);
      if (!lookup.present && path.length > 0) {
        const parent = formatPath(path.slice(0, -1));
        const field = String(path[path.length - 1]);
        const inside = parent === 'arguments' ? '' : ` in ${parent}`;
        return [`missing required field "${field}"${inside} (expected ${issue.expected})`];
      }
      return [`${where}: expected ${issue.expected}, received ${describeType(lookup.value)}`];
    }
    case 'unrecognized_keys':
      return issue.keys.map((key) => `unexpected field "${key}"${where === 'arguments' ? '' : ` in ${where}`}`);
    case 'invalid_union': {
      // When every branch failed only on its type, say which types were allowed.
      const expected: string[] = [];
      for (const branch of issue.errors) {
        const only = branch.length === 1 ? branch[0] : undefined;
        if (!only || only.code !== 'invalid_type' || only.path.length !== 0)
          return [`${where}: ${lowerFirst(issue.message)} (matches none of the allowed shapes)`];
        expected.push(only.expected);
      }
      return [`${where}: expected ${expected.join(' | ')}, received ${describeType(valueAt(input, path).value)}`];
    }
    default:
      return [`${where}: ${lowerFirst(issue.message)}`];
  }
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return 'arguments';
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): { present: boolean; value: unknown } {
  let current: unknown = input;
  for (const key of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) return { present: false, value: undefined };
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return { present: true, value: current };
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && Number.isNaN(value)) return 'NaN';
  return typeof value;
}

function lowerFirst(text: string): string {
  return text.length > 0 ? text[0]!.toLowerCase() + text.slice(1) : text;
}
