/**
 * loopgate as production runs it: the real `AgentHost` (conversation lock, write-
 * behind with durability barriers, envelope, trace per turn) over the SQLite store
 * (WAL, synchronous=NORMAL, group commit) in a temporary file. Same tool, same
 * scripted model as the other contenders; a fresh conversation per run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultHostConfig } from '../../src/host/config.ts';
import { AgentHost } from '../../src/host/host.ts';
import { defineTool } from '../../src/kernel/tools/define-tool.ts';
import type { EventStore } from '../../src/stores/event-store.ts';
import { SqliteEventStore } from '../../src/stores/sqlite-store.ts';
import { BENCH_CONFIG, BenchModel } from './loopgate.ts';
import { add, addInput, addOutput, PROMPT, STEPS_PER_RUN, SYSTEM, TOOL_DESCRIPTION, TOOL_NAME } from './scenario.ts';

/** `makeStore` swaps the SQLite file for another store (profiling: the host's own cost without SQLite's). */
export function loopgateHostContender<S extends EventStore = SqliteEventStore>(makeStore?: () => S) {
  const dir = mkdtempSync(join(tmpdir(), 'loopgate-bench-host-'));
  const store = makeStore ? makeStore() : (new SqliteEventStore(join(dir, 'events.db')) as unknown as S);
  let toolRuns = 0;
  const model = new BenchModel();
  const base = defaultHostConfig();
  const host = new AgentHost({
    config: {
      ...base,
      model: { ...base.model, name: BENCH_CONFIG.model },
      prompt: { ...base.prompt, identity: SYSTEM },
      budgets: { ...base.budgets, maxSteps: STEPS_PER_RUN + 1, maxToolCallsPerSession: 1_000_000 },
      // A finished conversation is not kept in memory: each run opens a new one.
      sessions: { maxIdle: 0, idleTimeoutMs: 1 },
    },
    store,
    model,
    tools: [
      defineTool({
        name: TOOL_NAME,
        description: TOOL_DESCRIPTION,
        input: addInput,
        output: addOutput,
        sideEffect: 'NONE',
        run: (args) => {
          toolRuns++;
          return add(args);
        },
      }),
    ],
    secrets: [],
  });
  let conversations = 0;
  const once = async () => {
    const calls = model.calls;
    const envelope = await host.handle(`bench-${conversations++}`, PROMPT);
    const turn = envelope.turns[0];
    if (envelope.status !== 200 || !turn) throw new Error(`bench: the host answered ${envelope.status}: ${envelope.error ?? JSON.stringify(envelope.turns)}`);
    return { steps: turn.steps, reply: envelope.reply, modelCalls: model.calls - calls };
  };
  return {
    name: 'loopgate AgentHost + SQLite',
    async run(): Promise<number> {
      return (await once()).steps;
    },
    async check() {
      const before = toolRuns;
      const { reply, modelCalls } = await once();
      return { toolRuns: toolRuns - before, finalText: reply, modelCalls };
    },
    /** The store, for counting its writes. */
    store,
    async close(): Promise<void> {
      await host.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
