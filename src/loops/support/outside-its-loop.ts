/**
 * What an adapter of a team's SDK agent (openAiAgent, toolLoopAgent) must do
 * with an agent that only its SDK's own loop runs whole — one whose guardrails,
 * stopWhen, … another loop would leave out: every other path refuses it, naming
 * what; its own loop runs it. The contract cases of both adapters read these
 * checks (outside probe 41, F1, and the review of stop 51: each path below once
 * served such an agent without them):
 *
 * - the SDK's generic loop (same id, builds its own agent of instructions and tools);
 * - loopgate's loop and its production host, as the gate runs a case;
 * - the production host from a config (refused at start), and an `AgentHost` built in code (500, no model asked);
 * - the agent object built without being told its loop, handed to `AgentHost`;
 * - a wrapper factory that drops the context: refused on loopgate's host and by `AgentHost`, run in its own loop.
 */
import { reply } from '../../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../../providers/fake/scripted.ts';
import type { LoopUnderTestFactory } from '../../harness/loop-port/peer-world.ts';
import { runPeerScenario } from '../../harness/loop-port/peer-host.ts';
import type { Scenario } from '../../harness/scenario/schema.ts';
import { runScenario } from '../../harness/second-host.ts';
import { defaultHostConfig } from '../../host/config.ts';
import { createHostFromConfig } from '../../host/from-config.ts';
import { AgentHost } from '../../host/host.ts';
import type { AgentFactory } from '../../kernel/index.ts';
import type { CheckResult } from '../../report/results.ts';
import { MemoryEventStore } from '../../stores/memory-store.ts';

export interface OutsideItsLoop {
  /** The adapter's agent, which only its own loop runs whole. */
  readonly agent: AgentFactory;
  /** The adapter's own loop. */
  readonly own: LoopUnderTestFactory;
  /** The SDK's generic loop (the same id as the adapter's own). */
  readonly generic: LoopUnderTestFactory;
  /** A scenario of one message the agent answers (a fresh one per run). */
  readonly scenario: () => Scenario;
  /** What every refusal must name ("the guardrail"), and how to find it in a message. */
  readonly what: string;
  readonly names: RegExp;
  readonly seed: number;
}

const said = (work: () => Promise<unknown>, ok: string): Promise<string> =>
  work().then(
    () => ok,
    (error: unknown) => (error as Error)?.message ?? String(error),
  );

const hostOf = (agent: ConstructorParameters<typeof AgentHost>[0]['agent'], model = new ScriptedModelClient([reply('ok')])) =>
  new AgentHost({ config: defaultHostConfig(), store: new MemoryEventStore(), model, agent });

/** Every path but the agent's own loop refuses it naming `what`; its own loop runs it even through a wrapper. */
export async function outsideItsLoopChecks(o: OutsideItsLoop): Promise<CheckResult[]> {
  const registry = (agent: AgentFactory) => ({ agents: new Map([['support', agent]]), defaultAgent: 'support' });
  const refused = (name: string, message: string): CheckResult => ({ name, passed: o.names.test(message), message });
  const checks: CheckResult[] = [];

  const generic = await said(() => runPeerScenario(o.scenario(), o.generic, { seed: o.seed, agents: registry(o.agent) }), '(ran)');
  checks.push(refused(`the SDK's generic loop (not the agent's own) refuses it naming ${o.what}`, generic));
  for (const host of ['loop', 'production'] as const) {
    const ran = await said(() => runScenario(o.scenario(), { seed: o.seed, agents: registry(o.agent), host }), '(ran)');
    checks.push(refused(`a case on loopgate's ${host === 'loop' ? 'loop' : 'host'} is refused naming ${o.what}`, ran));
  }
  // A deploy: the host from a config refuses it when it starts, before it opens a store or answers anything.
  const started = await said(async () => {
    const host = await createHostFromConfig({ model: { provider: 'fake', name: 'support-model' }, store: { kind: 'memory' } } as never, {
      agent: o.agent,
      modelClient: () => new ScriptedModelClient([reply('ok')]),
      env: {},
    });
    await host.close();
  }, '(started)');
  checks.push(refused(`the production host from a config refuses it at start, naming ${o.what}`, started));
  // An AgentHost built in code builds the agent per conversation: the message is answered 500 naming it, the model never asked.
  const model = new ScriptedModelClient([reply('ok')]);
  const direct = hostOf(o.agent, model);
  const answer = await direct.handle('c1', 'Refund ORD-1.');
  await direct.close();
  checks.push({
    name: `an AgentHost built in code answers 500 naming ${o.what}, asking no model`,
    passed: answer.status === 500 && o.names.test(answer.error ?? '') && model.requests.length === 0,
    message: `${answer.status} ${answer.error ?? answer.reply ?? ''}; ${model.requests.length} model request(s)`,
  });
  // Built without being told its loop: the object `.agent(…)` gives a caller that builds it itself, or a wrapper
  // factory that drops the context.
  const object = await o.agent({ clock: undefined as never, random: Math.random });
  const served = await said(async () => hostOf(object).close(), '(served)');
  checks.push(refused(`AgentHost refuses the agent object built without its loop, naming ${o.what}`, served));
  // A copy keeps the mark (review of stop 51: a hidden mark was lost to { ...agent, system }).
  const copied = await said(async () => hostOf({ ...object, system: 'You help.' }).close(), '(served)');
  checks.push(refused(`AgentHost refuses a copy of that object ({ ...agent }), naming ${o.what}`, copied));
  const wrapper: AgentFactory = (context) =>
    o.agent({ clock: context.clock, random: context.random, ...(context.conversationId ? { conversationId: context.conversationId } : {}) });
  const wrapped = await said(() => runScenario(o.scenario(), { seed: o.seed, agents: registry(wrapper), host: 'production' }), '(ran)');
  checks.push(refused(`a wrapper factory that drops the context is refused on loopgate's host, naming ${o.what}`, wrapped));
  const own = await said(() => runPeerScenario(o.scenario(), o.own, { seed: o.seed, agents: registry(wrapper) }), 'ran');
  checks.push({ name: "the same wrapper runs in the agent's own loop", passed: own === 'ran', message: own });
  const wrappedHost = hostOf(wrapper);
  const answered = await wrappedHost.handle('c1', 'Refund ORD-1.');
  await wrappedHost.close();
  checks.push({
    name: `AgentHost given the wrapper answers 500 naming ${o.what}`,
    passed: answered.status === 500 && o.names.test(answered.error ?? ''),
    message: `${answered.status} ${answered.error ?? answered.reply ?? ''}`,
  });
  return checks;
}
