/**
 * Runs loopgate's side of the loop benchmark in a tight loop, for profiling:
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof bench/profile-loop.ts [runs]
 *   node bench/lib/cpuprofile-top.ts /tmp/prof/<file>.cpuprofile
 */
import { loopgateContender } from './loop/loopgate.ts';

const runs = Number(process.argv[2] ?? 20_000);
const contender = loopgateContender();
let steps = 0;
const start = performance.now();
const cpu = process.cpuUsage();
for (let i = 0; i < runs; i++) steps += await contender.run();
const ms = performance.now() - start;
const used = process.cpuUsage(cpu);
const cpuUs = used.user + used.system;
process.stdout.write(`${runs} runs, ${steps} steps: ${((ms * 1000) / steps).toFixed(2)} µs/step wall, ${(cpuUs / steps).toFixed(2)} µs/step CPU\n`);
