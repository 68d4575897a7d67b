/**
 * The host's heap over many finished conversations: one AgentHost on the memory
 * store answers N one-message conversations (50 in flight at a time; a scripted
 * model that replies at once and keeps no requests), and the heap is measured
 * after a full GC every `every` conversations.
 *
 * At the end the host (and the model) are dropped and the heap measured again
 * with only the store left: the difference is what the host itself retains. The
 * memory store keeps every event of every conversation on the heap, so the total
 * grows with N whatever the host does; the host's share must not.
 *
 *   node --expose-gc bench/host-soak.ts [N] [--every K] [--json]   (N default 50,000)
 *
 * `--json` prints one JSON line (the soak test reads it); otherwise the results
 * are written to bench/results/host-soak.{json,md}.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { reply } from '../providers/fake/results.ts';
import { ScriptedModelClient } from '../providers/fake/scripted.ts';
import { defaultHostConfig } from '../src/host/config.ts';
import { AgentHost } from '../src/host/host.ts';
import { MemoryEventStore } from '../src/stores/memory-store.ts';
import { writeResults } from './lib/results.ts';

let N = 50_000;
let EVERY: number | undefined;
let JSON_ONLY = false;
for (let i = 2; i < process.argv.length; i++) {
  const arg = process.argv[i]!;
  if (arg === '--json') JSON_ONLY = true;
  else if (arg === '--every') EVERY = Number(process.argv[++i]);
  else N = Number(arg);
}
if (!(Number.isSafeInteger(N) && N > 0) || (EVERY !== undefined && !(Number.isSafeInteger(EVERY) && EVERY > 0))) {
  process.stderr.write('usage: node --expose-gc bench/host-soak.ts [N] [--every K] [--json]\n');
  process.exit(2);
}
EVERY ??= Math.max(1, Math.floor(N / 10));
const IN_FLIGHT = 50;

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  // Heap figures need a full GC: run again with it exposed (npm run bench starts benchmarks without flags).
  const again = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(again.status ?? 1);
}

function heapMiB(): number {
  gc!();
  gc!();
  return Math.round((process.memoryUsage().heapUsed / 2 ** 20) * 10) / 10;
}

export interface SoakResult {
  readonly conversations: number;
  readonly answered: number;
  /** Heap after a full GC, every EVERY conversations (the first point: the host before any). */
  readonly curve: readonly { readonly conversations: number; readonly heapMiB: number }[];
  readonly heapStartMiB: number;
  readonly heapEndMiB: number;
  /** The heap with the host and model dropped, only the store left. */
  readonly storeOnlyMiB: number;
  /** heapEnd - storeOnly: what the host (and its sessions) retain. */
  readonly hostRetainedMiB: number;
  readonly wallMs: number;
  /** Conversations the host still held in memory at the end (`undefined` for a host without `stats`). */
  readonly openConversations: number | undefined;
}

/** Waits until the host has let go of every answered conversation (a request is answered when its turn closes, just before). */
async function settled(host: AgentHost): Promise<void> {
  const idle = (host as { idle?: () => Promise<void> }).idle;
  if (typeof idle === 'function') await idle.call(host);
}

function openConversations(host: AgentHost): number | undefined {
  const stats = (host as { stats?: () => { open: number } }).stats;
  return typeof stats === 'function' ? stats.call(host).open : undefined;
}

async function soak(): Promise<SoakResult> {
  const store = new MemoryEventStore();
  let model: ScriptedModelClient | undefined = new ScriptedModelClient([], { keepRequests: false, onExhausted: () => reply('Done.') });
  let host: AgentHost | undefined = new AgentHost({ config: defaultHostConfig(), store, model, newId: counter() });
  await host.handle('warm-up', 'hello');
  const heapStartMiB = heapMiB();
  const curve = [{ conversations: 0, heapMiB: heapStartMiB }];
  let answered = 0;
  const start = performance.now();
  for (let sent = 0; sent < N; ) {
    const batch = Math.min(IN_FLIGHT, N - sent);
    const envelopes = await Promise.all(Array.from({ length: batch }, (_, i) => host!.handle(`c-${sent + i}`, 'one message')));
    answered += envelopes.filter((e) => e.reply === 'Done.').length;
    sent += batch;
    if (sent % EVERY! === 0 || sent === N) {
      await settled(host!);
      curve.push({ conversations: sent, heapMiB: heapMiB() });
    }
  }
  const wallMs = Math.round(performance.now() - start);
  const heapEndMiB = curve[curve.length - 1]!.heapMiB;
  const open = openConversations(host);
  const dropped = new WeakRef(host);
  host = undefined;
  model = undefined;
  await new Promise((resolve) => setTimeout(resolve, 0)); // a WeakRef keeps its target alive until the job ends
  const storeOnlyMiB = heapMiB();
  if (dropped.deref() !== undefined) throw new Error('the host is still reachable after it was dropped: the store-only figure would include it');
  if (store.count('c-0') === 0) throw new Error('the store lost conversation c-0');
  return {
    conversations: N,
    answered,
    curve,
    heapStartMiB,
    heapEndMiB,
    storeOnlyMiB,
    hostRetainedMiB: Math.round((heapEndMiB - storeOnlyMiB) * 10) / 10,
    wallMs,
    openConversations: open,
  };
}

function counter(): () => string {
  let n = 0;
  return () => `m${n++}`;
}

/** The same run before idle sessions were evicted (commit 73dfc37, this machine): the host kept every conversation. */
const BEFORE_EVICTION = {
  commit: '73dfc37',
  curve: [14.4, 48, 80.8, 113.2, 146.4, 178.7, 211, 245.2, 277.5, 309.8, 342.1].map((heapMiB, i) => ({ conversations: i * 5_000, heapMiB })),
  storeOnlyMiB: 110.6,
  hostRetainedMiB: 231.5,
};

const result = await soak();
if (JSON_ONLY) {
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else {
  writeResults(
    'host-soak',
    `The heap of one AgentHost (memory store, scripted model) over ${N.toLocaleString('en')} one-message conversations, ${IN_FLIGHT} in flight, measured after a full GC.`,
    [
      {
        title: 'Heap over finished conversations',
        columns: ['conversations', 'heap (MiB)', `before eviction (${BEFORE_EVICTION.commit})`],
        rows: result.curve.map((p) => [
          p.conversations.toLocaleString('en'),
          p.heapMiB,
          BEFORE_EVICTION.curve.find((b) => b.conversations === p.conversations)?.heapMiB ?? '—',
        ]),
        notes: [
          `answered ${result.answered.toLocaleString('en')} of ${N.toLocaleString('en')} in ${(result.wallMs / 1000).toFixed(1)} s`,
          `heap with only the store left (host and model dropped): ${result.storeOnlyMiB} MiB; retained by the host: ${result.hostRetainedMiB} MiB`,
          `conversations still open in the host at the end: ${result.openConversations ?? 'unknown'} (config sessions.maxIdle, default 1,000)`,
          'The memory store keeps every event on the heap, so the total grows with the conversations; what the host itself keeps must not.',
          `Before idle sessions were evicted (${BEFORE_EVICTION.commit}): store alone ${BEFORE_EVICTION.storeOnlyMiB} MiB, retained by the host ${BEFORE_EVICTION.hostRetainedMiB} MiB at 50,000.`,
        ],
      },
    ],
    { ...result, beforeEviction: BEFORE_EVICTION },
  );
}
