/**
 * `npm run bench`: every benchmark, each in a process of its own (one cannot warm
 * or fill the heap of the next), then bench/results/summary.md — each target,
 * what was measured, met or not. Never part of `npm test`.
 *
 *   LOOPGATE_BENCH_QUICK=1            fewer rounds (a smoke run, minutes → seconds)
 *   LOOPGATE_BENCH_POSTGRES_URL=...   include PostgreSQL in the store benchmark
 *                                     (LOOPGATE_TEST_POSTGRES_URL works too)
 *   LOOPGATE_BENCH_RESULTS=dir        write results elsewhere
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machine, machineLine } from './lib/machine.ts';
import { markdownTable, RESULTS_DIR } from './lib/results.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const BENCHES = ['loop-overhead', 'host-sqlite', 'growth', 'stores', 'harness', 'cli-startup', 'host-soak'] as const;

function runBench(name: string): number {
  process.stdout.write(`\n=== bench/${name}.ts\n`);
  const start = performance.now();
  const child = spawnSync(process.execPath, [join(HERE, `${name}.ts`)], { stdio: 'inherit', env: process.env });
  if (child.error) throw new Error(`bench/${name}.ts could not start: ${child.error.message}`);
  if (child.status !== 0) throw new Error(`bench/${name}.ts failed (exit ${child.status ?? child.signal})`);
  return (performance.now() - start) / 1000;
}

function read(name: string): { data: Record<string, any> } {
  return JSON.parse(readFileSync(join(RESULTS_DIR, `${name}.json`), 'utf8')) as { data: Record<string, any> };
}

const mark = (ok: boolean) => (ok ? '✓' : '✗');

function main(): void {
  const seconds: Record<string, number> = {};
  for (const name of BENCHES) seconds[name] = runBench(name);

  const loop = read('loop-overhead').data;
  const growth = read('growth').data;
  const stores = read('stores').data;
  const harness = read('harness').data;
  const startup = read('cli-startup').data;
  const soak = read('host-soak').data;
  const hostSqlite = read('host-sqlite').data;
  const group = stores.targets.groupCommit;
  const groupRate = stores.groupCommit.find((g: { conversations: number }) => g.conversations === group.conversations);
  const reopen = stores.targets.reopenMs;
  const reopenCase = stores.reopenFromSnapshot.find((r: { tail: number | undefined }) => r.tail === reopen.tail);
  const lg = loop.usPerStep.loopgate;
  const aiSdk = loop.targets.aiSdk as string;
  const ratio = loop.ratios[aiSdk];
  const toLimit = loop.ratioToLimit as { wall: number; cpu: number };
  const sqliteName = Object.keys(stores.appendEventsPerSecond).find((k) => k.startsWith('SQLite'))!;
  const sqlite = stores.appendEventsPerSecond[sqliteName].median as number;
  const rows: (string | number)[][] = [
    [
      'loop overhead per step (loopgate, log + store + trace on)',
      '≤ 10 µs CPU',
      `${lg.cpu.median} µs CPU, ${lg.wall.median} µs wall (load ${loop.loadAverage.before} on ${loop.loadAverage.cores} cores)`,
      mark(lg.cpu.median <= 10),
    ],
    [`cheaper than ${aiSdk}`, '≥ 8× CPU', `${ratio.cpu}× CPU, ${ratio.wall}× wall`, mark(ratio.cpu >= 8)],
    ...Object.entries(loop.ratios as Record<string, { wall: number; cpu: number }>)
      .filter(([name]) => name !== aiSdk)
      .map(([name, r]) => [`cheaper than ${name}`, '—', `${r.cpu}× CPU, ${r.wall}× wall`, '']),
    [`against the limit (${loop.limitName})`, '≤ 4× CPU', `${toLimit.cpu}× CPU, ${toLimit.wall}× wall`, mark(toLimit.cpu <= 4)],
    [
      'growth: 100,000-event step vs 10-event step',
      '≤ 1.2× CPU',
      `${growth.ratio100kTo10.cpu}× CPU, ${growth.ratio100kTo10.wall}× wall (10,000 events: ${growth.ratio10kTo10.cpu}× CPU)`,
      mark(growth.ratio100kTo10.cpu <= 1.2),
    ],
    ['SQLite batched append (one batch per step)', '≥ 100,000 events/s', `${Math.round(sqlite).toLocaleString('en')} events/s`, mark(sqlite >= 100_000)],
    [
      `SQLite, ${group.conversations} conversations writing at once (group commit)`,
      '≥ 150,000 events/s (CPU)',
      `${Math.round(groupRate.store.cpu.median).toLocaleString('en')} events/s CPU, ${Math.round(groupRate.store.wall.median).toLocaleString('en')} wall (raw node:sqlite ${Math.round(groupRate.raw.cpu.median).toLocaleString('en')} CPU)`,
      mark(group.met),
    ],
    [
      `reopen the ${Number(stores.events).toLocaleString('en')}-event conversation (snapshot ${Number(reopen.tail).toLocaleString('en')} events behind)`,
      '≤ 100 ms (CPU)',
      `${reopenCase.ms.cpu.median} ms CPU, ${reopenCase.ms.total.median} ms wall`,
      mark(reopen.met),
    ],
    [
      'AgentHost on SQLite vs the AI SDK in memory, per step',
      '≥ 3× cheaper (CPU)',
      `${hostSqlite.ratioAiSdkToHost.cpu}× CPU, ${hostSqlite.ratioAiSdkToHost.wall}× wall (host ${hostSqlite.usPerStep['loopgate AgentHost + SQLite'].cpu.median} µs CPU/step)`,
      mark(hostSqlite.targets.met),
    ],
    ['PostgreSQL in the store benchmark', '—', stores.postgres.skipped ? `skipped: ${stores.postgres.skipped}` : 'ran', ''],
    ['`loopgate run`, bundled suite', '< 30 s', `${harness.suiteSeconds} s`, mark(harness.suiteSeconds < 30)],
    [
      'fuzzed turns per second',
      '≥ 5,000',
      harness.fuzz.skipped ? `skipped: ${harness.fuzz.skipped}` : `${Number(harness.fuzz.turnsPerSecond).toLocaleString('en')}`,
      harness.fuzz.skipped ? '' : mark(harness.fuzz.turnsPerSecond >= 5000),
    ],
    ['1,000 concurrent conversations, one host: peak heap / RSS', '—', `${harness.memory.mib.heapPeak} MiB / ${harness.memory.mib.rssPeak} MiB`, ''],
    ['`loopgate --help`, a fresh process', '< 500 ms', `${Math.round(startup.helpMedianMs)} ms (median wall)`, mark(startup.helpMedianMs < 500)],
    [
      '`loopgate run`, fixed start-up (bundled suite loaded, no case run)',
      '≤ 2 s',
      startup.runStartupMedianMs === undefined
        ? 'not measured'
        : `${Math.round(startup.runStartupMedianMs)} ms wall, ${Math.round(startup.runStartupCpuMedianMs)} ms CPU (${startup.ran})`,
      startup.runStartupMedianMs === undefined ? '' : mark(startup.runStartupMedianMs <= 2_000),
    ],
    [
      `${Number(soak.conversations).toLocaleString('en')} finished conversations, one host: heap retained by the host`,
      '≤ 32 MiB',
      `${soak.hostRetainedMiB} MiB (store alone ${soak.storeOnlyMiB} MiB)`,
      mark(soak.hostRetainedMiB <= 32),
    ],
  ];
  const summary = [
    '# Benchmark summary',
    '',
    `Machine: ${machineLine(machine())}. Written by \`npm run bench\` (${Object.entries(seconds)
      .map(([n, s]) => `${n} ${Math.round(s)} s`)
      .join(', ')}); details in the other files here, profiling notes in profile-notes.md.`,
    '',
    markdownTable({ title: 'Targets', columns: ['what', 'target', 'measured', 'met'], rows }),
    '',
  ].join('\n');
  writeFileSync(join(RESULTS_DIR, 'summary.md'), summary);
  process.stdout.write(`\n${summary}\nwrote ${join(RESULTS_DIR, 'summary.md')}\n`);
}

main();
