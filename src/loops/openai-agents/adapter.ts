/**
 * OpenAI Agents' `run` loop (`@openai/agents` 0.20) behind the loop-under-test
 * port. One `run(agent, text, { session, signal, maxTurns })` per turn over the
 * peer's own `MemorySession` (its persisted history — here the peer persists,
 * not the app), wrapped with the scenario's store faults; the harness's tools
 * as function tools (their declared `timeoutMs` passed on, the call's signal
 * reaching the body); the model: the scenario's script as a scripted `Model`,
 * or for a wire scenario `OpenAIResponsesModel` / `OpenAIChatCompletionsModel`
 * on the `openai` client against the wire fake. The runner's own model retry
 * is set as the `openai` client would retry (network errors, 408/409/429/5xx),
 * up to the scenario's retries. Spans go to a recording processor.
 *
 * A tool body that throws is answered by the tools' `errorFunction` (the SDK's
 * default, or the config's), and its result is read back as `failed`; a call
 * the runner timed out (its `timeoutMs`) as `unknown`: it may have run. The
 * Agents items carry no status, so the adapter remembers how each call ended —
 * a body that swallows its error and returns is `ok`, as it told the model.
 */
import {
  Agent,
  MemorySession,
  OpenAIChatCompletionsModel,
  OpenAIResponsesModel,
  retryPolicies,
  Runner,
  setTraceProcessors,
  setTracingDisabled,
  tool,
  type FunctionTool,
  type Model,
  type RunContext,
  type RunToolApprovalItem,
  type Session,
} from '@openai/agents';
import { z } from 'zod';
import type { Message } from '../../kernel/index.ts';
import type { Capabilities } from '../../harness/loop-port/capabilities.ts';
import {
  loopgateAdapter,
  type LoopUnderTestFactory,
  type PeerAdapter,
  type PeerTool,
  type PeerTurn,
  type PeerWorld,
} from '../../harness/loop-port/peer-world.ts';
import type { TurnReport } from '../../harness/loop-port/port.ts';
import { installedVersion } from '../installed-version.ts';
import { checkAdapterOptions } from '../support/adapter-options.ts';
import { agentsEnding, classifyAgentsError } from './classify.ts';
import { faultySession } from './faulty-session.ts';
import { AgentBuildError } from '../../harness/world/agent-under-test.ts';
import { CallEndings, fromAgentItems, type Item } from './items.ts';
import { ScriptedAgentsModel } from './scripted-model.ts';
import { AgentsTraceRecorder } from './trace-recorder.ts';
import type { BookSpan } from '../support/span-book.ts';

export const OPENAI_AGENTS_CAPABILITIES: Capabilities = {
  supports: ['tool-timeout', 'store-faults', 'wire:openai-chat', 'wire:openai-responses'],
  history: 'session',
  time: 'patched-timers',
};

/** What the model is told when a tool throws, as the SDK's `tool({ errorFunction })`; `null` lets the error end the run. */
export type AgentsToolErrorFunction = (context: RunContext<unknown>, error: unknown) => string | Promise<string>;

export interface OpenAiAgentsLoopOptions {
  /** The session the runs persist to, one per case (default: a fresh MemorySession per case). May be async. */
  readonly session?: () => Session | Promise<Session>;
  /** Every tool's `errorFunction`, as the team's production agent sets it (default: the SDK's, which hides the error). */
  readonly errorFunction?: AgentsToolErrorFunction | null;
}

export function openAiAgentsLoop(options: OpenAiAgentsLoopOptions = {}): LoopUnderTestFactory {
  checkAdapterOptions('openAiAgentsLoop', options, ['session', 'errorFunction']);
  const make = options.session;
  if (make !== undefined && typeof make !== 'function')
    throw new TypeError(`openAiAgentsLoop: session must be a function that returns a Session (one per case), got ${typeof make}`);
  const { errorFunction } = options;
  if (errorFunction !== undefined && errorFunction !== null && typeof errorFunction !== 'function')
    throw new TypeError(`openAiAgentsLoop: errorFunction must be a function (context, error) => string, or null, got ${typeof errorFunction}`);
  return loopgateAdapter({
    id: 'openai-agents',
    version: `@openai/agents ${installedVersion('@openai/agents')}`,
    capabilities: OPENAI_AGENTS_CAPABILITIES,
    glue: make ? 'your Session (openAiAgentsLoop({ session }))' : 'the peer’s own Session (MemorySession)',
    create: async (world) => {
      const endings = new CallEndings();
      const tools = world.tools.map((t) => asAgentsTool(t, endings, errorFunction));
      const agent = harnessAgent(world, await modelFor(world, endings), tools);
      return new AgentsTurns(world, agent, faultySession(await sessionOf(make), world.failWrites), endings, { maxTurns: world.maxSteps });
    },
  });
}

/** The case's session: the config's (checked: a factory that throws, or gives no Session, is named, not a loop failure), else a MemorySession. */
export async function sessionOf(make: OpenAiAgentsLoopOptions['session'], adapter = 'openAiAgentsLoop'): Promise<Session> {
  if (make === undefined) return new MemorySession();
  let session: unknown;
  try {
    session = await make();
  } catch (error) {
    throw new AgentBuildError(`${adapter}: session() threw: ${(error as Error)?.message ?? String(error)}`);
  }
  const methods = ['getSessionId', 'getItems', 'addItems', 'popItem', 'clearSession'] as const;
  const missing = methods.filter((m) => typeof (session as Record<string, unknown> | null)?.[m] !== 'function');
  if (session === null || typeof session !== 'object' || missing.length > 0)
    throw new AgentBuildError(
      `${adapter}: session() gave ${session === null ? 'null' : typeof session === 'object' ? 'an object' : typeof session} without ${missing.join(', ')}: not a Session`,
    );
  return session as Session;
}

export async function modelFor(world: PeerWorld, endings: CallEndings): Promise<Model> {
  if (!world.wire) return new ScriptedAgentsModel(world.model, 'scenario-model', endings);
  const { default: OpenAI } = await import('openai');
  const client = new OpenAI({ baseURL: world.wire.baseURL, apiKey: world.wire.apiKey, maxRetries: 0 });
  // Both models take the client the SDK bundles; the repository's `openai` speaks the same protocol.
  const shared = client as unknown as ConstructorParameters<typeof OpenAIResponsesModel>[0];
  return world.wire.provider === 'openai-chat' ? new OpenAIChatCompletionsModel(shared, world.wire.model) : new OpenAIResponsesModel(shared, world.wire.model);
}

/** The agent a config's tools and system text make: the harness's tools, the scenario's retries as the `openai` client's. */
function harnessAgent(world: PeerWorld, model: Model, tools: FunctionTool<unknown>[]): Agent<unknown> {
  return new Agent({
    name: 'agent',
    instructions: world.system,
    model,
    modelSettings: {
      maxTokens: world.maxTokens,
      retry: {
        maxRetries: world.retries,
        policy: retryPolicies.any(retryPolicies.networkError(), retryPolicies.httpStatus([408, 409, 429, 500, 502, 503, 504, 529])),
      },
    },
    tools,
  });
}

/** What the app passes to each `run(agent, text, { … })` besides the session and the signal. */
export interface AgentsRunOptions {
  readonly context?: unknown;
  readonly maxTurns: number;
}

/** One case's turns: each a `run()` of the agent over the case's session, traced by a recording processor. */
export class AgentsTurns implements PeerAdapter {
  readonly #agent: Agent<unknown>;
  readonly #session: Session;
  readonly #recorder: AgentsTraceRecorder;
  readonly #endings: CallEndings;
  readonly #run: AgentsRunOptions;
  readonly #runner: Runner;
  readonly #world: PeerWorld;
  /** Models an agent of the case asked for by name (an agent run as a tool, with a model of its own): refused. */
  readonly #askedByName: string[] = [];
  #history: Message[] = [];

  constructor(world: PeerWorld, agent: Agent<unknown>, session: Session, endings: CallEndings, run: AgentsRunOptions) {
    this.#agent = agent;
    this.#world = world;
    this.#session = session;
    this.#endings = endings;
    this.#run = run;
    this.#recorder = new AgentsTraceRecorder(world.clock);
    setTraceProcessors([this.#recorder]);
    setTracingDisabled(false);
    // Every model the case's agents use is the case's: one named instead (a sub-agent's own `model: 'gpt-4.1'`, which
    // a run it makes as a tool resolves through this runner's provider) would reach a real provider with the
    // environment's key, and be certified. Refused, and the case fails naming it (outside probe 40, F2).
    const asked = this.#askedByName;
    this.#runner = new Runner({
      modelProvider: {
        getModel: (name?: string) => {
          asked.push(name ?? '(the default)');
          throw new Error(`the gate does not call a real provider (model ${JSON.stringify(name ?? '(the default)')})`);
        },
      },
    });
  }

  async runTurn({ text, turn, signal }: PeerTurn): Promise<TurnReport> {
    this.#recorder.turn = turn;
    let report: TurnReport;
    // A turn of several runs is one trace: the app's turn span over them.
    let appTurn: BookSpan | undefined;
    try {
      const context = this.#run.context !== undefined ? { context: this.#run.context } : {};
      const options = { session: this.#session, signal, maxTurns: this.#run.maxTurns, ...context };
      let r = await this.#runner.run(this.#agent, text, options);
      const responses = [...r.rawResponses];
      // A run that stopped on calls held for approval: the app puts each to the approver, approves or rejects it on the
      // run's state, and runs again from that state (the SDK's docs' pattern); the SDK then runs what was approved.
      while ((r.interruptions?.length ?? 0) > 0 && !signal.aborted) {
        appTurn ??= this.#recorder.root = this.#recorder.book.underOne(turn, 'app.turn');
        for (const held of r.interruptions) {
          if (await this.#approved(held, signal)) r.state.approve(held);
          else r.state.reject(held);
        }
        r = await this.#runner.run(this.#agent, r.state, options);
        responses.push(...r.rawResponses);
      }
      // No final output (a run that stopped for an approval): no reply — not the two characters of an empty JSON text.
      const out =
        r.finalOutput === undefined || r.finalOutput === null ? '' : typeof r.finalOutput === 'string' ? r.finalOutput : JSON.stringify(r.finalOutput);
      const usage = responses.reduce((u, x) => ({ inputTokens: u.inputTokens + x.usage.inputTokens, outputTokens: u.outputTokens + x.usage.outputTokens }), {
        inputTokens: 0,
        outputTokens: 0,
      });
      report = {
        turn,
        outcome: out.trim() ? { kind: 'replied' } : { kind: 'failed', reason: 'empty_reply' },
        ending: { kind: 'resolved', ...(r.interruptions?.length ? { finishReason: `${r.interruptions.length} interruption(s)` } : {}) },
        ...(out ? { reply: out } : {}),
        steps: responses.length,
        usage,
      };
    } catch (error) {
      report = { turn, outcome: classifyAgentsError(error, signal), ending: agentsEnding(error), steps: 0, usage: { inputTokens: 0, outputTokens: 0 } };
    }
    if (appTurn) this.#recorder.book.close(appTurn, report.outcome.kind === 'replied' ? 'ok' : report.outcome.kind === 'cancelled' ? 'cancelled' : 'error');
    this.#recorder.root = undefined;
    this.#history = fromAgentItems((await this.#session.getItems()) as unknown as Item[], this.#endings);
    if (this.#askedByName.length > 0)
      throw new AgentBuildError(
        `openAiAgent: an agent of this case asked for the model ${JSON.stringify(this.#askedByName[0])} by name (an agent run as a tool with a model of its own?): the gate does not call a real provider; build every agent it runs with the model your build function is given`,
      );
    return report;
  }

  /** The approver's answer to one held call: yes only on "approve"; a "no", another answer, a throw or no approver, no. */
  async #approved(held: RunToolApprovalItem, signal: AbortSignal): Promise<boolean> {
    const approver = this.#world.approver;
    if (!approver) return false;
    const raw = held.rawItem as { callId?: string; arguments?: string };
    let args: unknown = raw.arguments;
    try {
      args = JSON.parse(raw.arguments ?? '');
    } catch {
      // shown as the model sent it
    }
    const name = held.name ?? 'unknown-tool';
    try {
      const answer = await approver.approve(
        {
          callId: raw.callId ?? 'unknown-call',
          tool: name,
          args,
          sideEffect: this.#world.tools.find((t) => t.name === name)?.sideEffect ?? 'NONE',
          reason: `${name} needs approval (needsApproval)`,
        },
        signal,
      );
      return answer === 'approve';
    } catch {
      return false;
    }
  }

  persistedHistory(): readonly Message[] {
    return this.#history;
  }

  traces() {
    return this.#recorder.book.traces(true);
  }

  dispose(): void {
    setTraceProcessors([]);
  }
}

/**
 * A harness tool as a function tool. Agents takes zod parameters only in strict
 * mode (which refuses optional fields), so the tool declares its JSON Schema,
 * non-strict, and the body validates with the tool's own zod schema — a bad
 * argument throws, which the runner turns into its tool-error text. How a call
 * ended is remembered in `endings`: its body threw (failed), or the runner timed
 * it out (unknown; the runner's own words go to the model, as its default does).
 */
export function asAgentsTool(t: PeerTool, endings: CallEndings, errorFunction: AgentsToolErrorFunction | null | undefined) {
  return tool({
    name: t.name,
    description: t.description,
    parameters: JSON.parse(JSON.stringify(z.toJSONSchema(t.input))) as never, // plain JSON: zod marks its output as a Standard Schema
    strict: false,
    ...(t.timeoutMs !== undefined
      ? {
          timeoutMs: t.timeoutMs,
          timeoutErrorFunction: (_context: unknown, _error: unknown, details?: { toolCall?: { callId?: string } }) => {
            endings.timedOut(details?.toolCall?.callId ?? 'unknown-call');
            return `Tool '${t.name}' timed out after ${t.timeoutMs}ms.`;
          },
        }
      : {}),
    ...(errorFunction !== undefined ? { errorFunction } : {}),
    execute: async (args: unknown, _context, details) => {
      const callId = details?.toolCall?.callId ?? 'unknown-call';
      const run = endings.started(callId);
      try {
        const parsed = t.input.safeParse(args);
        if (!parsed.success)
          throw new Error(`invalid arguments for ${t.name}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
        return await t.run(parsed.data, { callId, signal: details?.signal });
      } catch (error) {
        if (run.ending === 'ok') run.ending = 'failed'; // a body aborted by the timeout stays unknown
        throw error;
      }
    },
  });
}
