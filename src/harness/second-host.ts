/**
 * The second host (seed 004 rule 2): the same, unmodified loop — imported only
 * through the kernel's public entry — wired to a world built for one case. This
 * file is the composition root; the world's parts live in world/:
 *
 * - the agent under test, plugged in from a registry (agent-under-test.ts), with
 *   the scenario's tool scripts (scripted-tools.ts) and scripted hooks
 *   (scripted-hooks.ts) standing in where the scenario has them;
 * - a store with injected write faults — failed and torn writes, crashes
 *   (faulty-store.ts);
 * - the scenario's provider script, or a wire-level provider (scripted-provider.ts,
 *   ../wire-provider.ts), every client recorded (recording-model.ts);
 * - the inbox script, played like the clients of a host (inbox-driver.ts) against
 *   one of two hosts: the loop driven directly (loop-target.ts), or a real
 *   production `AgentHost` with its lock, recovery, flush and envelope
 *   (host-target.ts) — `host: production`, or the run's choice;
 * - a record of the case over every life of its log (case-recording.ts), a
 *   collecting trace exporter and a virtual clock.
 *
 * Everything that varies comes from the scenario and the seed, so a case runs the
 * same way every time, and the invariants judge both hosts from the same record.
 */
import {
  createRedactor,
  DEFAULT_TIMEOUT_MS,
  EventLog,
  loopConfig,
  type ClaimPolicy,
  type AgentLoopConfig,
  type LoopConfig,
  type LoopDeps,
  type Message,
  type ModelClient,
  type ModelErrorHandler,
  type ModelResult,
  type ToolExecutor,
  type ToolExecutorOptions,
  type ToolPolicy,
  type TraceRecord,
  type Tracer,
  type TurnResult,
  type VisibilityLayer,
} from '../kernel/index.ts';
import type { MemoryEventStore, MemoryStoreFaults } from '../stores/memory-store.ts';
import { crashes, type HostMode, type Scenario } from './scenario/schema.ts';
import { VirtualClock } from './virtual-clock.ts';
import { wireProvider, withTimeOnTheWire } from './wire-provider.ts';
import { agentNameOf, buildAgent, EMPTY_REGISTRY, scenarioAgent, type AgentRegistry } from './world/agent-under-test.ts';
import { CaseRecording, finalProjection, type LostWork } from './world/case-recording.ts';
import { FaultLog, type Fault } from './world/fault-log.ts';
import { WorldStore, type StoreWrites } from './world/faulty-store.ts';
import { hostConfigFor } from './world/host-config.ts';
import { operatorParts, withOperator, withOperatorLayer, withOperatorRule } from './world/operator-settings.ts';
import { HostTarget, type HostPost } from './world/host-target.ts';
import { InboxDriver, type InboxTarget, type UnfiredEntry } from './world/inbox-driver.ts';
import { directLoop, type LoopTarget } from './world/loop-target.ts';
import { ModelRecording, type ProviderCall, type SentRequest } from './world/recording-model.ts';
import type { ApprovalAnswer } from './world/recorded-approver.ts';
import { scriptedProvider, type CallIdCounter } from './world/scripted-provider.ts';
import { seededRandom } from './world/seeded-random.ts';
import { PromptRecorder, type CasePrompt } from './world/scripted-prompt.ts';
import { SpanMisuse, withExecutorFaults, type SpanMisuseAct } from './world/faulty-executor.ts';
import type { ToolBodyRun } from './world/scripted-tools.ts';

export { seededRandom } from './world/seeded-random.ts';
export { describeStep } from './world/scripted-provider.ts';
export type { SentRequest, ProviderCall } from './world/recording-model.ts';
export type { AgentRegistry } from './world/agent-under-test.ts';
export type { HostMode } from './scenario/schema.ts';

/** The conversation id of a case in its store. */
export const CASE_CONVERSATION = 'case';

export interface ScenarioRun {
  readonly scenario: Scenario;
  /** The agent the case ran with (its name in the registry, or `none`). */
  readonly agent: string;
  /** Which host drove the case: the loop directly, or a real production host. */
  readonly host: HostMode;
  /** Results of the turns the final log holds that a loop closed (a turn recovery closed has none), in order. */
  readonly results: readonly TurnResult[];
  /** The final log: the last one the case opened (after a crash, reopened from the store and recovered). */
  readonly log: EventLog;
  readonly store: MemoryEventStore;
  /** The model requests the final log records, in order (those of work a crash lost are in `lost`). */
  readonly requests: readonly SentRequest[];
  readonly traces: readonly TraceRecord[];
  /** Tool bodies that actually ran, by tool name, and by call id — over every process of the case. */
  readonly executions: ReadonlyMap<string, number>;
  readonly executionsByCall: ReadonlyMap<string, number>;
  /**
   * Tool bodies that ran, by tool name and then call id. Count a call's runs here:
   * `executionsByCall` adds up the runs of every tool under one id, and a model
   * may give calls of different tools the same id in different turns.
   */
  readonly executionsByToolCall: ReadonlyMap<string, ReadonlyMap<string, number>>;
  /** Each body run of a call, in order: its signal, when it started and when it ended (undefined: still running, or never ends). */
  readonly toolBodies?: ReadonlyMap<string, readonly ToolBodyRun[]>;
  /** Each tool's declared side-effect level. */
  readonly sideEffectLevels: ReadonlyMap<string, string>;
  /**
   * Each tool's timeout in force, read from the declarations: its own `timeoutMs`, else the tool pipeline's default
   * (DEFAULT_TIMEOUT_MS: neither host the harness drives sets another).
   */
  readonly toolTimeouts: ReadonlyMap<string, { readonly ms: number; readonly declared: boolean }>;
  /** The permissions in force: the agent's visibility layers and policy with the scenario's added, and whether an approver answered. */
  readonly permissions: { readonly visibility: readonly VisibilityLayer[]; readonly policy: ToolPolicy | undefined; readonly approver: boolean };
  /** Every answer the approver gave (the scenario's or the agent's own), in order. */
  readonly approvals: readonly ApprovalAnswer[];
  /** The values that must never be written anywhere: the agent's and the scenario's. */
  readonly secrets: readonly string[];
  readonly virtualMs: number;
  /** Set if the loop (or the world) threw — a bug: nothing may throw across the loop's boundary. */
  readonly thrown?: unknown;
  /** Faults the scenario injected, for the report's timeline. */
  readonly faults: readonly Fault[];
  /** How each provider call settled, aligned with `requests` (for provider-contract checks). */
  readonly responses: readonly ProviderCall[];
  /** `durableBefore[k]`: events the store held when event k of the final log was appended — what a crash at event k leaves. */
  readonly durableBefore: readonly number[];
  /** The loop's own incremental projection when the run ended; undefined when no loop ran over the final log (the host could not open it). */
  readonly finalProjection: readonly Message[] | undefined;
  /** The loop configuration the scenario ran with. */
  readonly config: LoopConfig;
  /** Batch appends the store was asked for, and which of them (1-based) failed. */
  readonly storeWrites: StoreWrites;
  /** Parts that came from elsewhere than the scenario file (the host's options, the agent's own hooks): invariants that predict from the scenario alone skip these runs. */
  readonly hostParts: readonly HostPart[];
  /** Logs the case opened: more than one after a crash, or after the production host dropped a log the store refused. */
  readonly lives: number;
  /** What earlier lives did that the final log does not hold (lost with a crash, or with a refused write). */
  readonly lost: LostWork;
  /**
   * How far the case got, for triggers: the events its running log reached (over every life), the deltas streamed,
   * the approval requests put to the approver.
   */
  /** A `misuses-span` executor's late acts (see faulty-executor.ts). */
  readonly spanMisuse?: readonly SpanMisuseAct[];
  /** The trace mode the case ran with (`operator.traceMode`; default production). */
  readonly traceMode?: 'dev' | 'production';
  readonly reached: { readonly events: number; readonly deltas: number; readonly approvals: number };
  /** Inbox entries whose trigger never fired (and a reopen whose crash never came), in inbox order. */
  readonly unfired: readonly UnfiredEntry[];
  /** The loop driven directly: drains that returned with waking work they should have run (invariant 9). */
  readonly drainsLeftWork?: readonly string[];
  /** Through the production host: every message posted, and the envelope the host answered with. */
  readonly posts?: readonly HostPost[];
  /** The agent's prompt fragments, and what each dynamic one gave while each request (in `requests`) was assembled. */
  readonly prompt: CasePrompt;
  /** After a crash, why the reopened host refused to read the conversation back (a store with a gap); the case is judged on what the store held. */
  readonly unreadable?: string;
  /** For a wire-level provider: the adapter's result for each step of the script, in order (undefined: the call never settled with one). */
  readonly wire?: { readonly provider: string; readonly results: readonly (ModelResult | undefined)[] };
}

export type HostPart = 'model' | 'claim' | 'errorHandlers' | 'seams';

/**
 * Test-only seams: swap one part of the world for a deliberately broken one, so
 * the fuzzer's own tests can show it finds the bug (docs/fuzzing.md). `loopgate
 * run` never sets them; a scenario file cannot. `wrapTools` reaches the loop only
 * when the harness drives it directly.
 */
export interface TestSeams {
  /** Builds the store in place of the in-memory one; the world's write faults are injected around it. */
  readonly store?: (faults: MemoryStoreFaults) => MemoryEventStore;
  /** Wraps each scripted provider client, inside the recording (the harness sees what it returns). */
  readonly wrapModel?: (client: ModelClient) => ModelClient;
  /** Wraps the tool executor the loop is given; `options` are the ones the real executor was built with. */
  readonly wrapTools?: (executor: ToolExecutor, options: ToolExecutorOptions) => ToolExecutor;
  /** Rewrites the loop's dependencies just before the loop is built (a loop variant), through either host. */
  readonly wrapDeps?: (deps: LoopDeps) => LoopDeps;
}

export interface RunOptions {
  readonly seed: number;
  /** The agents a scenario may name, and the default one. Default: none but `none`. */
  readonly agents?: AgentRegistry;
  /** Which host drives a scenario that does not say (`host:`). Default: the loop directly. A scenario that crashes always runs through the production host. */
  readonly host?: HostMode;
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

/** The host a scenario runs through: a crash needs the production host; else the scenario's choice, else the run's. */
export function hostModeOf(scenario: Scenario, requested: HostMode | undefined): HostMode {
  if (crashes(scenario)) return 'production';
  return scenario.host ?? requested ?? 'loop';
}

export async function runScenario(scenario: Scenario, options: RunOptions): Promise<ScenarioRun> {
  const mode = hostModeOf(scenario, options.host);
  if (mode === 'production' && options.seams?.wrapTools)
    throw new Error('the wrapTools seam reaches the loop only when the harness drives it directly (host: loop); wrap its dependencies instead');
  const clock = new VirtualClock();
  const random = seededRandom(options.seed);
  const faults = new FaultLog(clock);
  const world = new WorldStore(scenario.store, faults, options.seams?.store);
  const store = world.store;
  let inbox: InboxDriver | undefined;
  // A runaway case (a loop that never settles) is stopped and reported, not left to eat memory.
  const maxEvents = options.maxEvents ?? 20_000;
  let thrown: unknown;
  let stopRunaway: () => void = () => undefined;
  const reached = { events: 0, deltas: 0, approvals: 0 };
  const recording = new CaseRecording(
    () => store.count(CASE_CONVERSATION),
    (seq) => {
      reached.events = Math.max(reached.events, seq + 1);
      inbox?.onEvent(seq);
      if (seq + 1 === maxEvents) {
        thrown = new Error(`runaway: the log passed ${maxEvents} events; the case was shut down`);
        stopRunaway();
      }
    },
    { takenUpAgain: (scenario.hosts ?? 1) > 1 },
  );

  // --- the agent under test, with the scenario's scripts ---------------------------
  const registry = options.agents ?? EMPTY_REGISTRY;
  const agentName = agentNameOf(scenario, registry);
  const own = await buildAgent(agentName, registry, { clock, random: seededRandom(options.seed ^ 0x5eed), conversationId: CASE_CONVERSATION });
  const prompt = new PromptRecorder();
  const { agent, counters, policy, visibility, approvals } = scenarioAgent(own, scenario, {
    name: agentName,
    clock,
    faults,
    prompt,
    onFirstStart: (name) => inbox?.onToolStart(name),
    onApproval: (n) => {
      reached.approvals = n;
      inbox?.onApproval(n);
    },
    ...(options.claim ? { claim: options.claim } : {}),
    ...(options.errorHandlers ? { errorHandlers: options.errorHandlers } : {}),
  });
  const redact = createRedactor({ secrets: agent.secrets ?? [] });
  const operator = operatorParts(scenario.operator);

  // --- the provider, recorded --------------------------------------------------------
  const models = new ModelRecording({
    onRequest: (n) => inbox?.onRequest(n),
    onDelta: (n) => {
      reached.deltas = n;
      inbox?.onDelta(n);
    },
    origin: () => recording.origin(),
    onSent: (request) => prompt.sent(request),
  });
  const callIds: CallIdCounter = { next: 1 };
  const wrapModel = options.seams?.wrapModel ?? ((client: ModelClient) => client);
  const scripted = (steps: Scenario['provider']['script'], name: string, model: string | undefined) =>
    wrapModel(scriptedProvider(steps, name, clock, faults, callIds, model));
  // A wire-level provider: the real SDK parses the provider's protocol, written by the wire fake.
  const wire =
    !options.model && scenario.provider.kind === 'wire'
      ? await wireProvider(scenario.provider.provider!, scenario.provider.script, scenario.provider.model ?? 'scenario-model')
      : undefined;
  const real = options.model ?? wire?.client;
  const model = models.wrap(
    real ? withTimeOnTheWire(real, clock, wire ? scenario.provider.script : []) : scripted(scenario.provider.script, 'scripted', scenario.provider.model),
  );
  // Each client is asked for its own model (field failure: a fallback asked for the primary's).
  const fallbackModels = scenario.provider.fallback
    ? [models.wrap(scripted(scenario.provider.fallback, 'fallback', scenario.provider.fallbackModel ?? 'fallback-model'))]
    : undefined;

  // --- the host ------------------------------------------------------------------------
  const toolOptions = { ...(scenario.config.toolMaxOutputChars ? { maxOutputChars: scenario.config.toolMaxOutputChars } : {}) };
  const config = loopConfig(agent, { model: options.modelName ?? 'scenario-model', ...scenarioConfig(scenario) });
  let target: InboxTarget;
  let finish: () => Promise<void> = async () => undefined;
  let hostTarget: HostTarget | undefined;
  let directTarget: LoopTarget | undefined;
  // A scenario's contract-breaking tool executor, inside any test seam's loop variant.
  const misuse = scenario.tools.some((t) => t.executor === 'misuses-span') ? new SpanMisuse() : undefined;
  const executorFaults = withExecutorFaults(scenario, faults, misuse);
  const seamDeps = options.seams?.wrapDeps;
  const wrapDeps = executorFaults && seamDeps ? (deps: LoopDeps) => seamDeps(executorFaults(deps)) : (executorFaults ?? seamDeps);
  if (mode === 'production') {
    let ids = 0;
    hostTarget = new HostTarget({
      conversation: CASE_CONVERSATION,
      config: hostConfigFor(config.model, toolOptions.maxOutputChars, scenario.operator, scenario.hosts !== undefined),
      ...(scenario.hosts !== undefined ? { hosts: scenario.hosts } : {}),
      store: world,
      // The case's loop limits travel with the agent, as a team's own agent carries them (host-config.ts).
      agent: { ...agent, config: withoutModel(config) },
      model,
      ...(fallbackModels ? { fallbackModels } : {}),
      clock,
      random,
      newId: () => `m${++ids}`,
      recording,
      ...(wrapDeps ? { wrapLoopDeps: wrapDeps } : {}),
      problem: (error) => {
        thrown ??= error;
      },
    });
    target = hostTarget;
    stopRunaway = () => hostTarget!.stop();
  } else {
    const direct = directLoop({
      conversation: CASE_CONVERSATION,
      store: world,
      agent: withOperator(agent, operator),
      model,
      ...(fallbackModels ? { fallbackModels } : {}),
      clock,
      random,
      redact,
      config,
      toolOptions,
      recording,
      ...(options.seams?.wrapTools ? { wrapTools: options.seams.wrapTools } : {}),
      ...(wrapDeps ? { wrapDeps } : {}),
      ...(scenario.operator?.traceMode ? { traceMode: scenario.operator.traceMode } : {}),
      ...(misuse
        ? {
            onTracer: (tracer: Tracer) => {
              misuse.current = tracer;
            },
          }
        : {}),
    });
    target = direct;
    directTarget = direct;
    finish = () => direct.finish();
    stopRunaway = () => direct.stop();
  }

  // --- drive ------------------------------------------------------------------
  inbox = new InboxDriver(scenario.inbox, target, clock, faults, (error) => {
    thrown ??= error;
  });
  try {
    await clock.run(
      inbox.drive().then(() => finish()),
      { realWaitLimitMs: options.realWaitLimitMs ?? 10_000 },
    );
  } catch (error) {
    thrown ??= error;
  } finally {
    wire?.release();
  }
  misuse?.actLate(faults);
  for (const why of hostTarget?.refusals ?? []) faults.record(`the new host refuses the store: ${why}`);
  const recorded = recording.finish(models.requests, models.responses, models.origins);
  const hostParts: HostPart[] = [];
  if (options.model) hostParts.push('model');
  if (options.claim || (own.claim && !scenario.claim)) hostParts.push('claim');
  if (options.errorHandlers || (own.errorHandlers ?? []).length > 0) hostParts.push('errorHandlers');
  if (options.seams) hostParts.push('seams');
  return {
    scenario,
    agent: agentName,
    host: mode,
    results: recorded.results,
    log: recorded.log,
    store,
    requests: recorded.requests,
    traces: recorded.traces,
    executions: counters.byTool,
    executionsByCall: counters.byCall,
    executionsByToolCall: counters.byToolCall,
    toolBodies: counters.bodies,
    sideEffectLevels: new Map((agent.tools ?? []).map((t) => [t.name, t.sideEffect])),
    toolTimeouts: new Map(
      (agent.tools ?? []).map((t) => [t.name, t.timeoutMs !== undefined ? { ms: t.timeoutMs, declared: true } : { ms: DEFAULT_TIMEOUT_MS, declared: false }]),
    ),
    permissions: { visibility: withOperatorLayer(visibility, operator), policy: withOperatorRule(policy, operator), approver: agent.approver !== undefined },
    approvals,
    secrets: agent.secrets ?? [],
    virtualMs: clock.now(),
    ...(thrown !== undefined ? { thrown } : {}),
    faults: faults.entries,
    responses: recorded.responses,
    durableBefore: recorded.durableBefore,
    finalProjection: finalProjection(recorded.loop),
    config,
    storeWrites: world.writes(),
    hostParts,
    lives: recorded.lives,
    ...(recorded.unreadable !== undefined ? { unreadable: recorded.unreadable } : {}),
    lost: recorded.lost,
    reached: { ...reached },
    ...(misuse ? { spanMisuse: misuse.acts } : {}),
    ...(scenario.operator?.traceMode ? { traceMode: scenario.operator.traceMode } : {}),
    unfired: inbox.unfired(),
    ...(directTarget && directTarget.drainsLeftWork.length > 0 ? { drainsLeftWork: directTarget.drainsLeftWork } : {}),
    ...(hostTarget ? { posts: hostTarget.posts } : {}),
    prompt: prompt.result(),
    ...(wire ? { wire: { provider: scenario.provider.provider!, results: wire.results() } } : {}),
  };
}

/** The loop limits as an agent carries them (the model is the host's to name). */
function withoutModel(config: LoopConfig): AgentLoopConfig {
  const { model: _model, ...limits } = config;
  return limits;
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
