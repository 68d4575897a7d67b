/**
 * A/B of the production host on SQLite between two checkouts, in one process,
 * interleaved per round (the method of host-sqlite.ts), with the AI SDK alongside
 * for the ratio:
 *   node bench/ab-host.ts /work/main [rounds] [batch]
 * Prints, per contender, the median over rounds of CPU µs/step (what host-sqlite.md
 * records) and the mean over all rounds (which also counts the rounds a WAL
 * checkpoint landed in).
 */
import { resolve } from 'node:path';
import { aiSdkContender } from './loop/ai-sdk.ts';
import { loopgateHostContender } from './loop/loopgate-host.ts';
import { interleave } from './lib/interleave.ts';
import { median } from './lib/stats.ts';

const base = resolve(process.argv[2] ?? '/work/main');
const rounds = Number(process.argv[3] ?? 40);
const batch = Number(process.argv[4] ?? 40);
const baseModule = (await import(`${base}/bench/loop/loopgate-host.ts`)) as { loopgateHostContender: typeof loopgateHostContender };
const a = { ...baseModule.loopgateHostContender(), name: `host (${base})` };
const b = { ...loopgateHostContender(), name: 'host (this tree)' };
const ai = aiSdkContender();
const samples = await interleave([a, b, ai], { warmupRounds: 10, rounds, batch });
const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
const aiCpu = median(samples.get(ai.name)!.cpu);
for (const c of [a, b, ai]) {
  const s = samples.get(c.name)!;
  const cpu = median(s.cpu);
  process.stdout.write(
    `${c.name.padEnd(40)} CPU µs/step median ${cpu.toFixed(1)} (mean ${mean(s.cpu).toFixed(1)}), wall median ${median(s.wall).toFixed(1)}; AI SDK / this ${(aiCpu / cpu).toFixed(2)}×\n`,
  );
}
await a.close();
await b.close();
