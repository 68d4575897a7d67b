/**
 * The production number: loopgate's step through the real `AgentHost` on the
 * SQLite store (write-behind between durability barriers, group commit), side by
 * side with the Vercel AI SDK's in-memory step and loopgate's bare loop on the
 * memory store — the same 10-round tool loop, interleaved per round, CPU-time
 * medians. Target: the host on SQLite ≥ 3× cheaper per step than the AI SDK.
 */
import { aiSdkContender } from './loop/ai-sdk.ts';
import { loopgateContender, createShared } from './loop/loopgate.ts';
import { loopgateHostContender } from './loop/loopgate-host.ts';
import { checkRun, ROUNDS as TOOL_ROUNDS, STEPS_PER_RUN } from './loop/scenario.ts';
import { interleave } from './lib/interleave.ts';
import { verdict, writeResults } from './lib/results.ts';
import { median, round, summarize } from './lib/stats.ts';

const QUICK = process.env.LOOPGATE_BENCH_QUICK === '1';
// 25 warm-up rounds: 1,000 runs of each contender before anything is timed (see loop-overhead.ts).
const OPTIONS = { warmupRounds: QUICK ? 3 : 25, rounds: QUICK ? 10 : 60, batch: QUICK ? 10 : 40 };
const TARGET_RATIO = 3;

async function main(): Promise<void> {
  const host = loopgateHostContender();
  const aiSdk = aiSdkContender();
  const loop = { ...loopgateContender(createShared()), name: 'loopgate loop + memory store' };
  try {
    for (const c of [host, aiSdk, loop]) checkRun(c.name, await c.check());

    // What one run of the host writes: batches handed to the store, and the transactions they went in.
    const before = host.store.commits;
    await host.run();
    const after = host.store.commits;
    const writesPerRun = after.batches - before.batches;
    const transactionsPerRun = after.groups - before.groups;

    const samples = await interleave([host, aiSdk, loop], OPTIONS);
    const of = (name: string) => samples.get(name)!;
    const h = { wall: median(of(host.name).wall), cpu: median(of(host.name).cpu) };
    const ai = { wall: median(of(aiSdk.name).wall), cpu: median(of(aiSdk.name).cpu) };
    const ratio = { cpu: ai.cpu / h.cpu, wall: ai.wall / h.wall };
    const rows = [host.name, aiSdk.name, loop.name].map((name) => {
      const wall = summarize(of(name).wall);
      const cpu = summarize(of(name).cpu);
      return [name, cpu.median, `${cpu.p10} – ${cpu.p90}`, wall.median, `${round(cpu.median / h.cpu, 2)}×`];
    });
    writeResults(
      'host-sqlite',
      `The same ${TOOL_ROUNDS}-round tool loop (${STEPS_PER_RUN} model steps) through loopgate's production host on SQLite, the Vercel AI SDK (in memory) and loopgate's loop on the memory store; interleaved per round, ${OPTIONS.rounds} rounds after ${OPTIONS.warmupRounds} warm-up rounds, ${OPTIONS.batch} runs per contender per round, a fresh conversation per run.`,
      [
        {
          title: 'µs per step (median over rounds; targets judged on CPU time)',
          columns: ['contender', 'median µs/step (CPU)', 'p10 – p90 (CPU)', 'median µs/step (wall)', 'CPU time vs the host on SQLite'],
          rows,
          notes: [
            verdict(
              ratio.cpu >= TARGET_RATIO,
              `AgentHost on SQLite ≥ ${TARGET_RATIO}× cheaper per step than the AI SDK's in-memory step (CPU ${round(ratio.cpu, 2)}×, wall ${round(ratio.wall, 2)}×)`,
            ),
            `The host per run: ${writesPerRun} batches handed to the store for ${STEPS_PER_RUN} steps, committed in ${transactionsPerRun} transactions (write-behind between the barriers — the message, the claim, the close — and group commit; WAL, synchronous=NORMAL); the conversation lock, the envelope and a trace per turn.`,
            'CPU time (user + system of this process) includes V8’s garbage-collector threads and SQLite’s work; wall time includes time other processes held the CPU.',
          ],
        },
      ],
      {
        options: OPTIONS,
        stepsPerRun: STEPS_PER_RUN,
        hostBatchesPerRun: writesPerRun,
        hostTransactionsPerRun: transactionsPerRun,
        usPerStep: Object.fromEntries(
          [host.name, aiSdk.name, loop.name].map((name) => [name, { wall: summarize(of(name).wall), cpu: summarize(of(name).cpu) }]),
        ),
        ratioAiSdkToHost: { cpu: round(ratio.cpu, 3), wall: round(ratio.wall, 3) },
        targets: { ratio: TARGET_RATIO, met: ratio.cpu >= TARGET_RATIO },
      },
    );
  } finally {
    await host.close();
  }
}

await main();
