/**
 * The harness is a second host over the *unmodified* loop: it may reach the
 * kernel only through its public entry, and never patch it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const HOST_DIRS = ['src/harness', 'state-tables', 'src/fuzz'];
const KERNEL = resolve(ROOT, 'src/kernel');
const PUBLIC_ENTRY = resolve(KERNEL, 'index.ts');

function sources(dir: string): string[] {
  const abs = join(ROOT, dir);
  let entries;
  try {
    entries = readdirSync(abs, { withFileTypes: true, recursive: true });
  } catch {
    return [];
  }
  return entries.filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')).map((e) => join(e.parentPath, e.name));
}

const IMPORT = /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

describe('the harness runs the unmodified loop', () => {
  const files = HOST_DIRS.flatMap(sources);

  it('finds the harness sources', () => {
    expect(files.length).toBeGreaterThan(10);
  });

  it('imports the kernel only through src/kernel/index.ts', () => {
    const offenders: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(IMPORT)) {
        const spec = match[1] ?? match[2]!;
        if (!spec.startsWith('.')) continue;
        const target = resolve(file, '..', spec);
        if (target.startsWith(`${KERNEL}/`) && target !== PUBLIC_ENTRY) offenders.push(`${relative(ROOT, file)} imports ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('never patches the loop or its parts', () => {
    const patching = /\b(AgentLoop|EventLog|ProjectionCache|Tracer)\.prototype\b|Object\.(defineProperty|setPrototypeOf)\(\s*(AgentLoop|EventLog)|vi\.(mock|spyOn)\(/;
    const offenders = files.filter((f) => patching.test(readFileSync(f, 'utf8'))).map((f) => relative(ROOT, f));
    expect(offenders).toEqual([]);
  });

  it('the check catches an import of kernel internals (it can fail)', () => {
    const text = "import { AgentLoop } from '../kernel/loop/runner.ts';";
    const spec = [...text.matchAll(IMPORT)][0]![1]!;
    const target = resolve(ROOT, 'src/harness/x.ts', '..', spec);
    expect(target.startsWith(`${KERNEL}/`) && target !== PUBLIC_ENTRY).toBe(true);
  });
});
