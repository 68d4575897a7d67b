/**
 * Where loopgate's loop step allocates (memory store): V8's sampling heap
 * profiler over many runs, allocations summed by function and source line,
 * largest first, in bytes per step:
 *   node bench/profile-alloc.ts [root] [runs] [top]
 * Sampled (one sample per 512 bytes on average), so small sites are estimates.
 */
import { Session } from 'node:inspector/promises';
import { resolve } from 'node:path';

const root = resolve(process.argv[2] ?? new URL('..', import.meta.url).pathname);
const runs = Number(process.argv[3] ?? 5_000);
const top = Number(process.argv[4] ?? 30);
const { loopgateContender } = (await import(`${root}/bench/loop/loopgate.ts`)) as typeof import('./loop/loopgate.ts');
const contender = loopgateContender();
for (let i = 0; i < 2_000; i++) await contender.run();

interface Node {
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  selfSize: number;
  children: Node[];
}
const session = new Session();
session.connect();
await session.post('HeapProfiler.startSampling', { samplingInterval: 512, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
let steps = 0;
for (let i = 0; i < runs; i++) steps += await contender.run();
const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: { head: Node } };
session.disconnect();

const bySite = new Map<string, number>();
const walk = (node: Node): void => {
  const f = node.callFrame;
  const file = f.url.replace(/^file:\/\//, '').replace(`${root}/`, '');
  const key = `${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}`;
  bySite.set(key, (bySite.get(key) ?? 0) + node.selfSize);
  for (const c of node.children) walk(c);
};
walk(profile.head);
const total = [...bySite.values()].reduce((a, b) => a + b, 0);
process.stdout.write(`${root}: ${(total / steps).toFixed(0)} bytes/step sampled over ${steps} steps\n`);
for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  process.stdout.write(`${(bytes / steps).toFixed(0).padStart(6)}  ${site}\n`);
}
