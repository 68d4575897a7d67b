/**
 * What an agent's build declares, as something two builds can be compared on:
 * its tool names, and each tool's input schema (as the JSON Schema the model is
 * offered) and side-effect level. A factory is built once when the config loads
 * and again for every case and conversation; builds that declare different tools
 * make the scenario checks, the fuzzer and each host gate different agents
 * (probe 17, F5), so a difference is named, never run.
 */
import { z } from 'zod';
import type { AnyToolDeclaration } from '../../kernel/index.ts';

export interface ToolSignature {
  /** Tool names, sorted. */
  readonly names: readonly string[];
  readonly tools: ReadonlyMap<string, { readonly schema: string; readonly sideEffect: string }>;
}

export function toolSignature(tools: readonly AnyToolDeclaration[] | undefined): ToolSignature {
  const byName = new Map<string, { schema: string; sideEffect: string }>();
  (tools ?? []).forEach((t, i) => {
    // A build's broken declarations are named elsewhere (the kernel's checks); here they only have to differ or not.
    const declared = t !== null && typeof t === 'object' && typeof t.name === 'string';
    byName.set(
      declared ? t.name : `(tools[${i}]: not a tool declaration)`,
      declared ? { schema: schemaText(t.input), sideEffect: String(t.sideEffect ?? 'NONE') } : { schema: '', sideEffect: '' },
    );
  });
  return { names: [...byName.keys()].sort(), tools: byName };
}

function schemaText(input: unknown): string {
  try {
    const { $schema: _dialect, ...rest } = z.toJSONSchema(input as z.ZodType, { io: 'input' }) as Record<string, unknown>;
    return JSON.stringify(rest);
  } catch {
    return '(no JSON Schema)';
  }
}

/** How `after` differs from `before`, in one line; undefined when they declare the same tools. */
export function signatureDifference(before: ToolSignature, after: ToolSignature, first: string, second: string): string | undefined {
  const list = (names: readonly string[]) => (names.length > 0 ? names.join(', ') : 'no tools');
  if (before.names.join('\n') !== after.names.join('\n')) return `${first} declares ${list(before.names)}, ${second} declares ${list(after.names)}`;
  for (const name of before.names) {
    const a = before.tools.get(name)!;
    const b = after.tools.get(name)!;
    if (a.schema !== b.schema) return `tool ${name}: its input schema differs (${a.schema} then ${b.schema})`;
    if (a.sideEffect !== b.sideEffect) return `tool ${name}: its side effect differs (${a.sideEffect} then ${b.sideEffect})`;
  }
  return undefined;
}

export const SAME_TOOLS = 'every build (one per case or conversation) must declare the same tools';
