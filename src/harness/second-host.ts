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
  type Agent,
  DEFAULT_TIMEOUT_MS,
  EventLog,
  loopConfig,
  type ClaimPolicy,
  type AgentLoopConfig,
  type AnyEvent,
  type LoopConfig,
  type LoopDeps,
  type EventRecord,
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
  LOOPGATE_LOOP,
} from '../kernel/index.ts';
import type { MemoryEventStore, MemoryStoreFaults } from '../stores/memory-store.ts';
import { crashes, type HostMode, type Scenario } from './scenario/schema.ts';
import { VirtualClock } from './virtual-clock.ts';
import { wireProvider, withTimeOnTheWire, type WireProviderHandle, type WireSent } from './wire-provider.ts';
import { OwnClientStepError, ownProvider, type OwnProviderHandle } from './own-provider.ts';
import { agentNameOf, buildAgent, EMPTY_REGISTRY, scenarioAgent, type AgentRegistry } from './world/agent-under-test.ts';
import { CaseRecording, finalProjection, type LostWork } from './world/case-recording.ts';
import { FaultLog, type Fault } from './world/fault-log.ts';
import { WorldStore, type StoreWrites } from './world/faulty-store.ts';
import { hostConfigFor, SNAPSHOT_EVERY, type ConfigModel } from './world/host-config.ts';
import { operatorParts, withOperator, withOperatorLayer, withOperatorRule } from './world/operator-settings.ts';
import { HostTarget, type HostPost, type SessionsHeld } from './world/host-target.ts';
import type { FollowRecord } from './world/follow-check.ts';
import type { LiveFollowRecord } from './world/live-follower.ts';
import type { BadRequest } from './world/bad-requests.ts';
import type { SseReadFailure } from './world/sse-read-failure.ts';
import { InboxDriver, type InboxTarget, type UnfiredEntry } from './world/inbox-driver.ts';
import { directLoop, type LoopTarget } from './world/loop-target.ts';
import { ModelRecording, type ProviderCall, type SentRequest } from './world/recording-model.ts';
import type { ApprovalAnswer } from './world/recorded-approver.ts';
import type { CompactionCall } from './world/recorded-compactor.ts';
import { scriptedProvider, type CallIdCounter } from './world/scripted-provider.ts';
import { seededRandom } from './world/seeded-random.ts';
import { PromptRecorder, type CasePrompt } from './world/scripted-prompt.ts';
import { SpanMisuse, withExecutorFaults, type SpanMisuseAct } from './world/faulty-executor.ts';
import { TeamListener, type ListenerThrow } from './world/team-listener.ts';
import { waitForToldToStop, type ToolBodyRun } from './world/scripted-tools.ts';

export { seededRandom } from './world/seeded-random.ts';
export { describeStep } from './world/scripted-provider.ts';
export type { SentRequest, ProviderCall } from './world/recording-model.ts';
import { bystanderOf, CASE_CONVERSATION } from './world/case-conversation.ts';
export type { AgentRegistry } from './world/agent-under-test.ts';
export type { HostMode } from './scenario/schema.ts';

export { BYSTANDER_CONVERSATION, CASE_CONVERSATION } from './world/case-conversation.ts';

export interface ScenarioRun {
  /** The conversation this run tells of, as the store names it (`caseConversation`, or `case`; a bystander's `bystanderOf` it). */
  readonly conversation: string;
  /**
   * For a bystander's run: the scenario as its conversation saw it (its inbox, its provider script, its expect);
   * the case's own otherwise.
   */
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
  /**
   * Where each life of the case's log began (the events the store held when a process opened it), in order:
   * crash recovery writes first in its life. Absent for another loop's run.
   */
  readonly opens?: readonly number[];
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
  /** The tools declared `parallelSafe` (undefined: not known, e.g. another loop's run). */
  readonly parallelSafeTools?: ReadonlySet<string>;
  /** Each tool's declared `maxRetries` (undefined: it declares none), read from the declarations. */
  readonly toolMaxRetries?: ReadonlyMap<string, number | undefined>;
  /** The operator's wait before a tool's first retry (`config.toolRetryBackoffMs`), doubling with each; 0 when none is set. */
  readonly toolRetryBackoffMs?: number;
  /** The permissions in force: the agent's visibility layers and policy with the scenario's added, and whether an approver answered. */
  readonly permissions: { readonly visibility: readonly VisibilityLayer[]; readonly policy: ToolPolicy | undefined; readonly approver: boolean };
  /** Every answer the approver gave (the scenario's or the agent's own), in order. */
  readonly approvals: readonly ApprovalAnswer[];
  /** Every compaction the loop asked the compactor for (the scenario's or the agent's own), in order. */
  readonly compactions?: readonly CompactionCall[];
  /** The values that must never be written anywhere: the agent's and the scenario's. */
  readonly secrets: readonly string[];
  readonly virtualMs: number;
  /** Set if the loop (or the world) threw — a bug: nothing may throw across the loop's boundary. */
  readonly thrown?: unknown;
  /**
   * What the production host did that breaks its contract, though no turn shows it, in the order seen (a snapshot it
   * resumed from that the crash garbled, one it wrote and then refused, an agent it did not build for a conversation):
   * host-keeps-its-contract reports them.
   */
  readonly hostBreaches?: readonly string[];
  /** Set if the case was stopped as a runaway: a log (the case's, or its bystander's) passed the case's event limit. */
  readonly runaway?: Runaway;
  /** Faults the scenario injected, for the report's timeline. */
  readonly faults: readonly Fault[];
  /** Where each event of the final log was appended among the faults (`Fault.order`); absent for a peer loop's run. */
  readonly eventOrder?: ReadonlyMap<number, number>;
  /** How each provider call settled, aligned with `requests` (for provider-contract checks). */
  readonly responses: readonly ProviderCall[];
  /** `durableBefore[k]`: events the store held when event k of the final log was appended — what a crash at event k leaves. */
  readonly durableBefore: readonly number[];
  /** The virtual time record `seq` of this run's conversation was stored by a write that succeeded whole (a slow write lands late); undefined if none did. */
  readonly storedAt?: (seq: number) => number | undefined;
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
  /** A `misuses-span` executor's late acts (see faulty-executor.ts). */
  readonly spanMisuse?: readonly SpanMisuseAct[];
  /** The trace mode the case ran with (`operator.traceMode`; default production). */
  readonly traceMode?: 'dev' | 'production';
  /** The scenario's `listener`: each event a team's log listener threw at (see team-listener.ts). */
  readonly listenerThrows?: readonly ListenerThrow[];
  /**
   * How far the case got, for triggers: the events its running log reached (over every life), the deltas streamed,
   * the approval requests put to the approver, the checkpoint hook runs started, the tools with a start record appended.
   */
  readonly reached: {
    readonly events: number;
    readonly deltas: number;
    readonly approvals: number;
    readonly checkpoints: number;
    readonly recorded: ReadonlySet<string>;
  };
  /** Inbox entries whose trigger never fired (and a reopen whose crash never came), in inbox order. */
  readonly unfired: readonly UnfiredEntry[];
  /** The loop driven directly: drains that returned with waking work they should have run (invariant 9). */
  readonly drainsLeftWork?: readonly string[];
  /** Through the production host: every message posted, and the envelope the host answered with. */
  readonly posts?: readonly HostPost[];
  /** Production host: a UI following the conversation after the case, and what the store held (followers-replay-the-log). */
  readonly followed?: FollowRecord;
  /** Production host with `follow: live`: what a UI following the conversation while the case ran was shown (followers-show-only-stored). */
  readonly followedLive?: LiveFollowRecord;
  /** Production host: what the README says it refuses, sent after the case, and how it answered (host-refuses-bad-requests). */
  readonly badRequests?: readonly BadRequest[];
  /** Production host with secrets: a follow whose store read failed mid-stream, as the client received it (sse-errors-redacted). */
  readonly sseReadFailure?: SseReadFailure;
  /** Production host: each live process's conversations in memory once the case settled (host-keeps-sessions-bounded). */
  readonly sessionsHeld?: readonly SessionsHeld[];
  /** The agent's prompt fragments, and what each dynamic one gave while each request (in `requests`) was assembled. */
  readonly prompt: CasePrompt;
  /** After a crash, why the reopened host refused to read the conversation back (a store with a gap); the case is judged on what the store held. */
  readonly unreadable?: string;
  /**
   * For a wire-level provider: the provider, the adapter's result for each step of the script, in order (undefined: the
   * call never settled with one), and the key the fake served (a reply may quote it).
   */
  readonly wire?: {
    readonly provider: string;
    readonly results: readonly (ModelResult | undefined)[];
    /** Per step the fake served: the request the loop asked for and the body the SDK sent (adapter-sends-the-request). */
    readonly sent: readonly (WireSent | undefined)[];
    /** Why the wire fake refused each request the provider would refuse. */
    readonly refused: readonly string[];
    readonly apiKey: string;
  };
  /** The scenario's bystander: the second conversation on the same host, told as a run of its own. */
  readonly bystander?: ScenarioRun;
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
  /** The case's event limit exactly, in place of `eventLimitOf` (to reach a runaway without one). */
  readonly eventLimit?: number;
}

/** A case stopped because a log passed its event limit. */
export interface Runaway {
  readonly limit: number;
  readonly of: 'the case' | "the bystander's conversation";
}

/** What a runaway was: whose log passed which limit. */
export function runawayText(runaway: Runaway): string {
  const whose = runaway.of === 'the case' ? 'its log' : "its bystander's log";
  return `${whose} passed ${runaway.limit} events, the limit for this case (it grows with the scenario: ${EVENTS_PER_SCRIPTED_PART} events per step, message and tool call it scripts)`;
}

/** The event limit of a case when not told otherwise. */
export const DEFAULT_EVENT_LIMIT = 20_000;
/** Events a case may log for each step, message and tool call its scenario scripts (a turn logs about 8). */
export const EVENTS_PER_SCRIPTED_PART = 64;

/**
 * How many events a case's log (and its bystander's) may hold before the case is stopped as a runaway — a loop
 * that never settles: `floor` (default 20,000), or 64 for each step, message and tool call the scenario scripts,
 * whichever is more. A long conversation the schema allows (`times` up to 5,000) stays inside its limit.
 */
export function eventLimitOf(scenario: Scenario, floor: number = DEFAULT_EVENT_LIMIT): number {
  return Math.max(floor, EVENTS_PER_SCRIPTED_PART * scriptedParts(scenario));
}

/** The scenario's scripted steps, tool calls and messages (its own and its bystander's). */
function scriptedParts(scenario: Scenario): number {
  const steps = [...scenario.provider.script, ...(scenario.provider.fallback ?? []), ...(scenario.bystander?.provider ?? [])];
  const calls = steps.reduce((n, step) => n + (step.tool_use?.length ?? 0), 0);
  return steps.length + calls + scenario.inbox.length + (scenario.bystander?.inbox.length ?? 0);
}

/**
 * Events between snapshots of derived state through the production host: SNAPSHOT_EVERY (8), so every reopen
 * resumes from a snapshot; a long conversation's every 64th of its scripted parts, as each snapshot costs as much
 * as the conversation is long (a 1,000-turn case spent 3.5 s of CPU taking one every 8 events).
 */
export function snapshotEveryOf(scenario: Scenario): number {
  return Math.max(SNAPSHOT_EVERY, Math.ceil(scriptedParts(scenario) / 64));
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
  /** The floor of a case's event limit (`eventLimitOf`): a log that grows past the limit is stopped as a runaway. Default 20,000. */
  readonly maxEvents?: number;
  /** The model name the loop asks for (live runs name a real model). */
  readonly modelName?: string;
  /** The case's conversation id (`caseConversation`): its agent's `conversationId` and the first part of each idempotency key. Default `case`. */
  readonly conversation?: string;
  /** Test-only: see TestSeams. */
  readonly seams?: TestSeams;
}

/** The host a scenario runs through: a crash needs the production host; else the scenario's choice, else the run's. */
export function hostModeOf(scenario: Scenario, requested: HostMode | undefined): HostMode {
  if (crashes(scenario)) return 'production';
  return scenario.host ?? requested ?? 'loop';
}

export async function runScenario(scenario: Scenario, options: RunOptions): Promise<ScenarioRun> {
  // What the case acquired that outlives a throw while it sets up (the team's harness, started for it): let go however it ends.
  const leftOpen: (() => Promise<void>)[] = [];
  try {
    return await runScenarioHeld(scenario, options, leftOpen);
  } finally {
    await Promise.allSettled(leftOpen.map((release) => release()));
  }
}

async function runScenarioHeld(scenario: Scenario, options: RunOptions, leftOpen: (() => Promise<void>)[]): Promise<ScenarioRun> {
  const mode = hostModeOf(scenario, options.host);
  if (mode === 'production' && options.seams?.wrapTools)
    throw new Error('the wrapTools seam reaches the loop only when the harness drives it directly (host: loop); wrap its dependencies instead');
  const conversation = options.conversation ?? CASE_CONVERSATION;
  const bystanderConversation = bystanderOf(conversation);
  const clock = new VirtualClock();
  const random = seededRandom(options.seed);
  const faults = new FaultLog(clock);
  // One production host keeps the case's store in a SQLite file, as a deploy does by default (case-store.ts).
  const world = new WorldStore(scenario.store, faults, {
    ...(options.seams?.store ? { make: options.seams.store } : {}),
    sqlite: mode === 'production' && scenario.hosts === undefined,
    track: (work) => clock.track(work),
    sleep: (ms) => clock.sleep(ms),
  });
  const store = world.store;
  let inbox: InboxDriver | undefined;
  // A runaway case (a loop that never settles) is stopped and reported, not left to eat memory.
  const maxEvents = options.seams?.eventLimit ?? eventLimitOf(scenario, options.maxEvents);
  let thrown: unknown;
  const hostBreaches: string[] = [];
  let runaway: Runaway | undefined;
  let stopRunaway: () => void = () => undefined;
  const reached = { events: 0, deltas: 0, approvals: 0, checkpoints: 0, recorded: new Set<string>() };
  const recording = new CaseRecording(
    () => store.count(conversation),
    (seq, event) => {
      reach(reached, seq, event);
      faults.appended(seq);
      inbox?.onEvent(seq, event);
      if (seq + 1 === maxEvents) {
        runaway ??= { limit: maxEvents, of: 'the case' };
        stopRunaway();
      }
    },
    { takenUpAgain: (scenario.hosts ?? 1) > 1 },
  );

  // --- the agent under test, with the scenario's scripts ---------------------------
  const registry = options.agents ?? EMPTY_REGISTRY;
  const agentName = agentNameOf(scenario, registry);
  const own = await buildAgent(agentName, registry, { clock, random: seededRandom(options.seed ^ 0x5eed), conversationId: conversation, loop: LOOPGATE_LOOP });
  const prompt = new PromptRecorder();
  const { agent, counters, policy, visibility, approvals, compactions } = scenarioAgent(own, scenario, {
    name: agentName,
    clock,
    faults,
    prompt,
    ...agentTaps(reached, () => inbox),
    storedCall: (callId) => storesCall(world.store.peek(conversation), callId),
    startStored: (callId) => storesOpenStart(world.store.peek(conversation), callId),
    ...(options.claim ? { claim: options.claim } : {}),
    ...(options.errorHandlers ? { errorHandlers: options.errorHandlers } : {}),
  });
  const redact = createRedactor({ secrets: agent.secrets ?? [] });
  const operator = operatorParts(scenario.operator);

  // --- the provider, recorded --------------------------------------------------------
  const models = recordedModels(reached, () => inbox, recording, prompt, clock);
  const callIds: CallIdCounter = { next: 1 };
  const wrapModel = options.seams?.wrapModel ?? ((client: ModelClient) => client);
  const scripted = (steps: Scenario['provider']['script'], name: string, model: string | undefined) =>
    wrapModel(scriptedProvider(steps, name, clock, faults, callIds, model));
  // A wire-level provider: the real SDK parses the provider's protocol, written by the wire fake. Each client
  // has a key of its own, the only one its fake serves: a host that builds a client with another's key is told 401.
  const onTheWire = !options.model && scenario.provider.kind === 'wire';
  const wire = onTheWire
    ? await wireProvider(scenario.provider.provider!, scenario.provider.script, scenario.provider.model ?? 'scenario-model', WIRE_KEYS.primary, clock)
    : undefined;
  const fallbackWire =
    onTheWire && scenario.provider.fallback
      ? await wireProvider(
          scenario.provider.provider!,
          scenario.provider.fallback,
          scenario.provider.fallbackModel ?? 'fallback-model',
          WIRE_KEYS.fallback,
          clock,
        )
      : undefined;
  // The team's own client (config `clients`): each step made by its contract harness's fake, answered through it.
  const { own: ownClient, ownFallback } = !options.model && scenario.provider.kind === 'own' ? await ownClients(scenario, registry, conversation) : {};
  for (const handle of [ownClient, ownFallback]) if (handle) leftOpen.push(() => handle.release());
  const real = options.model ?? wire?.client ?? ownClient?.client;
  const model = models.wrap(
    real
      ? withTimeOnTheWire(real, clock, () => wire?.serving() ?? ownClient?.serving())
      : scripted(scenario.provider.script, 'scripted', scenario.provider.model),
  );
  // Each client is asked for its own model (field failure: a fallback asked for the primary's).
  const fallbackClient = fallbackWire ?? ownFallback;
  const fallbackModels = fallbackClient
    ? [models.wrap(withTimeOnTheWire(fallbackClient.client, clock, () => fallbackClient.serving()))]
    : scenario.provider.fallback
      ? [models.wrap(scripted(scenario.provider.fallback, 'fallback', scenario.provider.fallbackModel ?? 'fallback-model'))]
      : undefined;

  // --- the bystander: a second conversation on the same host and store ------------------
  const other = scenario.bystander
    ? await bystanderWorld(scenario, options, {
        clock,
        registry,
        agentName,
        wrapModel,
        maxEvents,
        world,
        conversation: bystanderConversation,
        ranAway: () => {
          runaway ??= { limit: maxEvents, of: "the bystander's conversation" };
        },
      })
    : undefined;

  // --- the host ------------------------------------------------------------------------
  const toolOptions = {
    ...(scenario.config.toolMaxOutputChars ? { maxOutputChars: scenario.config.toolMaxOutputChars } : {}),
    ...(scenario.config.toolRetryBackoffMs !== undefined ? { retryBackoffMs: scenario.config.toolRetryBackoffMs } : {}),
  };
  const config = loopConfig(agent, { model: options.modelName ?? 'scenario-model', ...scenarioConfig(scenario) });
  let target: InboxTarget;
  let finish: () => Promise<void> = async () => undefined;
  let hostTarget: HostTarget | undefined;
  let directTarget: LoopTarget | undefined;
  // A scenario's contract-breaking tool executor, inside any test seam's loop variant.
  const misuse = scenario.tools.some((t) => t.executor === 'misuses-span' || t.executor === 'leaves-span-open') ? new SpanMisuse() : undefined;
  const executorFaults = withExecutorFaults(scenario, faults, misuse, agent.secrets ?? []);
  // A team's listener on the case's log that throws (the scenario's listener).
  const listener = scenario.listener ? new TeamListener(scenario.listener.throwsOn, faults) : undefined;
  const seamDeps = options.seams?.wrapDeps;
  const wrapDeps = executorFaults && seamDeps ? (deps: LoopDeps) => seamDeps(executorFaults(deps)) : (executorFaults ?? seamDeps);
  if (mode === 'production') {
    let ids = 0;
    // The host builds every client from its YAML, as a deploy does: a wire entry names the fake's address and
    // the variable holding its key, and the host's own adapter goes on the wire (recorded as the loop host's is).
    const entries = [
      { key: 'model', name: scenario.provider.model ?? config.model, wire, script: scenario.provider.script, scripted: model },
      ...(fallbackModels
        ? [
            {
              key: 'model.fallback[0]',
              name: scenario.provider.fallbackModel ?? 'fallback-model',
              wire: fallbackWire,
              script: scenario.provider.fallback ?? [],
              scripted: fallbackModels[0]!,
            },
          ]
        : []),
    ];
    const onWire = (entry: (typeof entries)[number]) =>
      entry.wire ? hostWireClient(entry.wire, (client) => models.wrap(withTimeOnTheWire(client, clock, () => entry.wire!.serving()))) : undefined;
    const hostClients = new Map(entries.map((entry) => [entry.key, onWire(entry)]));
    const configModel = (entry: (typeof entries)[number], i: number): ConfigModel =>
      entry.wire
        ? {
            provider: scenario.provider.provider!,
            name: entry.name,
            baseURL: entry.wire.baseURL,
            apiKeyEnv: i === 0 ? WIRE_KEY_ENV.primary : WIRE_KEY_ENV.fallback,
          }
        : { provider: 'fake', name: entry.name };
    hostTarget = await HostTarget.start({
      conversation,
      config: hostConfigFor(
        { primary: configModel(entries[0]!, 0), fallbacks: entries.slice(1).map((entry, i) => configModel(entry, i + 1)) },
        toolOptions,
        scenario.operator,
        scenario.hosts !== undefined,
        scenarioConfig(scenario),
        snapshotEveryOf(scenario),
      ),
      env: {
        ...(wire ? { [WIRE_KEY_ENV.primary]: wire.apiKey } : {}),
        ...(fallbackWire ? { [WIRE_KEY_ENV.fallback]: fallbackWire.apiKey } : {}),
      },
      modelClient: (spec, build) => {
        const entry = entries.find((e) => e.key === spec.key);
        if (!entry) throw new Error(`the production host built a client for ${spec.key}, which the case's config does not name`);
        const onTheWire = hostClients.get(entry.key);
        return onTheWire ? onTheWire(build(spec)) : entry.scripted;
      },
      ...(scenario.hosts !== undefined ? { hosts: scenario.hosts } : {}),
      ...(scenario.follow === 'live' ? { followLive: true } : {}),
      ...(scenario.secretsOnReopen ? { secretsOnReopen: scenario.secretsOnReopen } : {}),
      ...(listener ? { listener } : {}),
      store: world,
      // The agent carries its own loop limits, as a team's agent does; the scenario's are the operator's, in the
      // host's YAML, which the host lays over the agent's (host-config.ts).
      agent: { ...agent, config: withoutModel(loopConfig(agent, { model: config.model })) },
      clock,
      random,
      newId: () => `m${++ids}`,
      recording,
      ...(wrapDeps ? { wrapLoopDeps: wrapDeps } : {}),
      problem: (error) => {
        hostBreaches.push(error.message);
      },
      ...(other
        ? {
            others: [
              {
                conversation: bystanderConversation,
                agent: { ...other.agent, config: withoutModel(loopConfig(other.agent, { model: other.config.model })) },
                model: other.model,
                recording: other.recording,
                problem: other.problem,
              },
            ],
          }
        : {}),
    });
    target = hostTarget;
    if (other) {
      const client = hostTarget.other(bystanderConversation);
      other.target = client;
      other.posts = () => client.posts;
    }
    stopRunaway = () => hostTarget!.stop();
  } else {
    const direct = directLoop({
      conversation,
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
      ...(listener ? { listener } : {}),
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
    if (other) {
      const bystander = directLoop({
        conversation: bystanderConversation,
        store: world,
        agent: withOperator(other.agent, operator),
        model: other.model,
        clock,
        random: other.random,
        redact,
        config: other.config,
        toolOptions,
        recording: other.recording,
        ...(scenario.operator?.traceMode ? { traceMode: scenario.operator.traceMode } : {}),
      });
      other.target = bystander;
      other.finish = () => bystander.finish();
      other.drainsLeftWork = () => bystander.drainsLeftWork;
      const stopCase = stopRunaway;
      stopRunaway = () => {
        stopCase();
        bystander.stop();
      };
    }
  }
  if (other) other.stopCase = () => stopRunaway();

  // --- drive ------------------------------------------------------------------
  inbox = new InboxDriver(scenario.inbox, target, clock, faults, (error) => {
    thrown ??= error;
  });
  const bystanderInbox = other ? other.drive() : undefined;
  try {
    // Then the agent's own tool bodies told to stop that still run are given a moment to end, virtual time going on
    // (a body waiting on the agent's clock before it checks its signal ends then): their late writes are then seen.
    await clock.run(
      Promise.all([
        inbox
          .drive()
          .then(() => finish())
          .then(() => waitForToldToStop(counters)),
        bystanderInbox,
      ]),
      { realWaitLimitMs: options.realWaitLimitMs ?? 10_000 },
    );
  } catch (error) {
    thrown ??= error;
  } finally {
    wire?.release();
    fallbackWire?.release();
    // A harness whose stop throws is the team's code failing: told among the case's faults.
    for (const handle of [ownClient, ownFallback])
      await handle
        ?.release()
        .catch((error: unknown) => faults.record(`client ${scenario.provider.client}'s harness stop threw: ${String((error as Error)?.message ?? error)}`));
  }
  // A write handed to the store settles before the case is judged (a SQLite file commits a turn of the event loop later).
  await world.drained();
  misuse?.actLate(faults);
  for (const why of hostTarget?.refusals ?? []) faults.record(`the new host refuses the store: ${why}`);
  // A UI following the conversation through the production host's event stream, after the case (follow-check.ts).
  // And a client sending what the README says the host refuses (bad-requests.ts).
  let followed: FollowRecord | undefined;
  let badRequests: readonly BadRequest[] | undefined;
  let sseReadFailure: SseReadFailure | undefined;
  let followedLive: LiveFollowRecord | undefined;
  let sessionsHeld: readonly SessionsHeld[] | undefined;
  if (hostTarget) {
    try {
      sessionsHeld = await hostTarget.sessionsHeld();
    } catch (error) {
      thrown = error;
    }
    // The UI that followed while the case ran catches up with the store, then leaves (live-follower.ts).
    try {
      followedLive = await hostTarget.finishFollowing();
    } catch (error) {
      thrown ??= error;
    }
  }
  if (hostTarget && thrown === undefined) {
    try {
      followed = await hostTarget.followAfterTheCase();
      badRequests = await hostTarget.sendBadRequests();
      sseReadFailure = await hostTarget.followWithFailingRead();
    } catch (error) {
      thrown = error;
    }
  }
  const recorded = recording.finish(models.requests, models.responses, models.origins);
  const hostParts: HostPart[] = [];
  if (options.model) hostParts.push('model');
  if (options.claim || (own.claim && !scenario.claim)) hostParts.push('claim');
  if (options.errorHandlers || (own.errorHandlers ?? []).length > 0) hostParts.push('errorHandlers');
  if (options.seams) hostParts.push('seams');
  const run: ScenarioRun = {
    conversation,
    scenario,
    agent: agentName,
    host: mode,
    results: recorded.results,
    log: recorded.log,
    store: await world.finish(),
    requests: recorded.requests,
    traces: recorded.traces,
    opens: recorded.opens,
    executions: counters.byTool,
    executionsByCall: counters.byCall,
    executionsByToolCall: counters.byToolCall,
    toolBodies: counters.bodies,
    sideEffectLevels: new Map((agent.tools ?? []).map((t) => [t.name, t.sideEffect])),
    toolTimeouts: new Map(
      (agent.tools ?? []).map((t) => [t.name, t.timeoutMs !== undefined ? { ms: t.timeoutMs, declared: true } : { ms: DEFAULT_TIMEOUT_MS, declared: false }]),
    ),
    toolMaxRetries: new Map((agent.tools ?? []).map((t) => [t.name, t.maxRetries])),
    toolRetryBackoffMs: scenario.config.toolRetryBackoffMs ?? 0,
    parallelSafeTools: new Set((agent.tools ?? []).filter((t) => t.parallelSafe === true).map((t) => t.name)),
    permissions: { visibility: withOperatorLayer(visibility, operator), policy: withOperatorRule(policy, operator), approver: agent.approver !== undefined },
    approvals,
    compactions,
    // The team's client's credentials, and the keys the wire fakes serve: no log, trace or report of the case may
    // carry one (an adapter scrubs the key it sent from what a provider quotes back; the loop is never told it).
    secrets: [
      ...(agent.secrets ?? []),
      ...(ownClient?.secrets ?? []),
      ...(ownFallback?.secrets ?? []),
      ...(wire ? [wire.apiKey] : []),
      ...(fallbackWire ? [fallbackWire.apiKey] : []),
    ],
    virtualMs: clock.now(),
    ...(thrown !== undefined ? { thrown } : {}),
    ...(hostBreaches.length > 0 ? { hostBreaches: [...hostBreaches] } : {}),
    ...(runaway !== undefined ? { runaway } : {}),
    faults: faults.entries,
    eventOrder: faults.eventOrder,
    responses: recorded.responses,
    durableBefore: recorded.durableBefore,
    storedAt: (seq) => world.storedAt(conversation, seq),
    finalProjection: finalProjection(recorded.loop),
    config,
    storeWrites: world.writes(),
    hostParts,
    lives: recorded.lives,
    ...(recorded.unreadable !== undefined ? { unreadable: recorded.unreadable } : {}),
    lost: recorded.lost,
    reached: { ...reached, recorded: new Set(reached.recorded) },
    ...(misuse ? { spanMisuse: misuse.acts } : {}),
    ...(listener ? { listenerThrows: listener.thrown } : {}),
    ...(scenario.operator?.traceMode ? { traceMode: scenario.operator.traceMode } : {}),
    unfired: inbox.unfired(),
    ...(directTarget && directTarget.drainsLeftWork.length > 0 ? { drainsLeftWork: directTarget.drainsLeftWork } : {}),
    ...(hostTarget ? { posts: hostTarget.posts } : {}),
    ...(followed ? { followed } : {}),
    ...(followedLive ? { followedLive } : {}),
    ...(badRequests ? { badRequests } : {}),
    ...(sseReadFailure ? { sseReadFailure } : {}),
    ...(sessionsHeld ? { sessionsHeld } : {}),
    prompt: prompt.result(),
    ...(wire
      ? { wire: { provider: scenario.provider.provider!, results: wire.results(), sent: wire.sent(), refused: wire.refused(), apiKey: wire.apiKey } }
      : {}),
  };
  return other ? { ...run, bystander: other.run(run) } : run;
}

/** Whether the records hold the model's call `callId` (an `assistant.message` with it). */
function storesCall(records: readonly EventRecord[], callId: string): boolean {
  return records.some(
    (r) =>
      r.type === 'assistant.message' &&
      ((r.payload as { content?: readonly { type: string; id?: string }[] }).content ?? []).some((b) => b.type === 'tool_call' && b.id === callId),
  );
}

/** Whether the last record of call `callId` stored is its start: the call started and has no result yet. */
function storesOpenStart(records: readonly EventRecord[], callId: string): boolean {
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i]!;
    if ((r.type !== 'tool.started' && r.type !== 'tool.result') || (r.payload as { callId?: unknown }).callId !== callId) continue;
    return r.type === 'tool.started';
  }
  return false;
}

/** The team's own clients for the case (`provider.kind: own`): the primary's script, and the fallback's when it has one. */
async function ownClients(
  scenario: Scenario,
  registry: AgentRegistry,
  conversation: string,
): Promise<{ own?: OwnProviderHandle; ownFallback?: OwnProviderHandle }> {
  const name = scenario.provider.client!;
  const harness = registry.clients?.get(name);
  if (!harness) throw new OwnClientStepError(`provider.client: no client ${JSON.stringify(name)} in the config's clients`);
  const own = await ownProvider(name, harness, scenario.provider.script, conversation, { model: scenario.provider.model ?? 'scenario-model' });
  if (!scenario.provider.fallback) return { own };
  try {
    const fallback = await ownProvider(name, harness, scenario.provider.fallback, conversation, {
      which: 'fallback',
      model: scenario.provider.fallbackModel ?? 'fallback-model',
    });
    return { own, ownFallback: fallback };
  } catch (error) {
    await own.release();
    throw error;
  }
}

/** The keys the case's wire fakes serve, one per client, and the variables a host's config reads them from. */
const WIRE_KEYS = { primary: 'wire-fake-key-primary', fallback: 'wire-fake-key-fallback' } as const;
const WIRE_KEY_ENV = { primary: 'LOOPGATE_CASE_MODEL_KEY', fallback: 'LOOPGATE_CASE_FALLBACK_KEY' } as const;

/**
 * A wire client the production host builds from its config, once per process:
 * one recorded client for the case (`wrap`: the recording, time on the wire),
 * over whichever adapter the host built last.
 */
function hostWireClient(handle: WireProviderHandle, wrap: (client: ModelClient) => ModelClient): (built: ModelClient) => ModelClient {
  let current: ModelClient | undefined;
  let stable: ModelClient | undefined;
  return (built) => {
    current = built;
    stable ??= wrap(
      handle.track({
        name: built.name,
        ...(built.model !== undefined ? { model: built.model } : {}),
        call: (request, onDelta) => current!.call(request, onDelta),
      }),
    );
    return stable;
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
      temperature: c.temperature,
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

/** What a conversation's run has reached so far (the inbox driver posts at these moments). */
interface Reached {
  events: number;
  deltas: number;
  approvals: number;
  checkpoints: number;
  readonly recorded: Set<string>;
}

/** What an event a live process's log appended brings the case to, for triggers: its length, and a tool's first start record. */
function reach(reached: Reached, seq: number, event: AnyEvent): void {
  reached.events = Math.max(reached.events, seq + 1);
  if (!event.opaque && event.type === 'tool.started') reached.recorded.add(event.payload.name);
}

/** The provider's recording of a conversation: each request and delta told to its inbox driver, once it has one. */
function recordedModels(
  reached: Reached,
  inbox: () => InboxDriver | undefined,
  recording: CaseRecording,
  prompt: PromptRecorder,
  clock: VirtualClock,
): ModelRecording {
  return new ModelRecording({
    // When each call was sent and settled, on the case's clock (usage-as-the-model-reported).
    now: () => clock.now(),
    onRequest: (n) => inbox()?.onRequest(n),
    onDelta: (n) => {
      reached.deltas = n;
      inbox()?.onDelta(n);
    },
    origin: () => recording.origin(),
    onSent: (request) => prompt.sent(request),
  });
}

/** The agent's moments its inbox driver posts at: a tool's body starting (its attempt), an approval asked, a checkpoint hook run. */
function agentTaps(reached: Reached, inbox: () => InboxDriver | undefined) {
  return {
    onStart: (name: string, attempt: number) => inbox()?.onToolStart(name, attempt),
    onApproval: (n: number) => {
      reached.approvals = n;
      inbox()?.onApproval(n);
    },
    onCheckpoint: (n: number) => {
      reached.checkpoints = n;
      inbox()?.onCheckpoint(n);
    },
  };
}

/** What the bystander's conversation brings to the case's world, and how it is driven and told. */
interface BystanderWorld {
  readonly agent: Agent;
  readonly config: LoopConfig;
  readonly model: ModelClient;
  readonly recording: CaseRecording;
  readonly random: () => number;
  readonly problem: (error: Error) => void;
  /** Its client: set once the host is built. */
  target: InboxTarget | undefined;
  finish: () => Promise<void>;
  posts: () => readonly HostPost[] | undefined;
  drainsLeftWork: () => readonly string[];
  /** Stops the whole case as a runaway. */
  stopCase: () => void;
  /** Plays its inbox (alongside the case's). */
  drive(): Promise<void>;
  /** Its conversation as a run of its own, beside the case's run (sharing the case's store, clock and settings). */
  run(caseRun: ScenarioRun): ScenarioRun;
}

/**
 * The scenario's bystander: its own agent (built by the registry for its conversation, with the scenario's
 * scripts, tools counted apart), its own provider script and recordings, its own inbox driver — so its
 * triggers count its own requests, events and deltas, and the case's own conversation runs exactly as it
 * would without it.
 */
async function bystanderWorld(
  scenario: Scenario,
  options: RunOptions,
  parts: {
    readonly clock: VirtualClock;
    readonly registry: AgentRegistry;
    readonly agentName: string;
    readonly wrapModel: (client: ModelClient) => ModelClient;
    readonly maxEvents: number;
    /** Tells the case its bystander's log passed `maxEvents`. */
    readonly ranAway: () => void;
    readonly world: WorldStore;
    /** The bystander's conversation id (`bystanderOf` the case's). */
    readonly conversation: string;
  },
): Promise<BystanderWorld> {
  const b = scenario.bystander!;
  const { clock } = parts;
  const { bystander: _bystander, ...rest } = scenario;
  const seen: Scenario = {
    ...rest,
    inbox: b.inbox,
    provider: { kind: 'scripted', script: b.provider, ...(scenario.provider.model !== undefined ? { model: scenario.provider.model } : {}) },
    expect: b.expect,
  };
  const faults = new FaultLog(clock);
  const reached = { events: 0, deltas: 0, approvals: 0, checkpoints: 0, recorded: new Set<string>() };
  const store = parts.world.store;
  let inbox: InboxDriver | undefined;
  let thrown: unknown;
  const hostBreaches: string[] = [];
  const recording = new CaseRecording(
    () => store.count(parts.conversation),
    (seq, event) => {
      reach(reached, seq, event);
      faults.appended(seq);
      inbox?.onEvent(seq, event);
      if (seq + 1 === parts.maxEvents) {
        parts.ranAway();
        self.stopCase();
      }
    },
  );
  const own = await buildAgent(parts.agentName, parts.registry, {
    clock,
    random: seededRandom(options.seed ^ 0xb157),
    conversationId: parts.conversation,
    loop: LOOPGATE_LOOP,
  });
  const prompt = new PromptRecorder();
  const { agent, counters, approvals, compactions } = scenarioAgent(own, seen, {
    name: parts.agentName,
    clock,
    faults,
    prompt,
    ...agentTaps(reached, () => inbox),
    startStored: (callId) => storesOpenStart(store.peek(parts.conversation), callId),
    ...(options.claim ? { claim: options.claim } : {}),
    ...(options.errorHandlers ? { errorHandlers: options.errorHandlers } : {}),
  });
  const models = recordedModels(reached, () => inbox, recording, prompt, clock);
  const model = models.wrap(parts.wrapModel(scriptedProvider(b.provider, 'scripted', clock, faults, { next: 1 }, scenario.provider.model)));
  const config = loopConfig(agent, { model: options.modelName ?? 'scenario-model', ...scenarioConfig(scenario) });
  const self: BystanderWorld = {
    agent,
    config,
    model,
    recording,
    random: seededRandom(options.seed ^ 0xb157),
    problem: (error) => {
      hostBreaches.push(error.message);
    },
    target: undefined,
    finish: async () => undefined,
    posts: () => undefined,
    drainsLeftWork: () => [],
    stopCase: () => undefined,
    async drive() {
      inbox = new InboxDriver(b.inbox, self.target!, clock, faults, (error) => {
        thrown ??= error;
      });
      await inbox.drive();
      await self.finish();
      // The bystander's own tool bodies told to stop, as the case's (review of stop 57, M2).
      await waitForToldToStop(counters);
    },
    run(caseRun) {
      const recorded = recording.finish(models.requests, models.responses, models.origins);
      const {
        thrown: _t,
        hostBreaches: _h,
        drainsLeftWork: _d,
        posts: _p,
        unreadable: _u,
        spanMisuse: _s,
        listenerThrows: _l,
        wire: _w,
        bystander: _b,
        ...shared
      } = caseRun;
      const posts = self.posts();
      const left = self.drainsLeftWork();
      return {
        ...shared,
        conversation: parts.conversation,
        scenario: seen,
        results: recorded.results,
        log: recorded.log,
        requests: recorded.requests,
        traces: recorded.traces,
        opens: recorded.opens,
        executions: counters.byTool,
        executionsByCall: counters.byCall,
        executionsByToolCall: counters.byToolCall,
        toolBodies: counters.bodies,
        sideEffectLevels: new Map((agent.tools ?? []).map((t) => [t.name, t.sideEffect])),
        approvals,
        compactions,
        secrets: agent.secrets ?? [],
        ...(thrown !== undefined ? { thrown } : {}),
        ...(hostBreaches.length > 0 ? { hostBreaches: [...hostBreaches] } : {}),
        faults: faults.entries,
        eventOrder: faults.eventOrder,
        responses: recorded.responses,
        durableBefore: recorded.durableBefore,
        storedAt: (seq) => parts.world.storedAt(parts.conversation, seq),
        finalProjection: finalProjection(recorded.loop),
        config,
        lives: recorded.lives,
        lost: recorded.lost,
        reached: { ...reached, recorded: new Set(reached.recorded) },
        unfired: inbox?.unfired() ?? [],
        ...(left.length > 0 ? { drainsLeftWork: left } : {}),
        ...(posts ? { posts } : {}),
        prompt: prompt.result(),
      };
    },
  };
  return self;
}
