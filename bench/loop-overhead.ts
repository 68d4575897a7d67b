/**
 * Loop overhead per step, side by side: the same 10-round tool loop (one zod-typed
 * tool, a scripted in-process model that answers at once) in loopgate, Vercel AI
 * SDK `generateText` and `@openai/agents` `run`, interleaved per round.
 * Target: loopgate ≤ 20 µs per step and at least 5× faster than the fastest peer.
 */
import { aiSdkContender } from './loop/ai-sdk.ts';
import { createConversation, createShared, loopgateContender } from './loop/loopgate.ts';
import { openAiAgentsContender } from './loop/openai-agents.ts';
import { checkRun, ROUNDS as TOOL_ROUNDS, STEPS_PER_RUN } from './loop/scenario.ts';
import { MemoryEventStore } from '../src/stores/memory-store.ts';
import { interleave } from './lib/interleave.ts';
import { verdict, writeResults } from './lib/results.ts';
import { median, round, summarize } from './lib/stats.ts';

const QUICK = process.env.LOOPGATE_BENCH_QUICK === '1';
const OPTIONS = { warmupRounds: QUICK ? 3 : 10, rounds: QUICK ? 10 : 60, batch: 10 };
const TARGET_US = 20;
const TARGET_RATIO = 5;

async function main(): Promise<void> {
  const shared = createShared();
  const loopgate = loopgateContender(shared);
  const aiSdk = aiSdkContender();
  const agents = openAiAgentsContender();
  for (const c of [loopgate, aiSdk, agents]) checkRun(c.name, await c.check());

  // What loopgate does in those steps (from one run): events logged, spans traced, store writes.
  let spans = 0;
  const store = new MemoryEventStore();
  const sample = createConversation(shared, { store, onTrace: (t) => (spans = t.spans.length) });
  let writes = 0;
  const append = store.append.bind(store);
  store.append = (id, records) => {
    writes++;
    return append(id, records);
  };
  await sample.turn();
  const work = { events: sample.log.length, spans, storeWrites: writes, storedEvents: store.count('bench') };

  const samples = await interleave([loopgate, aiSdk, agents], OPTIONS);
  const of = (name: string) => samples.get(name)!;
  const lg = { wall: median(of(loopgate.name).wall), cpu: median(of(loopgate.name).cpu) };
  const peers = [aiSdk.name, agents.name];
  const fastestPeer = peers.reduce((a, b) => (median(of(a).wall) <= median(of(b).wall) ? a : b));
  const ratioToFastest = median(of(fastestPeer).wall) / lg.wall;
  const ratioToFastestCpu = median(of(fastestPeer).cpu) / lg.cpu;

  const rows = [loopgate.name, ...peers].map((name) => {
    const wall = summarize(of(name).wall);
    const cpu = summarize(of(name).cpu);
    return [
      name,
      wall.median,
      `${wall.p10} – ${wall.p90}`,
      cpu.median,
      name === loopgate.name ? '1×' : `${round(wall.median / lg.wall, 2)}×`,
      name === loopgate.name ? '1×' : `${round(cpu.median / lg.cpu, 2)}×`,
    ];
  });
  writeResults(
    'loop-overhead',
    `The same ${TOOL_ROUNDS}-round tool loop (${STEPS_PER_RUN} model steps: ${TOOL_ROUNDS} calls of a zod-typed tool, then a reply) with a scripted in-process model that answers at once, run by each contender; interleaved per round, ${OPTIONS.rounds} rounds after ${OPTIONS.warmupRounds} warm-up rounds, ${OPTIONS.batch} runs per contender per round, a fresh conversation per run.`,
    [
      {
        title: 'µs per step (median over rounds)',
        columns: ['contender', 'median µs/step (wall)', 'p10 – p90 (wall)', 'median µs/step (CPU)', 'time vs loopgate (wall)', 'time vs loopgate (CPU)'],
        rows,
        notes: [
          verdict(lg.wall <= TARGET_US, `loopgate ≤ ${TARGET_US} µs per step (wall ${round(lg.wall, 1)} µs, CPU ${round(lg.cpu, 1)} µs)`),
          verdict(
            ratioToFastest >= TARGET_RATIO,
            `loopgate ≥ ${TARGET_RATIO}× faster than the fastest peer, ${fastestPeer} (wall ${round(ratioToFastest, 2)}×, CPU ${round(ratioToFastestCpu, 2)}×)`,
          ),
          `loopgate per run, everything on: ${work.events} events logged (validated, frozen, position-checked), ${work.spans} trace spans, ${work.storeWrites} store writes (an in-memory EventStore behind the host's serialized flush), the real tool pipeline (visibility, lenient parse, zod validation, policy, timeout race, output check, redaction, truncation) and secret redaction on everything logged.`,
          'Vercel AI SDK: ai 6.x `generateText` with `MockLanguageModelV3` from `ai/test` (this version ships the V3 mock; there is no `MockLanguageModelV4`), `stopWhen: stepCountIs(12)`.',
          '@openai/agents: `run` with `ScriptedModel` from `@openai/agents-core/testing`, tracing disabled (`setTracingDisabled(true)`).',
          'Wall time counts time other processes held the CPU; CPU time (user + system of this process) does not, but includes V8’s garbage-collector threads (so it can exceed wall time). The contenders share one process and heap, so garbage one leaves may be collected during another’s turn.',
        ],
      },
    ],
    {
      options: OPTIONS,
      stepsPerRun: STEPS_PER_RUN,
      loopgateWorkPerRun: work,
      usPerStep: Object.fromEntries([loopgate.name, ...peers].map((name) => [name, { wall: summarize(of(name).wall), cpu: summarize(of(name).cpu) }])),
      ratios: Object.fromEntries(
        peers.map((name) => [name, { wall: round(median(of(name).wall) / lg.wall, 3), cpu: round(median(of(name).cpu) / lg.cpu, 3) }]),
      ),
      targets: {
        usPerStep: TARGET_US,
        ratioToFastestPeer: TARGET_RATIO,
        fastestPeer,
        met: { usPerStep: lg.wall <= TARGET_US, ratio: ratioToFastest >= TARGET_RATIO },
      },
    },
  );
}

await main();
