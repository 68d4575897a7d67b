/**
 * What SQLite does per host run: wraps `StatementSync` (run/get/all) and counts,
 * per statement text, calls and wall µs per run of the production host on SQLite:
 *   node bench/profile-host-sql.ts [runs]
 */
import { StatementSync } from 'node:sqlite';
import { loopgateHostContender } from './loop/loopgate-host.ts';

const runs = Number(process.argv[2] ?? 3_000);
const stats = new Map<string, { calls: number; us: number }>();
const proto = StatementSync.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
for (const method of ['run', 'get', 'all'] as const) {
  const original = proto[method]!;
  proto[method] = function (this: StatementSync, ...args: unknown[]) {
    const start = performance.now();
    try {
      return original.apply(this, args);
    } finally {
      const key = this.sourceSQL.replace(/\s+/g, ' ').slice(0, 60);
      const s = stats.get(key) ?? { calls: 0, us: 0 };
      s.calls++;
      s.us += (performance.now() - start) * 1000;
      stats.set(key, s);
    }
  };
}
const contender = loopgateHostContender();
for (let i = 0; i < 200; i++) await contender.run();
stats.clear();
const cpu = process.cpuUsage();
let steps = 0;
for (let i = 0; i < runs; i++) steps += await contender.run();
const used = process.cpuUsage(cpu);
process.stdout.write(`${runs} runs, ${steps} steps, ${((used.user + used.system) / steps).toFixed(1)} CPU µs/step (with the wrapping)\n`);
for (const [sql, s] of [...stats].sort((a, b) => b[1].us - a[1].us)) {
  process.stdout.write(`${(s.calls / runs).toFixed(2).padStart(7)} /run ${(s.us / runs).toFixed(1).padStart(8)} µs/run  ${sql}\n`);
}
await contender.close();
