/**
 * A small world for the kernel's own tests: the real loop, the real tool
 * pipeline and log, a scripted model on a virtual clock, an in-memory store with
 * fault hooks, and collected traces. (The harness builds the full second host;
 * this is the minimum to drive the loop from a test.)
 */
import { ScriptedModelClient, type ScriptItem } from '../../providers/fake/scripted.ts';
import type { ModelClient } from '../../src/kernel/model/client.ts';
import { VirtualClock } from '../../src/harness/virtual-clock.ts';
import { EventLog } from '../../src/kernel/log/event-log.ts';
import type { ModelErrorHandler } from '../../src/kernel/loop/model-errors.ts';
import { AgentLoop } from '../../src/kernel/loop/runner.ts';
import { DEFAULT_LOOP_CONFIG, type CheckpointHook, type ClaimPolicy, type Compactor, type LoopConfig, type TurnResult } from '../../src/kernel/loop/types.ts';
import { project } from '../../src/kernel/projection/projection.ts';
import { createRedactor } from '../../src/kernel/redact/index.ts';
import { loopDeps } from '../../src/kernel/loop/deps.ts';
import type { ToolPolicy } from '../../src/kernel/tools/policy.ts';
import type { AnyToolDeclaration, Approver } from '../../src/kernel/tools/types.ts';
import type { VisibilityLayer } from '../../src/kernel/tools/visibility.ts';
import { Tracer, type TraceRecord } from '../../src/kernel/trace/tracer.ts';
import { MemoryEventStore } from '../../src/stores/memory-store.ts';
import { serializedFlush } from '../../src/host/flush.ts';

export interface WorldOptions {
  readonly script?: readonly ScriptItem[];
  readonly model?: ModelClient;
  readonly fallbackModels?: readonly ModelClient[];
  readonly tools?: readonly AnyToolDeclaration[];
  readonly visibility?: readonly VisibilityLayer[];
  readonly policy?: ToolPolicy;
  readonly approver?: Approver;
  readonly config?: Partial<LoopConfig>;
  readonly compactor?: Compactor;
  readonly claim?: ClaimPolicy;
  readonly checkpoints?: readonly CheckpointHook[];
  readonly errorHandlers?: readonly ModelErrorHandler[];
  readonly secrets?: readonly string[];
  readonly signals?: { parent?: AbortSignal; shutdown?: AbortSignal };
  readonly system?: string;
}

export const TEST_CONFIG: LoopConfig = {
  ...DEFAULT_LOOP_CONFIG,
  model: 'test-model',
  retry: { ...DEFAULT_LOOP_CONFIG.retry, jitter: 0 },
};

export function createWorld(options: WorldOptions = {}) {
  const clock = new VirtualClock();
  const log = new EventLog(clock);
  const model = options.model ?? new ScriptedModelClient(options.script ?? [], { clock });
  const redact = createRedactor({ secrets: options.secrets ?? [] });
  const store = new MemoryEventStore();
  const traces: TraceRecord[] = [];
  let ids = 0;
  const persist = serializedFlush(store, 'c1', log);
  const loop = new AgentLoop(
    loopDeps({
      log,
      model,
      ...(options.fallbackModels ? { fallbackModels: options.fallbackModels } : {}),
      agent: {
        tools: options.tools ?? [],
        system: options.system ?? 'You are a support agent.',
        ...(options.visibility ? { visibility: options.visibility } : {}),
        ...(options.policy ? { policy: options.policy } : {}),
        ...(options.approver ? { approver: options.approver } : {}),
        ...(options.compactor ? { compactor: options.compactor } : {}),
        ...(options.claim ? { claim: options.claim } : {}),
        ...(options.checkpoints ? { checkpoints: options.checkpoints } : {}),
        ...(options.errorHandlers ? { errorHandlers: options.errorHandlers } : {}),
      },
      clock,
      persist,
      tracing: {
        begin: (turn) => new Tracer({ clock, traceId: `c1:${turn}`, mode: 'dev', redact }),
        finish: (tracer) => {
          const record = tracer.end();
          traces.push(record);
          return record;
        },
      },
      redact,
      config: { ...TEST_CONFIG, ...options.config },
      ...(options.signals ? { signals: options.signals } : {}),
      random: () => 0.5,
      newId: () => `id${ids++}`,
    }),
  );

  return {
    clock,
    log,
    model,
    scripted: model instanceof ScriptedModelClient ? model : undefined,
    store,
    loop,
    traces,
    /** Posts a message (default: a follow-up). */
    send: (text: string, intent: 'follow_up' | 'steer' | 'inject' = 'follow_up') => loop.send(text, { intent }),
    /** Drains on the virtual clock. */
    drain: (): Promise<TurnResult[]> => clock.run(loop.drain()),
    /** Sends a follow-up and drains; returns the single turn. */
    async turn(text: string): Promise<TurnResult> {
      loop.send(text);
      const results = await clock.run(loop.drain());
      if (results.length !== 1) throw new Error(`expected one turn, got ${results.length}`);
      return results[0]!;
    },
    projection: () => project(log.events),
    types: () => log.events.map((e) => e.type),
    eventsOf<T extends string>(type: T) {
      return log.events.filter((e) => e.type === type) as unknown as { seq: number; payload: Record<string, unknown> }[];
    },
  };
}

export type World = ReturnType<typeof createWorld>;

export { renderMessages, spanShape } from '../../src/harness/render.ts';
