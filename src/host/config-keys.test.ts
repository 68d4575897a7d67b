/**
 * Every key of the host config is read by something (issue 10: `model.provider`,
 * `model.baseURL`, `model.apiKeyEnv`, `model.fallback` and `trace.export` were
 * validated and then ignored). A static check, so it covers keys added later: each
 * leaf key of the schema must be read as a property (`.key` or a destructured
 * `{ key }`) in product code — the kernel, the stores, the providers or the host —
 * outside the lines that only declare defaults. The behaviour behind the keys is
 * tested where it lives (from-config.test.ts, host-lifecycle.test.ts, …).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { hostConfigSchema } from './config.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const READERS = ['src/kernel', 'src/stores', 'src/host', 'providers'];

/** Leaf paths of a zod (v4) schema, e.g. `model.fallback[].apiKeyEnv`. */
export function leafKeys(schema: z.ZodType, path: string[] = []): string[][] {
  const def = (schema as unknown as { _zod: { def: Record<string, unknown> & { type: string } } })._zod.def;
  switch (def.type) {
    case 'default':
    case 'optional':
    case 'nullable':
    case 'prefault':
      return leafKeys(def.innerType as z.ZodType, path);
    case 'pipe': {
      // A preprocessed value (`z.preprocess`) pipes a transform into the schema that holds the keys.
      const into = (def.in as unknown as { _zod: { def: { type: string } } })._zod.def.type === 'transform' ? def.out : def.in;
      return leafKeys(into as z.ZodType, path);
    }
    case 'object':
      return Object.entries(def.shape as Record<string, z.ZodType>).flatMap(([key, value]) => leafKeys(value, [...path, key]));
    case 'array':
      return leafKeys(def.element as z.ZodType, [...path, '[]']);
    case 'record':
      return leafKeys(def.valueType as z.ZodType, [...path, '*']);
    case 'union':
      return (def.options as z.ZodType[]).flatMap((option) => leafKeys(option, path));
    default:
      return [path];
  }
}

function productCode(): string {
  const lines: string[] = [];
  for (const dir of READERS) {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.test.ts')) continue;
      const file = join(entry.parentPath, entry.name);
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        const code = line.replace(/\/\/.*$/, '').trim();
        // Declarations are not reads: schema fields (`key: z…`), defaults, doc comments.
        if (code.startsWith('*') || code.startsWith('/*') || /\bz\.|\.default\(|DEFAULT_/.test(code)) continue;
        lines.push(`${relative(ROOT, file)}: ${code}`);
      }
    }
  }
  return lines.join('\n');
}

describe('host config keys', () => {
  const keys = leafKeys(hostConfigSchema).map((path) => path.filter((p) => p !== '[]' && p !== '*'));
  const code = productCode();

  it('the schema walk finds the keys (the check below is not vacuous)', () => {
    const names = keys.map((k) => k.join('.'));
    for (const expected of [
      'model.provider',
      'model.fallback.apiKeyEnv',
      'trace.export.jsonl',
      'trace.export.otlp.endpoint',
      'trace.export.otlp.headers',
      'sessions.maxIdle',
      'store.path',
      'tools.modes.allow',
    ]) {
      expect(names).toContain(expected);
    }
  });

  it.each(keys.map((k) => [k.join('.'), k] as const))('%s is read by something', (_name, path) => {
    const key = path[path.length - 1]!;
    const read = new RegExp(`\\.${key}\\b|[{,]\\s*${key}\\s*[,}:]`);
    // `store.kind` is also read as a whole value (`config.store.kind === 'sqlite'`).
    expect(read.test(code), `nothing reads config key ${path.join('.')}: read it, or remove it from the schema`).toBe(true);
  });
});
