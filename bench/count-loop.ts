/**
 * Instructions per step of loopgate's loop (memory store), under callgrind, for
 * judging a change on a shared machine (instruction counts do not move with load):
 *   valgrind --tool=callgrind --zero-before=uv_getrusage --dump-before=uv_loadavg \
 *     node bench/count-loop.ts [warm] [runs]
 * `process.cpuUsage()` (uv_getrusage) zeroes the counts after the warm-up and
 * `os.loadavg()` (uv_loadavg) dumps them after the measured runs, so the dump
 * holds only the measured runs (all threads: GC and compilers included).
 * Without valgrind it prints bytes allocated per step over the measured runs.
 */
import { loadavg } from 'node:os';
import { getHeapStatistics, GCProfiler } from 'node:v8';
import { loopgateContender } from './loop/loopgate.ts';
import { bytesAllocated } from './harness/heap-allocated.ts';

const warm = Number(process.argv[2] ?? 3_000);
const runs = Number(process.argv[3] ?? 500);
const contender = loopgateContender();
for (let i = 0; i < warm; i++) await contender.run();
// Under callgrind (LOOPGATE_CG=1) nothing but the runs is measured: no GC profiler.
const cg = process.env.LOOPGATE_CG === '1';
const profiler = cg ? undefined : new GCProfiler();
const startUsed = getHeapStatistics().used_heap_size;
profiler?.start();
process.cpuUsage();
let steps = 0;
for (let i = 0; i < runs; i++) steps += await contender.run();
loadavg();
const endUsed = getHeapStatistics().used_heap_size;
const result = profiler?.stop();
const allocated = bytesAllocated(startUsed, endUsed, result);
process.stdout.write(`${runs} runs, ${steps} steps after ${warm} warm-up runs: ${(allocated / steps).toFixed(0)} bytes allocated/step\n`);
