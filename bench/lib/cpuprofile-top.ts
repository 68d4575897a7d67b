/**
 * Summarizes a `.cpuprofile` (from `node --cpu-prof`): self time per function and
 * per file, highest first. Usage: node bench/lib/cpuprofile-top.ts <file> [rows]
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface TopEntry {
  readonly name: string;
  readonly selfMs: number;
  readonly percent: number;
}

export function topOf(profile: Profile, rows = 25): { functions: TopEntry[]; inclusive: TopEntry[]; files: TopEntry[]; totalMs: number } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const fn = new Map<string, number>();
  const incl = new Map<string, number>();
  const file = new Map<string, number>();
  let total = 0;
  const nameOf = (id: number) => {
    const frame = byId.get(id)!.callFrame;
    return `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}:${frame.lineNumber + 1}`;
  };
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    const where = shortUrl(frame.url);
    const name = nameOf(id);
    fn.set(name, (fn.get(name) ?? 0) + us);
    // Inclusive: every function on the stack, once per stack (recursion counted once).
    const onStack = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) onStack.add(nameOf(at));
    for (const n of onStack) incl.set(n, (incl.get(n) ?? 0) + us);
    file.set(where || frame.functionName, (file.get(where || frame.functionName) ?? 0) + us);
    total += us;
  }
  const top = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, rows)
      .map(([name, us]) => ({ name, selfMs: Math.round(us / 100) / 10, percent: Math.round((us / total) * 1000) / 10 }));
  return { functions: top(fn), inclusive: top(incl), files: top(file), totalMs: Math.round(total / 1000) };
}

function shortUrl(url: string): string {
  const at = url.indexOf('/node_modules/');
  if (at >= 0) return url.slice(at + 1);
  const src = url.search(/\/(src|providers|bench)\//);
  return src >= 0 ? url.slice(src + 1) : url.replace(/^file:\/\//, '');
}

if (import.meta.main) {
  process.stdout.on('error', () => process.exit(0)); // piped into head
  const [file, rows] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: node bench/lib/cpuprofile-top.ts <file.cpuprofile> [rows]\n');
    process.exit(2);
  }
  const { functions, inclusive, files, totalMs } = topOf(JSON.parse(readFileSync(file, 'utf8')) as Profile, Number(rows ?? 30));
  process.stdout.write(`total sampled: ${totalMs} ms\n\nself time by function:\n`);
  for (const e of functions) process.stdout.write(`${String(e.percent).padStart(5)}%  ${String(e.selfMs).padStart(8)} ms  ${e.name}\n`);
  process.stdout.write('\ninclusive time by function:\n');
  for (const e of inclusive) process.stdout.write(`${String(e.percent).padStart(5)}%  ${String(e.selfMs).padStart(8)} ms  ${e.name}\n`);
  process.stdout.write('\nself time by file:\n');
  for (const e of files) process.stdout.write(`${String(e.percent).padStart(5)}%  ${String(e.selfMs).padStart(8)} ms  ${e.name}\n`);
}
