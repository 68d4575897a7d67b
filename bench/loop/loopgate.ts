/**
 * loopgate's side of the loop benchmark: the real AgentLoop with everything a
 * production host gives it — the event log, a real (in-memory) store behind a
 * serialized persist, the real tool pipeline (registry, zod validation, policy,
 * redaction, truncation), a real prompt assembler, the default secret redactor
 * and a tracer per turn. The clock is the system clock. Only the model is fake:
 * an in-process client that answers at once.
 */
import type { ModelClient, ModelRequest, ModelResult } from '../../src/kernel/model/client.ts';
import { systemClock } from '../../src/kernel/clock.ts';
import type { AnyEvent } from '../../src/kernel/log/envelope.ts';
import { EventLog } from '../../src/kernel/log/event-log.ts';
import { loopDeps } from '../../src/kernel/loop/deps.ts';
import { AgentLoop } from '../../src/kernel/loop/runner.ts';
import { DEFAULT_LOOP_CONFIG, type Compactor, type LoopConfig, type TurnResult } from '../../src/kernel/loop/types.ts';
import { PRIORITY, PromptAssembler } from '../../src/kernel/prompt/assembler.ts';
import { createRedactor, type Redactor } from '../../src/kernel/redact/index.ts';
import { defineTool } from '../../src/kernel/tools/define-tool.ts';
import { createToolExecutor } from '../../src/kernel/tools/pipeline.ts';
import { ToolRegistry } from '../../src/kernel/tools/registry.ts';
import type { ToolExecutor } from '../../src/kernel/tools/types.ts';
import { Tracer, type TraceRecord } from '../../src/kernel/trace/tracer.ts';
import type { EventStore } from '../../src/stores/event-store.ts';
import { MemoryEventStore } from '../../src/stores/memory-store.ts';
import { serializedFlush } from '../../src/host/flush.ts';
import { add, addInput, addOutput, argsAt, FINAL_TEXT, PROMPT, STEPS_PER_RUN, SYSTEM, TOOL_DESCRIPTION, TOOL_NAME } from './scenario.ts';

const USAGE = Object.freeze({ inputTokens: 20, outputTokens: 10 });

/**
 * The scripted model: each turn calls the tool `rounds` times (one call per step),
 * then replies. Call ids are unique across the conversation, as a provider's are.
 */
export class BenchModel implements ModelClient {
  readonly name = 'bench-scripted';
  calls = 0;
  readonly #rounds: number;
  readonly #idPrefix: string;
  #step = 0;

  constructor(options: { rounds?: number; idPrefix?: string } = {}) {
    this.#rounds = options.rounds ?? STEPS_PER_RUN - 1;
    this.#idPrefix = options.idPrefix ?? 'call_';
  }

  call(_request: ModelRequest): Promise<ModelResult> {
    const step = this.#step;
    this.#step = step === this.#rounds ? 0 : step + 1;
    const id = `${this.#idPrefix}${this.calls++}`;
    if (step === this.#rounds) {
      return Promise.resolve({ type: 'reply', content: [{ type: 'text', text: FINAL_TEXT }], text: FINAL_TEXT, usage: USAGE, stopReason: 'end_turn' });
    }
    const args = argsAt(step);
    return Promise.resolve({
      type: 'tool_use',
      content: [{ type: 'tool_call', id, name: TOOL_NAME, args }],
      calls: [{ id, name: TOOL_NAME, args }],
      text: '',
      usage: USAGE,
      stopReason: 'tool_use',
    });
  }
}

export interface Shared {
  readonly redact: Redactor;
  readonly tools: ToolExecutor;
  readonly prompt: PromptAssembler;
  /** Tool executions, across conversations. */
  readonly toolRuns: { count: number };
}

/** What a host builds once and shares between conversations. */
export function createShared(): Shared {
  const toolRuns = { count: 0 };
  const redact = createRedactor({ secrets: [] });
  const tools = createToolExecutor({
    registry: new ToolRegistry([
      defineTool({
        name: TOOL_NAME,
        description: TOOL_DESCRIPTION,
        input: addInput,
        output: addOutput,
        sideEffect: 'NONE',
        run: (args) => {
          toolRuns.count++;
          return add(args);
        },
      }),
    ]),
    redact,
  });
  const prompt = new PromptAssembler();
  prompt.register({ id: 'identity', priority: PRIORITY.identity, text: SYSTEM });
  return { redact, tools, prompt, toolRuns };
}

export const BENCH_CONFIG: LoopConfig = {
  ...DEFAULT_LOOP_CONFIG,
  model: 'bench',
  maxSteps: STEPS_PER_RUN + 1,
  maxToolCallsPerSession: Number.MAX_SAFE_INTEGER,
};

export interface ConversationOptions {
  readonly id?: string;
  readonly store?: EventStore;
  /** Events already stored (decoded), to continue a conversation. */
  readonly existing?: readonly AnyEvent[];
  readonly compactor?: Compactor;
  readonly onTrace?: (trace: TraceRecord) => void;
  /** Tool rounds per turn (default the scenario's). */
  readonly rounds?: number;
  /** Prefix of the model's call ids (unique per conversation). */
  readonly idPrefix?: string;
}

export function createConversation(shared: Shared, options: ConversationOptions = {}) {
  const id = options.id ?? 'bench';
  const log = new EventLog(systemClock, options.existing ?? []);
  const store = options.store ?? new MemoryEventStore();
  const model = new BenchModel({
    ...(options.rounds !== undefined ? { rounds: options.rounds } : {}),
    ...(options.idPrefix ? { idPrefix: options.idPrefix } : {}),
  });
  // The host's serialized flush: one store append per persist, carrying the new events.
  const persist = serializedFlush(store, id, log);
  let ids = 0;
  const loop = new AgentLoop(
    loopDeps({
      log,
      model,
      tools: shared.tools,
      prompt: shared.prompt,
      clock: systemClock,
      persist,
      tracing: {
        begin: (turn) => new Tracer({ clock: systemClock, traceId: `${id}:${turn}`, mode: 'production', redact: shared.redact }),
        finish: (tracer) => {
          const record = tracer.end();
          options.onTrace?.(record);
          return record;
        },
      },
      redact: shared.redact,
      config: BENCH_CONFIG,
      ...(options.compactor ? { agent: { compactor: options.compactor } } : {}),
      newId: () => `${options.idPrefix ?? `${id}-`}m${ids++}`,
    }),
  );
  return {
    log,
    loop,
    model,
    store,
    /** Writes the log's unflushed events to the store (the host's flush). */
    persist,
    /** One user message, drained to the end of its turn. */
    async turn(text = PROMPT): Promise<TurnResult> {
      loop.send(text);
      const results = await loop.drain();
      const result = results[0];
      if (results.length !== 1 || !result) throw new Error(`bench: expected one turn, got ${results.length}`);
      return result;
    },
  };
}

export type Conversation = ReturnType<typeof createConversation>;

/** The benchmark unit: a fresh conversation running the scenario once. */
export function loopgateContender(shared = createShared()) {
  return {
    name: 'loopgate',
    async run(): Promise<number> {
      const conversation = createConversation(shared);
      const result = await conversation.turn();
      if (result.outcome.kind !== 'replied') throw new Error(`bench: loopgate turn ended ${JSON.stringify(result.outcome)}`);
      return result.steps;
    },
    /** One run, checked: the tool ran every round and the reply came back. */
    async check() {
      const before = shared.toolRuns.count;
      const conversation = createConversation(shared);
      const result = await conversation.turn();
      return { toolRuns: shared.toolRuns.count - before, finalText: result.reply, modelCalls: conversation.model.calls };
    },
  };
}
