/**
 * The harness at scale: wall time of `loopgate run` on the bundled suite (target
 * < 30 s on a 2-core machine), fuzzed turns per second (target ≥ 5,000, DESIGN.md's
 * performance targets), and the
 * peak memory of 1,000 concurrent conversations in one host. Each part runs in a
 * process of its own, so one cannot warm or fill the heap of another.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, round } from './lib/stats.ts';
import { verdict, writeResults, type Table } from './lib/results.ts';

const QUICK = process.env.LOOPGATE_BENCH_QUICK === '1';
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const NODE = join(ROOT, 'node_modules', '.bin', 'node');
const SUITE_RUNS = QUICK ? 1 : 3;
const FUZZ_SECONDS = QUICK ? 3 : 10;
const CONVERSATIONS = 1_000;
/** DESIGN.md, performance targets: fuzzing ≥ 5,000 turns per second. */
const FUZZ_TARGET_TURNS_PER_SECOND = 5_000;
const FUZZ_TARGET = `≥ ${FUZZ_TARGET_TURNS_PER_SECOND.toLocaleString('en')}`;

function run(args: readonly string[], what: string): string {
  const child = spawnSync(NODE, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 2 ** 20, env: { ...process.env, NO_COLOR: '1' } });
  if (child.error) throw new Error(`bench: ${what} could not start: ${child.error.message}`);
  if (child.status !== 0) throw new Error(`bench: ${what} exited ${child.status}: ${child.stderr.slice(-2000)}`);
  return child.stdout;
}

function lastJson(output: string): Record<string, unknown> {
  const line = output.trim().split('\n').pop() ?? '';
  return JSON.parse(line) as Record<string, unknown>;
}

async function main(): Promise<void> {
  // loopgate run on the bundled suite, as a user runs it.
  const suite: { ms: number; cases: number; passed: number; failed: number; skipped: number }[] = [];
  for (let i = 0; i < SUITE_RUNS; i++) {
    const out = mkdtempSync(join(tmpdir(), 'loopgate-bench-run-'));
    try {
      const start = performance.now();
      const child = spawnSync(NODE, ['bin/loopgate.js', 'run', '--reporter', 'json', '--out', out], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
      const ms = performance.now() - start;
      if (child.error) throw new Error(`bench: loopgate run could not start: ${child.error.message}`);
      const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as { summary?: Record<string, number>; cases?: { status?: string }[] };
      const cases = results.cases ?? [];
      const count = (status: string) => cases.filter((c) => c.status === status).length;
      suite.push({ ms, cases: cases.length, passed: count('passed'), failed: count('failed'), skipped: count('skipped') });
      if (child.status !== 0) process.stderr.write(`note: loopgate run exited ${child.status} (failing cases are timed all the same)\n`);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }
  const suiteSeconds = median(suite.map((s) => s.ms)) / 1000;

  const fuzz = lastJson(run(['bench/harness/fuzz-throughput.ts', String(FUZZ_SECONDS), '1'], 'the fuzz throughput run'));
  const memory = lastJson(run(['--expose-gc', 'bench/harness/host-memory.ts', String(CONVERSATIONS)], 'the host memory run')) as {
    wallMs: number;
    modelLatencyMs: number;
    mib: Record<string, number>;
    kibPerConversation: Record<string, number>;
  };

  const tables: Table[] = [
    {
      title: 'The harness',
      columns: ['measure', 'result', 'target'],
      rows: [
        [
          `\`loopgate run\` on the bundled suite (${suite[0]!.cases} cases, median of ${SUITE_RUNS} runs, wall)`,
          `${round(suiteSeconds, 2)} s`,
          verdict(suiteSeconds < 30, '< 30 s'),
        ],
        fuzz.skipped
          ? ['fuzzed turns per second', `skipped: ${String(fuzz.skipped)}`, FUZZ_TARGET]
          : [
              `fuzzed turns per second (${FUZZ_SECONDS} s, seed ${String(fuzz.seed)}, ${String(fuzz.properties)} properties, ${String(fuzz.runs)} cases)`,
              `${Number(fuzz.turnsPerSecond).toLocaleString('en')} turns/s wall, ${Number(fuzz.turnsPerCpuSecond).toLocaleString('en')} per CPU-second (${Number(fuzz.runsPerSecond).toLocaleString('en')} cases/s)`,
              verdict(Number(fuzz.turnsPerSecond) >= FUZZ_TARGET_TURNS_PER_SECOND, FUZZ_TARGET),
            ],
        [
          `peak heap, ${CONVERSATIONS.toLocaleString('en')} concurrent conversations in one AgentHost (memory store)`,
          `${memory.mib.heapPeak} MiB (${memory.kibPerConversation.heapPeak} KiB per conversation above the idle host's ${memory.mib.heapBefore} MiB)`,
          '—',
        ],
        [`peak RSS, same`, `${memory.mib.rssPeak} MiB (idle host ${memory.mib.rssBefore} MiB)`, '—'],
        [
          `heap once all are answered (sessions still open, after GC)`,
          `${memory.mib.heapAfter} MiB (${memory.kibPerConversation.heapRetained} KiB per open conversation)`,
          '—',
        ],
      ],
      notes: [
        `Suite runs: ${suite.map((s) => `${round(s.ms / 1000, 2)} s (${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped)`).join(', ')}. The suite runs on a virtual clock: backoffs and timeouts cost no real time.`,
        `Concurrent conversations: every turn calls the zod-typed tool once and replies; each model call waits ${memory.modelLatencyMs} ms (a timer), so all ${CONVERSATIONS.toLocaleString('en')} turns are in flight together; memory sampled every 5 ms; all answered in ${memory.wallMs} ms.`,
        fuzz.failure ? `The fuzz run found a violation: ${String(fuzz.failure)}` : 'The fuzz run found no violation.',
      ],
    },
  ];
  writeResults('harness', 'The regression harness and the host at scale.', tables, { suite, suiteSeconds: round(suiteSeconds, 3), fuzz, memory });
}

await main();
