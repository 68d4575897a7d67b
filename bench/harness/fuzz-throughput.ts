/**
 * Fuzzed turns per second: the built-in properties on generated scenarios for a
 * fixed time, one seed, per wall-clock and per CPU-second. Prints one JSON line (or {"skipped": ...} when src/fuzz
 * does not exist). Usage: node bench/harness/fuzz-throughput.ts [seconds] [seed]
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const seconds = Number(process.argv[2] ?? 10);
const seed = Number(process.argv[3] ?? 1);

async function main(): Promise<void> {
  const entry = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'fuzz', 'index.ts');
  if (!existsSync(entry)) {
    process.stdout.write(`${JSON.stringify({ skipped: 'src/fuzz does not exist yet' })}\n`);
    return;
  }
  const { runFuzz } = (await import('../../src/fuzz/index.ts')) as typeof import('../../src/fuzz/index.ts');
  const { bundledFuzzOptions } = await import('../../test/support/bundled.ts');
  const options = await bundledFuzzOptions();
  // CPU time as well as wall time: on a shared machine other processes' load inflates the wall clock, not this.
  const cpu = process.cpuUsage();
  const result = await runFuzz({ timeLimitMs: seconds * 1000, seed, maxShrinkMs: 5_000, ...options });
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  process.stdout.write(
    `${JSON.stringify({
      seed: result.seed,
      seconds: Math.round(result.durationMs) / 1000,
      runs: result.runs,
      turns: result.turns,
      runsPerSecond: Math.round(result.runsPerSecond),
      turnsPerSecond: Math.round(result.turnsPerSecond),
      cpuSeconds: Math.round(cpuSeconds * 1000) / 1000,
      turnsPerCpuSecond: Math.round(result.turns / Math.max(cpuSeconds, 1e-9)),
      properties: result.invariants.length,
      failure: result.failure ? result.failure.message : null,
    })}\n`,
  );
}

await main();
