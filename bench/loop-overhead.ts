/**
 * Loop overhead per step, side by side: the same 10-round tool loop (one zod-typed
 * tool, a scripted in-process model that answers at once) in loopgate, Vercel AI
 * SDK `generateText`, `@openai/agents` `run` and the "limit" — a hand-written loop
 * doing the same logical work (loop/limit.ts) — interleaved per round.
 * Targets, on CPU-time medians: loopgate ≤ 10 µs per step, at least 8× cheaper
 * than the AI SDK's step, and at most 4× the limit's.
 */
import { aiSdkContender } from './loop/ai-sdk.ts';
import { createConversation, createShared, loopgateContender } from './loop/loopgate.ts';
import { limitContender } from './loop/limit.ts';
import { openAiAgentsContender } from './loop/openai-agents.ts';
import { checkRun, ROUNDS as TOOL_ROUNDS, STEPS_PER_RUN } from './loop/scenario.ts';
import { MemoryEventStore } from '../src/stores/memory-store.ts';
import { interleave } from './lib/interleave.ts';
import { verdict, writeResults } from './lib/results.ts';
import { median, round, summarize } from './lib/stats.ts';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';

/** The installed version of a package (read from node_modules: not every package exports its package.json). */
function versionOf(name: string): string {
  const file = new URL(`../node_modules/${name}/package.json`, import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}
const AI_SDK_VERSION = versionOf('ai');
const AGENTS_VERSION = versionOf('@openai/agents');

function loadAverage(): number {
  return round(loadavg()[0]!, 2);
}

const QUICK = process.env.LOOPGATE_BENCH_QUICK === '1';
// 100 warm-up rounds: 1,000 runs (11,000 steps) of each contender before anything is
// timed, so what is measured is each loop's optimized code, as a long-running host
// runs it. With 10 (100 runs) every contender was still being compiled: loopgate
// measured 2-3x its steady step, the AI SDK about 2x (see bench/README.md).
const OPTIONS = { warmupRounds: QUICK ? 10 : 100, rounds: QUICK ? 10 : 60, batch: 10 };
const TARGET_US = 10;
/** At least this many times cheaper than the AI SDK's step. */
const TARGET_RATIO = 8;
/** At most this many times the limit's step. */
const TARGET_LIMIT_RATIO = 4;

async function main(): Promise<void> {
  const shared = createShared();
  const loopgate = loopgateContender(shared);
  const aiSdk = aiSdkContender();
  const agents = openAiAgentsContender();
  const limit = limitContender();
  for (const c of [loopgate, limit, aiSdk, agents]) checkRun(c.name, await c.check());

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

  const load = loadAverage();
  const samples = await interleave([loopgate, limit, aiSdk, agents], OPTIONS);
  const loadAfter = loadAverage();
  const of = (name: string) => samples.get(name)!;
  const lg = { wall: median(of(loopgate.name).wall), cpu: median(of(loopgate.name).cpu) };
  const peers = [aiSdk.name, agents.name];
  const aiSdkRatio = { wall: median(of(aiSdk.name).wall) / lg.wall, cpu: median(of(aiSdk.name).cpu) / lg.cpu };
  const limitRatio = { wall: lg.wall / median(of(limit.name).wall), cpu: lg.cpu / median(of(limit.name).cpu) };
  const met = { usPerStep: lg.cpu <= TARGET_US, aiSdk: aiSdkRatio.cpu >= TARGET_RATIO, limit: limitRatio.cpu <= TARGET_LIMIT_RATIO };

  const rows = [loopgate.name, limit.name, ...peers].map((name) => {
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
          verdict(met.usPerStep, `loopgate ≤ ${TARGET_US} µs CPU per step (CPU ${round(lg.cpu, 1)} µs, wall ${round(lg.wall, 1)} µs)`),
          verdict(
            met.aiSdk,
            `loopgate ≥ ${TARGET_RATIO}× cheaper per step than ${aiSdk.name} (CPU ${round(aiSdkRatio.cpu, 2)}×, wall ${round(aiSdkRatio.wall, 2)}×)`,
          ),
          verdict(met.limit, `loopgate ≤ ${TARGET_LIMIT_RATIO}× the limit's step (CPU ${round(limitRatio.cpu, 2)}×, wall ${round(limitRatio.wall, 2)}×)`),
          `Targets are judged on CPU time: on a shared machine wall time also counts other processes. Load average (1 min) before and after the rounds: ${load} / ${loadAfter} on ${cpus().length} cores.`,
          `loopgate per run, everything on: ${work.events} events logged (validated, frozen, position-checked), ${work.spans} trace spans, ${work.storeWrites} store writes (an in-memory EventStore behind the host's serialized flush), the real tool pipeline (visibility, lenient parse, zod validation, policy, timeout race, output check, redaction, truncation) and secret redaction on everything logged.`,
          'limit: a hand-written loop doing the same logical work — the same events, each built from checked fields, every string redacted, frozen, positions checked; zod on arguments and output; three spans per tool step; one awaited memory-store write per step; the message list — and nothing else (loop/limit.ts).',
          `Vercel AI SDK: ai ${AI_SDK_VERSION} \`generateText\` with \`MockLanguageModelV3\` from \`ai/test\` (this version ships the V3 mock; there is no \`MockLanguageModelV4\`), \`stopWhen: stepCountIs(12)\`.`,
          `@openai/agents ${AGENTS_VERSION}: \`run\` with a minimal scripted \`Model\` (a prebuilt answer per call; not \`ScriptedModel\`, which deep-copies every request), tracing disabled (\`setTracingDisabled(true)\`); nothing read from the model inside the timed region.`,
          'Wall time counts time other processes held the CPU; CPU time (user + system of this process) does not, but includes V8’s garbage-collector threads (so it can exceed wall time). The contenders share one process and heap, so garbage one leaves may be collected during another’s turn.',
        ],
      },
    ],
    {
      options: OPTIONS,
      stepsPerRun: STEPS_PER_RUN,
      loadAverage: { before: load, after: loadAfter, cores: cpus().length },
      versions: { ai: AI_SDK_VERSION, '@openai/agents': AGENTS_VERSION },
      loopgateWorkPerRun: work,
      usPerStep: Object.fromEntries(
        [loopgate.name, limit.name, ...peers].map((name) => [name, { wall: summarize(of(name).wall), cpu: summarize(of(name).cpu) }]),
      ),
      ratios: Object.fromEntries(
        peers.map((name) => [name, { wall: round(median(of(name).wall) / lg.wall, 3), cpu: round(median(of(name).cpu) / lg.cpu, 3) }]),
      ),
      limitName: limit.name,
      ratioToLimit: { wall: round(limitRatio.wall, 3), cpu: round(limitRatio.cpu, 3) },
      targets: {
        judgedOn: 'cpu',
        usPerStep: TARGET_US,
        ratioToAiSdk: TARGET_RATIO,
        ratioToLimit: TARGET_LIMIT_RATIO,
        aiSdk: aiSdk.name,
        met,
      },
    },
  );
}

await main();
