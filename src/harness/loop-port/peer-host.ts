/**
 * The second host for another framework's loop: the same world a loopgate case
 * gets — the agent's tools with the scenario's scripts, the scenario's provider
 * script on a virtual clock (or the wire fake), the inbox script with its
 * triggers — around a peer's loop behind the loop-under-test port. The global
 * timers run on the case's clock while it runs (virtual-timers.ts); a turn that
 * is still running when nothing is left to wait on is reported unsettled.
 */
import { loopConfig, type LoopConfig, type Message, type ModelClient } from '../../kernel/index.ts';
import { WIRE_KITS } from '../../../providers/wire-fakes/kits.ts';
import { wirePlanFor, wirePlanForRequest } from '../../../providers/contract-suite/wire-plan.ts';
import { acquireWireFake } from '../../../providers/wire-fakes/server.ts';
import type { Scenario } from '../scenario/schema.ts';
import { VirtualClock, VirtualClockStallError } from '../virtual-clock.ts';
import { behaviourFor } from '../wire-provider.ts';
import { AgentBuildError, agentNameOf, buildAgent, EMPTY_REGISTRY, scenarioAgent, type AgentRegistry } from '../world/agent-under-test.ts';
import { CASE_CONVERSATION } from '../world/case-conversation.ts';
import { FaultLog } from '../world/fault-log.ts';
import { InboxDriver } from '../world/inbox-driver.ts';
import { ModelRecording } from '../world/recording-model.ts';
import { scriptedProvider, type CallIdCounter } from '../world/scripted-provider.ts';
import { seededRandom } from '../world/seeded-random.ts';
import { buildAdapter, readAdapter } from './built-adapter.ts';
import { PeerDriver } from './peer-driver.ts';
import { heldForApproval } from './tool-approval.ts';
import type { DeliveredCancel, PeerRun, ToolRun } from './peer-run.ts';
import type { LoopUnderTestFactory, PeerTool, PeerWorld } from './peer-world.ts';
import { withVirtualTimers } from './virtual-timers.ts';

export interface PeerRunOptions {
  readonly seed: number;
  readonly agents?: AgentRegistry;
  /** Real time to wait with nothing pending in virtual time before the case is called unsettled. Default 2 s (20 s over the wire, where retries wait in real time). */
  readonly realWaitLimitMs?: number;
  /** The case's conversation id (`caseConversation`). Default `case`. */
  readonly conversation?: string;
}

export async function runPeerScenario(scenario: Scenario, factory: LoopUnderTestFactory, options: PeerRunOptions): Promise<PeerRun> {
  const clock = new VirtualClock();
  const wire = scenario.provider.kind === 'wire';
  // Over the wire the peer waits on real sockets: its timers stay real (a stated limit), or the clock would fire them early.
  return wire ? runOn(clock, scenario, factory, options) : withVirtualTimers(clock, () => runOn(clock, scenario, factory, options));
}

async function runOn(clock: VirtualClock, scenario: Scenario, factory: LoopUnderTestFactory, options: PeerRunOptions): Promise<PeerRun> {
  const faults = new FaultLog(clock);
  let inbox: InboxDriver | undefined;
  let driver: PeerDriver | undefined;
  const registry = options.agents ?? EMPTY_REGISTRY;
  const agentName = agentNameOf(scenario, registry);
  const conversation = options.conversation ?? CASE_CONVERSATION;
  const own = await buildAgent(agentName, registry, {
    clock,
    random: seededRandom(options.seed ^ 0x5eed),
    conversationId: conversation,
    loop: factory.agentLoop ?? factory.id,
  });
  const { agent, counters, approvals } = scenarioAgent(own, scenario, {
    name: agentName,
    clock,
    faults,
    onStart: (name, attempt) => inbox?.onToolStart(name, attempt),
    onApproval: (n) => inbox?.onApproval(n),
    // No onCheckpoint: a scenario waiting for a checkpoint hook's run needs the `checkpoints` capability, which no
    // loop behind the port has (requirements.ts), so such a case is skipped here.
  });
  const config = loopConfig(agent, { model: scenario.provider.model ?? 'scenario-model', ...limits(scenario) });

  const requestTurns: number[] = [];
  const models = new ModelRecording({
    onRequest: (n) => {
      requestTurns.push(driver?.running ?? -1);
      inbox?.onRequest(n);
    },
    onDelta: (n) => inbox?.onDelta(n),
    now: () => clock.now(),
  });
  const callIds: CallIdCounter = { next: 1 };
  const model: ModelClient = models.wrap(scriptedProvider(scenario.provider.script, 'scripted', clock, faults, callIds, scenario.provider.model));
  const wire = scenario.provider.kind === 'wire' ? wireFor(scenario) : undefined;

  const toolRuns: ToolRun[] = [];
  const tools: PeerTool[] = (agent.tools ?? []).map((t) => ({
    name: t.name,
    description: t.description,
    input: t.input,
    sideEffect: t.sideEffect,
    ...(t.timeoutMs !== undefined ? { timeoutMs: t.timeoutMs } : {}),
    run: async (args, { callId, signal }) => {
      // The key loopgate's own tool pipeline gives (`<conversation>/<tool>:<call id>`): a ledger shared across
      // conversations must not take two customers' calls that got one id from the model for one (outside probe 33, A3).
      const idempotencyKey = `${conversation}/${t.name}:${callId}`;
      const record: ToolRun = {
        turn: driver?.running ?? -1,
        callId,
        name: t.name,
        sideEffect: t.sideEffect,
        settled: 'running',
        startedAt: faults.place(),
        startedMs: clock.now(),
        args,
        signalGiven: signal !== undefined,
      };
      toolRuns.push(record);
      // When the signal the loop gave aborts: a loop that never tells a body it cut loose to stop leaves it writing.
      if (signal?.aborted) record.abortedMs = record.startedMs;
      else signal?.addEventListener('abort', () => (record.abortedMs = clock.now()), { once: true });
      const ended = (how: 'returned' | 'threw') => {
        record.settled = how;
        record.endedMs = clock.now();
      };
      try {
        const out = await t.run(args as never, { signal: signal ?? new AbortController().signal, callId, attempt: 1, idempotencyKey });
        ended('returned');
        return out;
      } catch (error) {
        ended('threw');
        throw error;
      }
    },
  }));
  const world: PeerWorld = {
    model,
    ...(wire ? { wire: wire.address } : {}),
    tools,
    clock,
    system: typeof agent.system === 'string' ? agent.system : '',
    built: own,
    maxSteps: config.maxSteps,
    maxTokens: config.maxTokens,
    retries: config.retry.immediateRetries + config.retry.backoffRetries,
    failWrites: scenario.store?.failAppends ?? [],
    ...(agent.approver ? { approver: agent.approver } : {}),
    // The wire's key is one of the case's secrets (invariant 15 judges the run on it): a loop is told it with the rest,
    // in a frozen copy (a loop that cleared its list would have emptied what it is judged on, and the agent's own).
    secrets: Object.freeze([...(agent.secrets ?? []), ...(wire ? [PEER_WIRE_KEY] : [])]),
  };
  const adapter = await buildAdapter(factory, world);
  const histories: (readonly Message[])[] = [];
  const cancels: DeliveredCancel[] = [];
  const closedMs: number[] = [];
  driver = new PeerDriver(factory.capabilities, adapter, {
    turnStarted: () => histories.push(kept(readAdapter(factory, 'persistedHistory', () => adapter.persistedHistory()))),
    cancelled: (turn, by) => cancels.push({ turn, by, at: faults.place(), ms: clock.now() }),
    turnEnded: (turn) => {
      closedMs[turn] = clock.now();
    },
  });

  let thrown: unknown;
  let unsettled: PeerRun['unsettled'];
  inbox = new InboxDriver(scenario.inbox, driver, clock, faults, (error) => {
    thrown ??= error;
  });
  try {
    await clock.run(inbox.drive(), { realWaitLimitMs: options.realWaitLimitMs ?? (wire ? 20_000 : 2_000) });
  } catch (error) {
    if (error instanceof VirtualClockStallError && driver.running !== undefined) {
      const running = toolRuns.filter((r) => r.settled === 'running').map((r) => `${r.name} (call ${r.callId})`);
      // What it waits on, as the harness sees it: a body, a model call, or neither — its own code (outside probe 54: a
      // runTurn that never called the model was said to wait on the model call).
      const modelOpen = models.responses.some((r) => r.settled === 'pending');
      const waitingOn =
        running.length > 0 ? `tool ${running.join(', ')}` : modelOpen ? 'the model call' : 'its own code (no model call or tool body of the turn is open)';
      unsettled = { turn: driver.running, waitingOn };
    } else thrown ??= error;
  } finally {
    wire?.release();
  }
  if (thrown instanceof AgentBuildError) {
    adapter.dispose?.();
    throw thrown;
  }
  let read: { waiting: readonly Message[]; traces: ReturnType<typeof adapter.traces> };
  try {
    histories.push(kept(readAdapter(factory, 'persistedHistory', () => adapter.persistedHistory())));
    read = { waiting: kept(readAdapter(factory, 'waiting', () => adapter.waiting?.() ?? [])), traces: readAdapter(factory, 'traces', () => adapter.traces()) };
  } finally {
    adapter.dispose?.();
  }
  const { waiting, traces } = read;
  return {
    kind: 'peer',
    loop: { id: factory.id, version: factory.version, capabilities: factory.capabilities, ...(factory.glue ? { glue: factory.glue } : {}) },
    scenario,
    agent: agentName,
    reports: driver.reports(),
    ...(unsettled ? { unsettled } : {}),
    requests: models.requests,
    requestTurns,
    responses: models.responses,
    wire: wire !== undefined,
    wireRequests: wire?.requests() ?? 0,
    executions: counters.byTool,
    executionsByCall: counters.byCall,
    toolRuns,
    closedMs,
    cancels,
    approvals,
    heldForApproval: heldForApproval(own),
    sideEffectLevels: new Map((agent.tools ?? []).map((t) => [t.name, t.sideEffect])),
    histories,
    waiting,
    traces,
    secrets: world.secrets,
    virtualMs: clock.now(),
    ...(thrown !== undefined ? { thrown } : {}),
    faults: faults.entries,
    maxSteps: config.maxSteps,
    sent: driver.sent,
    unfired: inbox.unfired(),
    ...(driver.malformed().length > 0 ? { malformedReports: driver.malformed() } : {}),
  };
}

function limits(scenario: Scenario): Partial<LoopConfig> {
  const c = scenario.config;
  return {
    ...(c.maxSteps !== undefined ? { maxSteps: c.maxSteps } : {}),
    ...(c.maxTokens !== undefined ? { maxTokens: c.maxTokens } : {}),
    ...(c.retry
      ? {
          retry: Object.fromEntries(
            Object.entries({ immediateRetries: c.retry.immediateRetries, backoffRetries: c.retry.backoffRetries }).filter(([, v]) => v !== undefined),
          ) as unknown as LoopConfig['retry'],
        }
      : {}),
  };
}

/** The key a peer's provider package is given for the wire fake: a secret of the case, as loopgate's own adapters' keys are. */
const PEER_WIRE_KEY = 'wire-fake-key';

/** The wire fake serving the scenario's script in the provider's protocol, for the peer's own provider package. */
function wireFor(scenario: Scenario) {
  const provider = scenario.provider.provider!;
  const kit = WIRE_KITS[provider];
  const callIds = { next: 1 };
  const behaviours = scenario.provider.script.map((step, i) => behaviourFor(step, i, callIds, provider));
  // An answer that quotes the key (`quotesKey`) quotes the one the peer's provider package sent.
  const options = { credential: PEER_WIRE_KEY };
  for (const b of behaviours) wirePlanFor(kit, b, options); // a step the provider cannot say fails the case here, before anything runs
  const fake = acquireWireFake();
  // Each request is answered as it asked: a peer's model may ask without streaming.
  const served = fake.scenario((request, index) => {
    const behaviour = behaviours[index];
    if (!behaviour) throw new Error(`scenario provider script exhausted at request ${index + 1}: add a step`);
    return wirePlanForRequest(kit, behaviour, request.body, options);
  });
  return {
    address: { provider, baseURL: served.baseURL(provider), apiKey: PEER_WIRE_KEY, model: scenario.provider.model ?? 'scenario-model' },
    requests: () => served.requests.length,
    release: () => fake.release(),
  };
}

/**
 * What the loop kept, as it was at this moment: a loop may hand its live list (`persistedHistory: () => history`, as
 * the README's example does), which its next turns go on changing — every turn's record would then be the last one,
 * and a failed turn that kept its message compared equal to itself (outside probe 49, HIGH-2). Not a list of plain
 * data: kept as it is, for the history check to name.
 */
function kept<T>(value: T): T {
  try {
    return structuredClone(value);
  } catch {
    return value;
  }
}
