/**
 * A/B of loopgate's loop (memory store) between two checkouts, in one process,
 * interleaved per round (the method of loop-overhead.ts), with the limit
 * contender alongside for the ratio (and the AI SDK with LOOPGATE_AB_AI=1):
 *   node bench/ab-loop.ts /work/main [rounds] [batch]
 * Prints, per contender, the median over rounds of CPU µs/step and the ratios.
 */
import { resolve } from 'node:path';
import { loadavg } from 'node:os';
import { aiSdkContender } from './loop/ai-sdk.ts';
import { loopgateContender } from './loop/loopgate.ts';
import { limitContender } from './loop/limit.ts';
import { interleave } from './lib/interleave.ts';
import { median } from './lib/stats.ts';

const base = resolve(process.argv[2] ?? '/work/main');
const rounds = Number(process.argv[3] ?? 40);
const batch = Number(process.argv[4] ?? 20);
const baseModule = (await import(`${base}/bench/loop/loopgate.ts`)) as { loopgateContender: typeof loopgateContender };
const a = { ...baseModule.loopgateContender(), name: `loopgate (${base})` };
const b = { ...loopgateContender(), name: 'loopgate (this tree)' };
const limit = limitContender();
const contenders = [a, b, limit, ...(process.env.LOOPGATE_AB_AI === '1' ? [aiSdkContender()] : [])];
const loadBefore = loadavg()[0]!;
const samples = await interleave(contenders, { warmupRounds: 30, rounds, batch });
const loadAfter = loadavg()[0]!;
const limitCpu = median(samples.get(limit.name)!.cpu);
const ai = contenders[3];
const aiCpu = ai ? median(samples.get(ai.name)!.cpu) : undefined;
for (const c of contenders) {
  const s = samples.get(c.name)!;
  const cpu = median(s.cpu);
  process.stdout.write(
    `${c.name.padEnd(40)} CPU µs/step median ${cpu.toFixed(2)}, wall ${median(s.wall).toFixed(2)}; ×limit ${(cpu / limitCpu).toFixed(2)}${aiCpu ? `; AI SDK / this ${(aiCpu / cpu).toFixed(2)}×` : ''}\n`,
  );
}
process.stdout.write(`load ${loadBefore.toFixed(2)} → ${loadAfter.toFixed(2)}\n`);
