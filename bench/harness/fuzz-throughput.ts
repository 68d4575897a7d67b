/**
 * Fuzzed turns per second: the built-in properties on generated scenarios for a
 * fixed time, one seed. Prints one JSON line (or {"skipped": ...} when src/fuzz
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
  const result = await runFuzz({ timeLimitMs: seconds * 1000, seed, maxShrinkMs: 5_000, ...(await bundledFuzzOptions()) });
  process.stdout.write(
    `${JSON.stringify({
      seed: result.seed,
      seconds: Math.round(result.durationMs) / 1000,
      runs: result.runs,
      turns: result.turns,
      runsPerSecond: Math.round(result.runsPerSecond),
      turnsPerSecond: Math.round(result.turnsPerSecond),
      properties: result.invariants.length,
      failure: result.failure ? result.failure.message : null,
    })}\n`,
  );
}

await main();
