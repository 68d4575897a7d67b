/**
 * The layout is the architecture. Parts sit on floors and imports run downward
 * only: a file may import its own part or a part on a lower floor, never one
 * beside or above it. Outside the kernel, the kernel is reached only through its
 * public entry (src/kernel/index.ts; the redactor also through its own). No two product files import each other,
 * however indirectly. The harness runs the *unmodified* loop: it never patches it.
 *
 * Tests, benchmarks and scripts are not product code and may import anything.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');

/** Lowest first. A part is a folder (or a single file) named from the repository root. */
export const FLOORS: readonly (readonly string[])[] = [
  ['src/kernel'], // the loop and its parts, with the model port adapters implement
  ['src/yaml', 'src/files', 'src/package-root.ts'], // reading YAML input, bounded and with line numbers; files users name, read bounded, output places checked first; where the package's own files are
  ['src/stores', 'providers', 'src/report'], // each on the kernel alone
  ['src/host'], // the production host
  ['src/harness'], // the second host, its world and the invariants; the agent under test is plugged in, never imported
  ['state-tables', 'src/fuzz', 'src/config', 'src/loops'], // the loop table's fixtures; generators, shrinking; loopgate.config.ts; other frameworks' loops behind the loop-under-test port (optional peers, loaded lazily)
  ['src/cli', 'src/index.ts', 'src/vitest.ts', 'scenarios'], // the public entries, and the bundled suite (a user of them)
];

const PRODUCT_DIRS = ['src', 'providers', 'state-tables', 'scenarios'];
const KERNEL_ENTRY = 'src/kernel/index.ts';
/**
 * The redactor's own entry is public too: the command line passes everything it
 * prints through it before anything else loads, and the whole kernel would more
 * than double what `loopgate --help` costs.
 */
const KERNEL_ENTRIES: readonly string[] = [KERNEL_ENTRY, 'src/kernel/redact/index.ts'];
/** `import … from`, `export … from`, a dynamic `import(…)`, and an import for its side effects only (`import '…'`). */
const IMPORT = /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s+['"]([^'"]+)['"]/gm;

function isProduct(file: string): boolean {
  return file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.endsWith('.browser.test.ts');
}

function productSources(): Map<string, string> {
  const out = new Map<string, string>();
  for (const dir of PRODUCT_DIRS) {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })) {
      if (!entry.isFile()) continue;
      const file = relative(ROOT, join(entry.parentPath, entry.name));
      if (isProduct(file)) out.set(file, readFileSync(join(ROOT, file), 'utf8'));
    }
  }
  return out;
}

function partOf(file: string): { part: string; floor: number } | undefined {
  for (let floor = 0; floor < FLOORS.length; floor++) {
    for (const part of FLOORS[floor]!) if (file === part || file.startsWith(`${part}/`)) return { part, floor };
  }
  return undefined;
}

/** Relative imports of each file, resolved to repository paths. */
function importsOf(file: string, text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const spec = match[1] ?? match[2] ?? match[3]!;
    if (spec.startsWith('.')) out.push(relative(ROOT, resolve(ROOT, file, '..', spec)));
  }
  return out;
}

/** Every import that breaks the layering, as one line each. */
export function layeringViolations(sources: ReadonlyMap<string, string>): string[] {
  const problems: string[] = [];
  for (const [file, text] of sources) {
    const from = partOf(file);
    if (!from) {
      problems.push(`${file} is on no floor: add its part to FLOORS in test/architecture.test.ts`);
      continue;
    }
    for (const target of importsOf(file, text)) {
      const to = partOf(target);
      if (!to) continue; // outside the product (node_modules are not relative)
      if (to.part === from.part) continue;
      if (to.floor >= from.floor)
        problems.push(`${file} (${from.part}, floor ${from.floor}) imports ${target} (${to.part}, floor ${to.floor}): imports run downward only`);
      else if (to.part === 'src/kernel' && !KERNEL_ENTRIES.includes(target))
        problems.push(`${file} imports ${target}: outside the kernel, import it through ${KERNEL_ENTRY}`);
    }
  }
  return problems;
}

/** Groups of product files that import each other (directly or not). */
export function importCycles(sources: ReadonlyMap<string, string>): string[][] {
  const graph = new Map<string, string[]>();
  for (const [file, text] of sources)
    graph.set(
      file,
      importsOf(file, text).filter((t) => sources.has(t)),
    );
  // Tarjan's strongly connected components, iteratively.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; edge: number }[] = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node)!;
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++]!;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        for (;;) {
          const n = stack.pop()!;
          onStack.delete(n);
          component.push(n);
          if (n === frame.node) break;
        }
        if (component.length > 1) cycles.push(component.sort());
      }
    }
  }
  return cycles;
}

/**
 * Each peer's adapter needs its own framework only: a team on OpenAI Agents has no `ai` installed, and one on the AI
 * SDK no `@openai/agents` (outside probe 39, F1: `loopgate/loops/openai-agents` needed `ai`). Every package a peer's
 * folder reaches by static, non-type imports, followed through the product's own files.
 */
const PEER_PACKAGES: Readonly<Record<string, RegExp>> = {
  'src/loops/ai-sdk': /^@openai\/agents/,
  'src/loops/openai-agents': /^(ai$|ai\/|@ai-sdk\/)/,
};
const VALUE_IMPORT = /^\s*(?:import|export)\s+(?!type\s)[^'"]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]/gm;

export function peerPackageLeaks(sources: ReadonlyMap<string, string>): string[] {
  const problems: string[] = [];
  for (const [folder, foreign] of Object.entries(PEER_PACKAGES)) {
    for (const start of [...sources.keys()].filter((f) => f.startsWith(`${folder}/`) && !f.endsWith('contract-cases.ts'))) {
      const seen = new Set<string>();
      const work: { file: string; via: string[] }[] = [{ file: start, via: [start] }];
      while (work.length > 0) {
        const { file, via } = work.pop()!;
        if (seen.has(file)) continue;
        seen.add(file);
        for (const match of (sources.get(file) ?? '').matchAll(VALUE_IMPORT)) {
          const spec = match[1] ?? match[2]!;
          if (spec.startsWith('.')) {
            const target = relative(ROOT, resolve(ROOT, file, '..', spec));
            if (sources.has(target)) work.push({ file: target, via: [...via, target] });
          } else if (foreign.test(spec)) problems.push(`${start} needs ${spec} (${via.join(' → ')})`);
        }
      }
    }
  }
  return [...new Set(problems)];
}

describe('architecture', () => {
  const sources = productSources();

  it('finds the product sources', () => {
    expect(sources.size).toBeGreaterThan(150);
  });

  it('imports run downward only, and the kernel is reached through its public entry', () => {
    expect(layeringViolations(sources)).toEqual([]);
  });

  it('no product files import each other', () => {
    expect(importCycles(sources)).toEqual([]);
  });

  it("each peer's adapter loads with its own framework alone", () => {
    expect(peerPackageLeaks(sources)).toEqual([]);
    const planted = new Map(sources);
    planted.set('src/loops/openai-agents/planted.ts', "import { x } from '../support/planted-b.ts';\n");
    planted.set('src/loops/support/planted-b.ts', "import { generateText } from 'ai';\nimport type { Tool } from '@ai-sdk/provider';\n");
    expect(peerPackageLeaks(planted)).toContainEqual(
      'src/loops/openai-agents/planted.ts needs ai (src/loops/openai-agents/planted.ts → src/loops/support/planted-b.ts)',
    );
  });

  it('the harness and the fuzzer never patch the loop or its parts', () => {
    const patching =
      /\b(AgentLoop|EventLog|ProjectionCache|Tracer)\.prototype\b|Object\.(defineProperty|setPrototypeOf)\(\s*(AgentLoop|EventLog)|vi\.(mock|spyOn)\(/;
    const offenders = [...sources].filter(([file, text]) => /^(src\/harness|src\/fuzz|state-tables)\//.test(file) && patching.test(text)).map(([file]) => file);
    expect(offenders).toEqual([]);
  });

  it('fails on a planted upward import (also one for its side effects only), a deep kernel import and a cycle (the checks can fail)', () => {
    const planted = new Map(sources);
    planted.set('src/kernel/loop/planted.ts', "import { AgentHost } from '../../host/host.ts';\n");
    planted.set('src/stores/planted.ts', "import { AgentLoop } from '../kernel/loop/runner.ts';\n");
    planted.set('src/harness/planted-a.ts', "import { b } from './planted-b.ts';\n");
    planted.set('src/harness/planted-b.ts', "export { a } from './planted-a.ts';\n");
    planted.set('src/stores/planted-side-effect.ts', "import '../host/host.ts';\n");
    const problems = layeringViolations(planted);
    expect(problems).toContainEqual(expect.stringContaining('src/kernel/loop/planted.ts (src/kernel, floor 0) imports src/host/host.ts'));
    expect(problems).toContainEqual(expect.stringContaining('src/stores/planted.ts imports src/kernel/loop/runner.ts: outside the kernel'));
    expect(problems).toContainEqual(expect.stringContaining('src/stores/planted-side-effect.ts (src/stores, floor 2) imports src/host/host.ts'));
    expect(importCycles(planted)).toContainEqual(['src/harness/planted-a.ts', 'src/harness/planted-b.ts']);
  });
});
