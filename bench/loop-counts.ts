/**
 * Promises and bytes allocated per step of loopgate's loop (memory store), for a
 * checkout (default this tree):
 *   node --expose-gc bench/loop-counts.ts [root] [runs]
 * Promises: async_hooks PROMISE inits. Bytes: the heap's used size summed over
 * the collections in between (v8.GCProfiler), i.e. what was allocated.
 */
import { createHook } from 'node:async_hooks';
import { resolve } from 'node:path';
import { GCProfiler, getHeapStatistics } from 'node:v8';
import { bytesAllocated } from './harness/heap-allocated.ts';

const root = resolve(process.argv[2] ?? new URL('..', import.meta.url).pathname);
const runs = Number(process.argv[3] ?? 5_000);
const { loopgateContender } = (await import(`${root}/bench/loop/loopgate.ts`)) as typeof import('./loop/loopgate.ts');
const contender = loopgateContender();
for (let i = 0; i < 2_000; i++) await contender.run();

let promises = 0;
const hook = createHook({ init: (_id, type) => void (type === 'PROMISE' && promises++) });
hook.enable();
let steps = 0;
for (let i = 0; i < 200; i++) steps += await contender.run();
hook.disable();
const promisesPerStep = promises / steps;

(globalThis as { gc?: () => void }).gc?.();
const profiler = new GCProfiler();
const startUsed = getHeapStatistics().used_heap_size;
profiler.start();
steps = 0;
for (let i = 0; i < runs; i++) steps += await contender.run();
const endUsed = getHeapStatistics().used_heap_size;
const result = profiler.stop();
const allocated = bytesAllocated(startUsed, endUsed, result);
process.stdout.write(
  `${root}: ${promisesPerStep.toFixed(2)} promises/step, ${(allocated / steps / 1024).toFixed(2)} KiB allocated/step (${result?.statistics.length ?? 0} GCs over ${steps} steps)\n`,
);
