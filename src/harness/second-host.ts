/**
 * The second host (seed 004 rule 2): the same, unmodified loop — imported only
 * through the kernel's public entry — wired to a world built for one case. This
 * file is the composition root; the world's parts live in world/:
 *
 * - the agent under test, plugged in from a registry (agent-under-test.ts), with
 *   the scenario's tool scripts (scripted-tools.ts) and scripted hooks
 *   (scripted-hooks.ts) standing in where the scenario has them;
 * - an in-memory store with injected write failures (faulty-store.ts);
 * - the scenario's provider script, or a wire-level provider (scripted-provider.ts,
 *   ../wire-provider.ts), every client recorded (recording-model.ts);
 * - the inbox script, played like a client of a host (inbox-driver.ts);
 * - a collecting trace exporter and a virtual clock.
 *
 * Everything that varies comes from the scenario and the seed, so a case runs the
 * same way every time.
 */
import {
  AgentLoop,
  agentToolOptions,
  createRedactor,
  createToolExecutor,
  EventLog,
  loopDeps,
  Tracer,
  type Agent,
  type ClaimPolicy,
  type LoopConfig,
  type LoopDeps,
  type Message,
  type ModelClient,
  type ModelErrorHandler,
  type ToolExecutor,
  type ToolExecutorOptions,
  type ToolPolicy,
  type TraceRecord,
  type TurnResult,
  type VisibilityLayer,
} from '../kernel/index.ts';
import { serializedFlush } from '../host/flush.ts';
import type { MemoryEventStore, MemoryStoreFaults } from '../stores/memory-store.ts';
import type { Scenario } from './scenario/schema.ts';
import { VirtualClock } from './virtual-clock.ts';
import { wireProvider } from './wire-provider.ts';
import { agentNameOf, buildAgent, EMPTY_REGISTRY, mergedPolicy, scenarioPolicy, type AgentRegistry } from './world/agent-under-test.ts';
import { FaultLog, type Fault } from './world/fault-log.ts';
import { faultyStore, type StoreWrites } from './world/faulty-store.ts';
import { InboxDriver } from './world/inbox-driver.ts';
import { ModelRecording, type ProviderCall, type SentRequest } from './world/recording-model.ts';
import { scriptedApprover, scriptedCheckpoint, scriptedClaim, scriptedCompactor } from './world/scripted-hooks.ts';
import { scriptedProvider, type CallIdCounter } from './world/scripted-provider.ts';
import { scriptedTools } from './world/scripted-tools.ts';
import { seededRandom } from './world/seeded-random.ts';

export { seededRandom } from './world/seeded-random.ts';
export { describeStep } from './world/scripted-provider.ts';
export type { SentRequest, ProviderCall } from './world/recording-model.ts';
export type { AgentRegistry } from './world/agent-under-test.ts';

/** The conversation id of a case in its store. */
export const CASE_CONVERSATION = 'case';

export interface ScenarioRun {
  readonly scenario: Scenario;
  /** The agent the case ran with (its name in the registry, or `none`). */
  readonly agent: string;
  readonly results: readonly TurnResult[];
  readonly log: EventLog;
  readonly store: MemoryEventStore;
  readonly requests: readonly SentRequest[];
  readonly traces: readonly TraceRecord[];
  /** Tool bodies that actually ran, by tool name, and by call id. */
  readonly executions: ReadonlyMap<string, number>;
  readonly executionsByCall: ReadonlyMap<string, number>;
  /** Each tool's declared side-effect level. */
  readonly sideEffectLevels: ReadonlyMap<string, string>;
  /** The permissions in force: the agent's visibility layers and policy with the scenario's added, and whether an approver answered. */
  readonly permissions: { readonly visibility: readonly VisibilityLayer[]; readonly policy: ToolPolicy | undefined; readonly approver: boolean };
  /** The values that must never be written anywhere: the agent's and the scenario's. */
  readonly secrets: readonly string[];
  readonly virtualMs: number;
  /** Set if the loop (or the world) threw — a bug: nothing may throw across the loop's boundary. */
  readonly thrown?: unknown;
  /** Faults the scenario injected, for the report's timeline. */
  readonly faults: readonly Fault[];
  /** How each provider call settled, aligned with `requests` (for provider-contract checks). */
  readonly responses: readonly ProviderCall[];
  /** `durableBefore[k]`: events the store held when event k was appended — what a crash at event k leaves. */
  readonly durableBefore: readonly number[];
  /** The loop's own incremental projection when the run ended. */
  readonly finalProjection: readonly Message[];
  /** The loop configuration the scenario ran with. */
  readonly config: LoopConfig;
  /** Batch appends the store was asked for, and which of them (1-based) failed. */
  readonly storeWrites: StoreWrites;
  /** Parts that came from elsewhere than the scenario file (the host's options, the agent's own hooks): invariants that predict from the scenario alone skip these runs. */
  readonly hostParts: readonly HostPart[];
}

export type HostPart = 'model' | 'claim' | 'errorHandlers' | 'seams';

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

export interface RunOptions {
  readonly seed: number;
  /** The agents a scenario may name, and the default one. Default: none but `none`. */
  readonly agents?: AgentRegistry;
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
  /** Test-only: see TestSeams. */
  readonly seams?: TestSeams;
}

export async function runScenario(scenario: Scenario, options: RunOptions): Promise<ScenarioRun> {
  const clock = new VirtualClock();
  const log = new EventLog(clock);
  const random = seededRandom(options.seed);
  const faults = new FaultLog(clock);
  const { store, writes } = faultyStore(scenario.store, faults, options.seams?.store);
  const persist = serializedFlush(store, CASE_CONVERSATION, log);

  // --- the agent under test, with the scenario's scripts ---------------------------
  const registry = options.agents ?? EMPTY_REGISTRY;
  const agentName = agentNameOf(scenario, registry);
  const own = await buildAgent(agentName, registry, { clock, random: seededRandom(options.seed ^ 0x5eed) });
  let inbox: InboxDriver | undefined;
  const { tools, counters } = scriptedTools(own.tools ?? [], scenario.tools, { clock, faults, onFirstStart: (name) => inbox?.onToolStart(name) }, agentName);
  const policy = mergedPolicy(own.policy, scenarioPolicy(scenario.policy));
  const visibility = [...(own.visibility ?? []), ...(scenario.visibility ?? [])];
  const agent: Agent = {
    ...own,
    tools,
    ...(scenario.system !== undefined ? { system: scenario.system } : {}),
    ...(policy ? { policy } : {}),
    ...(visibility.length > 0 ? { visibility } : {}),
    ...(scenario.approver ? { approver: scriptedApprover(scenario.approver, clock) } : {}),
    ...(scenario.compaction ? { compactor: scriptedCompactor(scenario.compaction, faults) } : {}),
    ...(scenario.checkpoints ? { checkpoints: scenario.checkpoints.map((c) => scriptedCheckpoint(c, clock)) } : {}),
    ...(options.claim ? { claim: options.claim } : scenario.claim ? { claim: scriptedClaim(scenario.claim, clock) } : {}),
    ...(options.errorHandlers ? { errorHandlers: [...options.errorHandlers, ...(own.errorHandlers ?? [])] } : {}),
    secrets: [...(own.secrets ?? []), ...(scenario.secrets ?? [])],
  };
  const redact = createRedactor({ secrets: agent.secrets ?? [] });

  // --- the provider, recorded --------------------------------------------------------
  const recording = new ModelRecording((n) => inbox?.onRequest(n));
  const callIds: CallIdCounter = { next: 1 };
  const wrapModel = options.seams?.wrapModel ?? ((client: ModelClient) => client);
  const scripted = (steps: Scenario['provider']['script'], name: string, model: string | undefined) =>
    wrapModel(scriptedProvider(steps, name, clock, faults, callIds, model));
  // A wire-level provider: the real SDK parses the provider's protocol, written by the wire fake.
  const wire =
    !options.model && scenario.provider.kind === 'wire'
      ? wireProvider(scenario.provider.provider!, scenario.provider.script, scenario.provider.model ?? 'scenario-model')
      : undefined;
  const real = options.model ?? wire?.client;
  // Real I/O (a wire fake, a live API) holds virtual time still while it is in flight.
  const tracked: ModelClient | undefined = real && {
    name: real.name,
    ...(real.model !== undefined ? { model: real.model } : {}),
    call: (request, onDelta) => clock.track(real.call(request, onDelta)),
  };
  const model = recording.wrap(tracked ?? scripted(scenario.provider.script, 'scripted', scenario.provider.model));
  // Each client is asked for its own model (field failure: a fallback asked for the primary's).
  const fallbackModels = scenario.provider.fallback
    ? [recording.wrap(scripted(scenario.provider.fallback, 'fallback', scenario.provider.fallbackModel ?? 'fallback-model'))]
    : undefined;

  // --- the loop --------------------------------------------------------------------
  const toolOptions = { ...(scenario.config.toolMaxOutputChars ? { maxOutputChars: scenario.config.toolMaxOutputChars } : {}) };
  const executorOptions = agentToolOptions(agent, redact, toolOptions);
  const realTools = createToolExecutor(executorOptions);
  const traces: TraceRecord[] = [];
  const deps = loopDeps({
    log,
    model,
    ...(fallbackModels ? { fallbackModels } : {}),
    agent,
    tools: options.seams?.wrapTools ? options.seams.wrapTools(realTools, executorOptions) : realTools,
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
    config: { model: options.modelName ?? 'scenario-model', ...scenarioConfig(scenario) },
    random,
  });
  const loop = new AgentLoop(options.seams?.wrapDeps ? options.seams.wrapDeps(deps) : deps);

  // --- drive ------------------------------------------------------------------
  let thrown: unknown;
  const results: TurnResult[] = [];
  inbox = new InboxDriver(
    scenario.inbox,
    {
      send: (text, intent) => void loop.send(text, { intent }),
      cancel: (by) => void loop.cancel(by, `scenario: cancel by ${by}`),
      get busy() {
        return loop.busy;
      },
      drain: async () => void results.push(...(await loop.drain())),
      flush: persist,
    },
    clock,
    faults,
  );
  // A runaway case (a loop that never settles) is stopped and reported, not left to eat memory.
  const maxEvents = options.maxEvents ?? 20_000;
  const durableBefore: number[] = [];
  const unsubscribe = log.subscribe(() => {
    durableBefore.push(store.count(CASE_CONVERSATION));
    if (log.length === maxEvents) {
      thrown = new Error(`runaway: the log passed ${maxEvents} events; the case was shut down`);
      loop.shutdown('runaway case');
    }
  });
  try {
    await clock.run(
      inbox.drive().then(() => persist().catch(() => undefined)),
      { realWaitLimitMs: options.realWaitLimitMs ?? 10_000 },
    );
  } catch (error) {
    thrown ??= error;
  } finally {
    unsubscribe();
    wire?.release();
  }
  const hostParts: HostPart[] = [];
  if (options.model) hostParts.push('model');
  if (options.claim || (own.claim && !scenario.claim)) hostParts.push('claim');
  if (options.errorHandlers || (own.errorHandlers ?? []).length > 0) hostParts.push('errorHandlers');
  if (options.seams) hostParts.push('seams');
  return {
    scenario,
    agent: agentName,
    results,
    log,
    store,
    requests: recording.requests,
    traces,
    executions: counters.byTool,
    executionsByCall: counters.byCall,
    sideEffectLevels: new Map(tools.map((t) => [t.name, t.sideEffect])),
    permissions: { visibility, policy, approver: agent.approver !== undefined },
    secrets: agent.secrets ?? [],
    virtualMs: clock.now(),
    ...(thrown !== undefined ? { thrown } : {}),
    faults: faults.entries,
    responses: recording.responses,
    durableBefore,
    finalProjection: finalProjection(loop),
    config: deps.config,
    storeWrites: writes(),
    hostParts,
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

/** The scenario's `config:` as loop limits (on top of the agent's). */
function scenarioConfig(scenario: Scenario): Partial<LoopConfig> {
  const c = scenario.config;
  const defined = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
  return {
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
    ...(c.retry ? { retry: defined(c.retry) as LoopConfig['retry'] } : {}),
  };
}
