/**
 * Runs the production host on SQLite (bench/loop/loopgate-host.ts) in a tight loop, for profiling:
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof bench/profile-host.ts [runs]
 *   node bench/lib/cpuprofile-top.ts /tmp/prof/<file>.cpuprofile
 * LOOPGATE_PROFILE_PROMISES=1 also counts promises created per step (async_hooks).
 */
import { createHook } from 'node:async_hooks';
import { loopgateHostContender } from './loop/loopgate-host.ts';

const runs = Number(process.argv[2] ?? 5_000);
const contender = loopgateHostContender();
for (let i = 0; i < 200; i++) await contender.run();
let promises = 0;
const hook =
  process.env.LOOPGATE_PROFILE_PROMISES === '1'
    ? createHook({
        init(_id, type) {
          if (type === 'PROMISE') promises++;
        },
      }).enable()
    : undefined;
let steps = 0;
const batches = contender.store.commits.batches;
const groups = contender.store.commits.groups;
const start = performance.now();
const cpu = process.cpuUsage();
for (let i = 0; i < runs; i++) steps += await contender.run();
const ms = performance.now() - start;
const used = process.cpuUsage(cpu);
hook?.disable();
const cpuUs = used.user + used.system;
process.stdout.write(
  `${runs} runs, ${steps} steps: ${((ms * 1000) / steps).toFixed(2)} µs/step wall, ${(cpuUs / steps).toFixed(2)} µs/step CPU` +
    `, ${((contender.store.commits.batches - batches) / runs).toFixed(1)} batches / ${((contender.store.commits.groups - groups) / runs).toFixed(1)} transactions per run` +
    (hook ? `, ${(promises / steps).toFixed(1)} promises/step` : '') +
    '\n',
);
await contender.close();
