/**
 * The second host (seed 004 rule 2): the same, unmodified loop — imported only
 * through the kernel's public entry — wired to a world built for one case: an
 * in-memory store with fault hooks, a scripted provider, scripted tools over the
 * example agent's backend, a collecting trace exporter and a virtual clock.
 *
 * Everything that varies comes from the scenario and the seed, so a case runs the
 * same way every time.
 */
import { z } from 'zod';
import { ScriptedModelClient, type ScriptedEntry } from '../../providers/fake/scripted.ts';
import { call as toolCall, maxTokens, overflow, refusal, reply, toolUse, transportError, unknownStop } from '../../providers/fake/results.ts';
import {
  AgentLoop,
  createRedactor,
  createToolExecutor,
  DEFAULT_LOOP_CONFIG,
  EventLog,
  ToolFailure,
  ToolRegistry,
  Tracer,
  type AnyToolDeclaration,
  type Approver,
  type CheckpointHook,
  type ClaimPolicy,
  type Compactor,
  type LoopConfig,
  type LoopDeps,
  type Message,
  type ModelClient,
  type ModelDelta,
  type ModelErrorHandler,
  type ModelRequest,
  type ModelResult,
  type PolicyRule,
  type ToolExecutor,
  type ToolExecutorOptions,
  type TraceRecord,
  type TurnResult,
  type Usage,
} from '../kernel/index.ts';
import { SupportBackend } from '../../scenarios/example-agent/backend.ts';
import { supportTools } from '../../scenarios/example-agent/tools.ts';
import { SUPPORT_SYSTEM_PROMPT } from '../../scenarios/example-agent/prompt.ts';
import { serializedFlush } from '../host/flush.ts';
import { MemoryEventStore, type MemoryStoreFaults } from '../stores/memory-store.ts';
import type { Behaviour, InboxEntry, ProviderStep, Scenario, ScenarioTool } from './scenario/schema.ts';
import { VirtualClock } from './virtual-clock.ts';
import { wireProvider } from './wire-provider.ts';

/** What a sent request looked like (the signal stripped). */
export type SentRequest = Omit<ModelRequest, 'signal'>;

export interface ScenarioRun {
  readonly scenario: Scenario;
  readonly results: readonly TurnResult[];
  readonly log: EventLog;
  readonly store: MemoryEventStore;
  readonly requests: readonly SentRequest[];
  readonly traces: readonly TraceRecord[];
  readonly backend: SupportBackend;
  /** Tool bodies that actually ran, by tool name, and by call id. */
  readonly executions: ReadonlyMap<string, number>;
  readonly executionsByCall: ReadonlyMap<string, number>;
  readonly sideEffectLevels: ReadonlyMap<string, string>;
  readonly virtualMs: number;
  /** Set if the loop (or the world) threw — a bug: nothing may throw across the loop's boundary. */
  readonly thrown?: unknown;
  /** Faults the scenario injected, for the report's timeline. */
  readonly faults: readonly { readonly at: number; readonly label: string }[];
  /** How each provider call settled, aligned with `requests` (for provider-contract checks). */
  readonly responses: readonly ProviderCall[];
  /** `durableBefore[k]`: events the store held when event k was appended — what a crash at event k leaves. */
  readonly durableBefore: readonly number[];
  /** The loop's own incremental projection when the run ended. */
  readonly finalProjection: readonly Message[];
  /** The loop configuration the scenario ran with. */
  readonly config: LoopConfig;
  /** Batch appends the store was asked for, and which of them (1-based) failed. */
  readonly storeWrites: { readonly attempts: number; readonly failed: readonly number[] };
  /** Parts the host supplied in place of the scenario's (RunOptions): checks that predict from the scenario alone skip these runs. */
  readonly hostParts: readonly HostPart[];
}

export type HostPart = 'model' | 'claim' | 'errorHandlers' | 'tools' | 'seams';

/** One provider call as the harness saw it, inside its recording. */
export interface ProviderCall {
  /** `result`: settled with a result; `rejected`: the promise rejected or the call threw (a contract violation); `pending`: still open when the run ended. */
  readonly settled: 'result' | 'rejected' | 'pending';
  readonly result?: ModelResult;
  readonly error?: string;
  /** Deltas streamed after the call settled (a contract violation). */
  readonly lateDeltas: number;
}

/**
 * Test-only seams: swap one part of the world for a deliberately broken one, so
 * the fuzzer's own tests can show it finds the bug (src/fuzz/README.md). `loopgate
 * run` never sets them; a scenario file cannot.
 */
export interface TestSeams {
  /** Builds the store in place of the in-memory one; it must run the fault hooks it is given. */
  readonly store?: (faults: MemoryStoreFaults) => MemoryEventStore;
  /** Wraps each scripted provider client, inside the recording (the harness sees what it returns). */
  readonly wrapModel?: (client: ModelClient) => ModelClient;
  /** Wraps the tool executor the loop is given; `options` are the ones the real executor was built with. */
  readonly wrapTools?: (executor: ToolExecutor, options: ToolExecutorOptions) => ToolExecutor;
  /** Rewrites the loop's dependencies just before the loop is built (a loop variant). */
  readonly wrapDeps?: (deps: LoopDeps) => LoopDeps;
}

/** A small, seedable PRNG (mulberry32). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface RunOptions {
  readonly seed: number;
  /** Replaces the scenario's provider (live runs, wire-level providers). */
  readonly model?: ModelClient;
  /** Real-time limit while waiting on I/O with no virtual timer pending. */
  readonly realWaitLimitMs?: number;
  /** Parts a scenario file cannot express (state-table fixtures use them). */
  readonly claim?: ClaimPolicy;
  readonly errorHandlers?: readonly ModelErrorHandler[];
  /** A case whose log grows past this is stopped as a runaway. Default 20 000. */
  readonly maxEvents?: number;
  /** The model name the loop asks for (live runs name a real model). */
  readonly modelName?: string;
  /** Your agent's tools, in place of the example agent's (scenario `tools:` entries still override them). */
  readonly tools?: readonly AnyToolDeclaration[];
  /** Your agent's system prompt (a scenario's `system:` still wins). */
  readonly system?: string;
  /** Test-only: see TestSeams. */
  readonly seams?: TestSeams;
}

export async function runScenario(scenario: Scenario, options: RunOptions): Promise<ScenarioRun> {
  const clock = new VirtualClock();
  const log = new EventLog(clock);
  const random = seededRandom(options.seed);
  const faults: { at: number; label: string }[] = [];
  const fault = (label: string) => faults.push({ at: clock.now(), label });

  // --- store, with injected append failures -----------------------------------
  let appendCount = 0;
  const failedAppends: number[] = [];
  const failAppends = new Set(scenario.store?.failAppends ?? []);
  const storeFaults: MemoryStoreFaults = {
    beforeAppend: () => {
      appendCount++;
      if (failAppends.has(appendCount)) {
        fault(`store append ${appendCount} fails`);
        failedAppends.push(appendCount);
        throw new Error(`injected store failure on append ${appendCount}`);
      }
    },
  };
  const store = options.seams?.store ? options.seams.store(storeFaults) : new MemoryEventStore({ faults: storeFaults });
  const persist = serializedFlush(store, 'case', log);

  // --- triggers ---------------------------------------------------------------
  let loop: AgentLoop | undefined;
  const byRequest = new Map<number, InboxEntry[]>();
  const byToolStart = new Map<string, InboxEntry[]>();
  const timed: InboxEntry[] = [];
  const sequential: InboxEntry[] = [];
  for (const entry of scenario.inbox) {
    if (!entry.at) sequential.push(entry);
    else if (entry.at.request !== undefined) push(byRequest, entry.at.request, entry);
    else if (entry.at.toolStart !== undefined) push(byToolStart, entry.at.toolStart, entry);
    else timed.push(entry);
  }
  // Like a host: a follow-up or steer wakes the loop (a drain after the running
  // one); an inject or a cancel never does. Results are collected once, in order.
  const results: TurnResult[] = [];
  let drains: Promise<void> = Promise.resolve();
  const wake = () => {
    drains = drains.then(async () => {
      await persist().catch(() => undefined); // the message is stored before the turn starts
      results.push(...(await loop!.drain()));
    });
    return drains;
  };
  const perform = (entry: InboxEntry): Promise<void> | undefined => {
    if (!loop) return undefined;
    if (entry.say !== undefined) {
      loop.send(entry.say, { intent: 'follow_up' });
      return wake();
    }
    if (entry.steer !== undefined) {
      loop.send(entry.steer, { intent: 'steer' });
      return loop.busy ? undefined : wake(); // a running turn takes it at its next step
    }
    if (entry.inject !== undefined) {
      loop.send(entry.inject, { intent: 'inject' });
      return undefined;
    }
    if (entry.cancel !== undefined) {
      fault(`cancel by ${entry.cancel}`);
      loop.cancel(entry.cancel, `scenario: cancel by ${entry.cancel}`);
    }
    return undefined;
  };

  // --- the provider -----------------------------------------------------------
  const requests: SentRequest[] = [];
  const responses: { settled: ProviderCall['settled']; result?: ModelResult; error?: string; lateDeltas: number }[] = [];
  const callIds = { next: 1 };
  const recording = (inner: ModelClient): ModelClient => ({
    name: inner.name,
    call(request: ModelRequest, onDelta?: (d: ModelDelta) => void) {
      const { signal: _signal, ...sent } = request;
      requests.push(sent);
      const response: (typeof responses)[number] = { settled: 'pending', lateDeltas: 0 };
      responses.push(response);
      for (const entry of byRequest.get(requests.length) ?? []) perform(entry);
      const settle = (settled: ProviderCall['settled'], result?: ModelResult, error?: unknown) => {
        if (response.settled !== 'pending') return;
        response.settled = settled;
        if (result !== undefined) response.result = result;
        if (error !== undefined) response.error = error instanceof Error ? error.message : String(error);
      };
      let call: Promise<ModelResult>;
      try {
        call = inner.call(request, (delta) => {
          if (response.settled !== 'pending') response.lateDeltas++;
          onDelta?.(delta);
        });
      } catch (error) {
        settle('rejected', undefined, error);
        throw error;
      }
      Promise.resolve(call).then(
        (result) => settle('result', result),
        (error: unknown) => settle('rejected', undefined, error),
      );
      return call;
    },
  });
  const wrapModel = options.seams?.wrapModel ?? ((client: ModelClient) => client);
  const scripted = (steps: readonly ProviderStep[], name: string): ModelClient =>
    wrapModel(
      new ScriptedModelClient(
        steps.map((step) => (): ScriptedEntry => {
          const entry = toEntry(step, callIds);
          if (
            entry.result.type === 'transport_error' ||
            entry.result.type === 'context_window_exceeded' ||
            entry.result.type === 'refusal' ||
            entry.result.type === 'unknown' ||
            entry.result.type === 'max_tokens'
          ) {
            fault(`provider: ${describeStep(step)}`);
          }
          return entry;
        }),
        {
          name,
          clock,
          onExhausted: (_request, index) =>
            transportError('invalid_request', { message: `scenario provider script exhausted at request ${index + 1}: add a step` }),
        },
      ),
    );
  // A wire-level provider: the real SDK parses the provider's protocol, written by the wire fake.
  const wire =
    !options.model && scenario.provider.kind === 'wire' ? wireProvider(scenario.provider.provider!, scenario.provider.script, 'scenario-model') : undefined;
  const real = options.model ?? wire?.client;
  // Real I/O (a wire fake, a live API) holds virtual time still while it is in flight.
  const tracked: ModelClient | undefined = real && { name: real.name, call: (request, onDelta) => clock.track(real.call(request, onDelta)) };
  const model = recording(tracked ?? scripted(scenario.provider.script, 'scripted'));
  const fallbackModels = scenario.provider.fallback ? [recording(scripted(scenario.provider.fallback, 'fallback'))] : undefined;

  // --- tools ------------------------------------------------------------------
  const backend = new SupportBackend();
  const executions = new Map<string, number>();
  const executionsByCall = new Map<string, number>();
  const sideEffectLevels = new Map<string, string>();
  const firedToolStarts = new Set<string>();
  const base = options.tools ? [...options.tools] : scenario.agent === 'support' ? supportTools(backend) : [];
  const tools = buildTools(base, scenario.tools, {
    clock,
    onRun: (name, callId) => {
      executions.set(name, (executions.get(name) ?? 0) + 1);
      executionsByCall.set(callId, (executionsByCall.get(callId) ?? 0) + 1);
      if (!firedToolStarts.has(name)) {
        firedToolStarts.add(name);
        for (const entry of byToolStart.get(name) ?? []) perform(entry);
      }
    },
    fault,
  });
  for (const t of tools) sideEffectLevels.set(t.name, t.sideEffect);

  const redact = createRedactor({ secrets: scenario.secrets ?? [] });
  const approver = scenario.approver ? scriptedApprover(scenario.approver, clock) : undefined;
  const policy = scenario.policy
    ? {
        rules: scenario.policy.rules.map(
          (r, i): PolicyRule => ({
            id: r.id ?? `rule-${i + 1}`,
            decision: r.decision,
            ...(r.tools ? { tools: r.tools } : {}),
            ...(r.sideEffects ? { sideEffects: r.sideEffects } : {}),
            ...(r.reason ? { reason: r.reason } : {}),
          }),
        ),
        ...(scenario.policy.default ? { default: scenario.policy.default } : {}),
        ...(scenario.policy.onAskWithoutApprover ? { onAskWithoutApprover: scenario.policy.onAskWithoutApprover } : {}),
        ...(scenario.policy.approvalTimeoutMs ? { approvalTimeoutMs: scenario.policy.approvalTimeoutMs } : {}),
      }
    : undefined;
  const executorOptions: ToolExecutorOptions = {
    registry: new ToolRegistry(tools),
    ...(scenario.visibility ? { visibility: scenario.visibility } : {}),
    ...(policy ? { policy } : {}),
    ...(approver ? { approver } : {}),
    redact,
    ...(scenario.config.toolMaxOutputChars ? { maxOutputChars: scenario.config.toolMaxOutputChars } : {}),
  };
  const realExecutor = createToolExecutor(executorOptions);
  const executor = options.seams?.wrapTools ? options.seams.wrapTools(realExecutor, executorOptions) : realExecutor;

  // --- the loop ---------------------------------------------------------------
  const traces: TraceRecord[] = [];
  let ids = 0;
  const config = { ...loopConfig(scenario), ...(options.modelName ? { model: options.modelName } : {}) };
  const system = scenario.system ?? options.system ?? (scenario.agent === 'support' ? SUPPORT_SYSTEM_PROMPT : 'You are a helpful assistant.');
  const deps: LoopDeps = {
    log,
    model,
    ...(fallbackModels ? { fallbackModels } : {}),
    tools: executor,
    prompt: { assemble: () => ({ system, fragments: [{ id: 'identity', priority: -100 }] }) },
    clock,
    persist,
    tracing: {
      begin: (turn) => new Tracer({ clock, traceId: `case:${turn}`, mode: 'production', redact }),
      finish: (tracer) => {
        const record = tracer.end();
        traces.push(record);
        return record;
      },
    },
    redact,
    config,
    ...(scenario.compaction ? { compactor: scriptedCompactor(scenario.compaction, fault) } : {}),
    ...(scenario.checkpoints ? { checkpoints: scenario.checkpoints.map((c) => scriptedCheckpoint(c, clock)) } : {}),
    ...(options.claim ? { claim: options.claim } : scenario.claim ? { claim: scriptedClaim(scenario.claim, clock) } : {}),
    ...(options.errorHandlers ? { errorHandlers: options.errorHandlers } : {}),
    random,
    newId: () => `m${++ids}`,
  };
  loop = new AgentLoop(options.seams?.wrapDeps ? options.seams.wrapDeps(deps) : deps);

  // --- drive ------------------------------------------------------------------
  let thrown: unknown;
  // A runaway case (a loop that never settles) is stopped and reported, not left to eat memory.
  const maxEvents = options.maxEvents ?? 20_000;
  const durableBefore: number[] = [];
  const unsubscribe = log.subscribe(() => {
    durableBefore.push(store.count('case'));
    if (log.length === maxEvents) {
      thrown = new Error(`runaway: the log passed ${maxEvents} events; the case was shut down`);
      loop?.shutdown('runaway case');
    }
  });
  // Idle: every drain woken so far has finished — including drains woken (by a timed or
  // triggered follow-up) while an earlier one was being awaited.
  const idle = async () => {
    for (let awaited = drains; ; awaited = drains) {
      await awaited;
      if (awaited === drains) return;
    }
  };
  const drive = async () => {
    const timers = timed.map((entry) => clock.sleep(entry.at!.time!).then(() => void perform(entry)));
    for (const entry of sequential) {
      await perform(entry);
      await idle(); // the next entry waits until the loop is idle
    }
    await Promise.all(timers);
    await idle();
    await persist().catch(() => undefined);
  };
  try {
    await clock.run(drive(), { realWaitLimitMs: options.realWaitLimitMs ?? 10_000 });
  } catch (error) {
    thrown ??= error;
  } finally {
    unsubscribe();
    wire?.release();
  }
  return {
    scenario,
    results,
    log,
    store,
    requests,
    traces,
    backend,
    executions,
    executionsByCall,
    sideEffectLevels,
    virtualMs: clock.now(),
    ...(thrown !== undefined ? { thrown } : {}),
    faults,
    responses,
    durableBefore,
    finalProjection: finalProjection(loop),
    config,
    storeWrites: { attempts: appendCount, failed: failedAppends },
    hostParts: (['model', 'claim', 'errorHandlers', 'tools', 'seams'] as const).filter((part) => options[part] !== undefined),
  };
}

/** The loop's projection at the end; a failure to compute it shows as an empty history (the checks compare it with a replay). */
function finalProjection(loop: AgentLoop): readonly Message[] {
  try {
    return loop.projection.current();
  } catch {
    return [];
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function loopConfig(scenario: Scenario): LoopConfig {
  const c = scenario.config;
  const defined = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
  return {
    ...DEFAULT_LOOP_CONFIG,
    model: 'scenario-model',
    ...defined({
      maxTokens: c.maxTokens,
      maxSteps: c.maxSteps,
      maxToolCallsPerTurn: c.maxToolCallsPerTurn,
      maxToolCallsPerSession: c.maxToolCallsPerSession,
      maxTokensPerTurn: c.maxTokensPerTurn,
      maxTokensPerSession: c.maxTokensPerSession,
      modelTimeoutMs: c.modelTimeoutMs,
      maxCompactionsPerStep: c.maxCompactionsPerStep,
      maxCheckpointExtensions: c.maxCheckpointExtensions,
      sideEffectNotice: c.sideEffectNotice,
    }),
    retry: { ...DEFAULT_LOOP_CONFIG.retry, ...defined(c.retry ?? {}) },
  };
}

// ---------------------------------------------------------------------------
// Provider steps → normalized results
// ---------------------------------------------------------------------------

function toEntry(step: ProviderStep, callIds: { next: number }): ScriptedEntry {
  const usage: Usage | undefined = step.usage ? { inputTokens: step.usage.input, outputTokens: step.usage.output } : undefined;
  const withUsage = (r: ModelResult): ModelResult => (usage ? { ...r, usage } : r);
  let result: ModelResult;
  if (step.reply !== undefined) result = withUsage(reply(step.reply));
  else if (step.tool_use)
    result = withUsage(
      toolUse(
        step.tool_use.map((c) => toolCall(c.id ?? `call_${callIds.next++}`, c.name, c.args ?? {})),
        step.text ?? '',
      ),
    );
  else if (step.max_tokens) result = withUsage(maxTokens(step.max_tokens.text, step.max_tokens.partial));
  else if (step.refusal !== undefined) result = withUsage(refusal(step.refusal));
  else if (step.overflow) result = withUsage(overflow(step.overflow));
  else if (step.unknown !== undefined) result = withUsage(unknownStop(step.unknown));
  else if (step.error) {
    result = transportError(step.error.kind, {
      ...(step.error.status !== undefined ? { status: step.error.status } : {}),
      ...(step.error.retryAfterMs !== undefined ? { retryAfterMs: step.error.retryAfterMs } : {}),
      ...(step.error.message !== undefined ? { message: step.error.message } : {}),
    });
  } else throw new Error('a provider step without a result (the schema should have refused it)');
  return { result, ...(step.latencyMs ? { latencyMs: step.latencyMs } : {}) };
}

export function describeStep(step: ProviderStep): string {
  if (step.error)
    return `${step.error.kind}${step.error.status ? ` ${step.error.status}` : ''}${step.error.retryAfterMs !== undefined ? ` retry-after ${step.error.retryAfterMs} ms` : ''}`;
  if (step.overflow) return `context overflow at ${step.overflow}`;
  if (step.max_tokens) return `max_tokens${step.max_tokens.partial ? ' inside a tool call' : ''}`;
  if (step.refusal !== undefined) return 'refusal';
  if (step.unknown !== undefined) return `unknown stop reason ${step.unknown}`;
  if (step.tool_use) return `tool_use ${step.tool_use.map((c) => c.name).join(', ')}`;
  return 'reply';
}

// ---------------------------------------------------------------------------
// Tools with scripted behaviour
// ---------------------------------------------------------------------------

interface ToolHooks {
  readonly clock: VirtualClock;
  readonly onRun: (name: string, callId: string) => void;
  readonly fault: (label: string) => void;
}

function buildTools(base: readonly AnyToolDeclaration[], overrides: readonly ScenarioTool[], hooks: ToolHooks): AnyToolDeclaration[] {
  const byName = new Map(base.map((t) => [t.name, t]));
  const out = base.map((t) => t);
  for (const spec of overrides) {
    const existing = byName.get(spec.name);
    const declaration: AnyToolDeclaration = existing
      ? {
          ...existing,
          ...(spec.description ? { description: spec.description } : {}),
          ...(spec.input ? { input: inputSchema(spec.input) } : {}),
          ...(spec.sideEffect ? { sideEffect: spec.sideEffect } : {}),
          ...(spec.parallelSafe !== undefined ? { parallelSafe: spec.parallelSafe } : {}),
          ...(spec.timeoutMs ? { timeoutMs: spec.timeoutMs } : {}),
          ...(spec.maxRetries !== undefined ? { maxRetries: spec.maxRetries } : {}),
        }
      : {
          name: spec.name,
          description: spec.description ?? `scripted tool ${spec.name}`,
          input: inputSchema(spec.input ?? {}),
          sideEffect: spec.sideEffect ?? 'NONE',
          ...(spec.parallelSafe !== undefined ? { parallelSafe: spec.parallelSafe } : {}),
          ...(spec.timeoutMs ? { timeoutMs: spec.timeoutMs } : {}),
          ...(spec.maxRetries !== undefined ? { maxRetries: spec.maxRetries } : {}),
          run: () => ({ ok: true }),
        };
    const index = out.findIndex((t) => t.name === spec.name);
    if (index >= 0) out[index] = declaration;
    else out.push(declaration);
    byName.set(spec.name, declaration);
  }
  const behaviours = new Map(overrides.filter((o) => o.behaviour).map((o) => [o.name, o.behaviour!]));
  return out.map((t) => withBehaviour(t, behaviours.get(t.name) ?? [], hooks));
}

function withBehaviour(tool: AnyToolDeclaration, script: readonly Behaviour[], hooks: ToolHooks): AnyToolDeclaration {
  let runs = 0;
  const original = tool.run;
  return {
    ...tool,
    run: async (args, ctx) => {
      hooks.onRun(tool.name, ctx.callId);
      const behaviour: Behaviour = script.length === 0 ? 'ok' : script[Math.min(runs, script.length - 1)]!;
      runs++;
      if (behaviour === 'ok') return original(args, ctx);
      if (behaviour === 'hang') {
        hooks.fault(`tool ${tool.name} hangs`);
        return new Promise(() => {}); // ignores even the abort: the pipeline must still settle
      }
      if ('return' in behaviour) return behaviour.return;
      if ('fail' in behaviour) {
        hooks.fault(`tool ${tool.name} fails ${behaviour.fail.code}`);
        throw new ToolFailure(behaviour.fail.code, behaviour.fail.message ?? `${tool.name} failed`, {
          ...(behaviour.fail.suggestion ? { suggestion: behaviour.fail.suggestion } : {}),
          ...(behaviour.fail.retryable !== undefined ? { retryable: behaviour.fail.retryable } : {}),
        });
      }
      if ('throw' in behaviour) {
        hooks.fault(`tool ${tool.name} throws`);
        throw new Error(behaviour.throw);
      }
      hooks.fault(`tool ${tool.name} takes ${behaviour.slow} ms`);
      await hooks.clock.sleep(behaviour.slow, ctx.signal);
      return behaviour.then !== undefined ? behaviour.then : original(args, ctx);
    },
  };
}

function inputSchema(fields: Readonly<Record<string, string>>): z.ZodType {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, type] of Object.entries(fields)) {
    const optional = type.endsWith('?');
    const base = type.replace(/\?$/, '');
    const schema: z.ZodType =
      base === 'string'
        ? z.string()
        : base === 'number'
          ? z.number()
          : base === 'integer'
            ? z.number().int()
            : base === 'boolean'
              ? z.boolean()
              : base === 'object'
                ? z.record(z.string(), z.unknown())
                : base === 'array'
                  ? z.array(z.unknown())
                  : z.unknown();
    shape[name] = optional ? schema.optional() : schema;
  }
  return z.object(shape);
}

// ---------------------------------------------------------------------------
// Approver, compactor, checkpoints, claim
// ---------------------------------------------------------------------------

function scriptedApprover(spec: NonNullable<Scenario['approver']>, clock: VirtualClock): Approver {
  let asked = 0;
  return {
    async approve(_request, signal) {
      const answer = spec.answers[Math.min(asked, spec.answers.length - 1)]!;
      asked++;
      if (spec.delayMs > 0) await clock.sleep(spec.delayMs, signal);
      return answer;
    },
  };
}

function scriptedCompactor(steps: NonNullable<Scenario['compaction']>, fault: (label: string) => void): Compactor {
  let n = 0;
  return {
    async compact({ candidate, messages }) {
      const step = steps[Math.min(n, steps.length - 1)]!;
      n++;
      if (step === 'none') return null;
      if (step === 'fail') {
        fault('compactor fails');
        throw new Error('scripted compactor failure');
      }
      if (!candidate) return null;
      if (step === 'grow') {
        fault('compaction does not shrink');
        return { ...candidate, summary: 'x'.repeat(JSON.stringify(messages).length + 1_000) };
      }
      return { ...candidate, summary: step.summary };
    },
  };
}

function scriptedCheckpoint(spec: NonNullable<Scenario['checkpoints']>[number], clock: VirtualClock): CheckpointHook {
  let runs = 0;
  return {
    name: spec.name,
    run: async ({ signal }) => {
      const extend = spec.extend[Math.min(runs, spec.extend.length - 1)];
      runs++;
      if (spec.delayMs > 0) await clock.sleep(spec.delayMs, signal);
      return extend ? { extend } : undefined;
    },
  };
}

function scriptedClaim(spec: NonNullable<Scenario['claim']>, clock: VirtualClock): ClaimPolicy {
  return {
    claim: async (messages, signal) => {
      if (spec.delayMs > 0) await clock.sleep(spec.delayMs, signal);
      if ('deny' in spec) return { decision: 'deny', reason: spec.deny };
      if ('drop' in spec) return { decision: 'allow', rewrite: new Map(messages.map((m) => [m.id, null])) };
      return { decision: 'allow' };
    },
  };
}
