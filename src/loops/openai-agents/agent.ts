/**
 * An OpenAI Agents `new Agent({ … })` under the gate as it ships. You give the
 * function that builds it from a model (your production code calls it with
 * your provider's model); the gate calls it with the case's model — the
 * scenario's script, or the `openai` client against the wire fake — and runs
 * each turn as `run(agent, text, { session, context, maxTurns, signal })`, so
 * your instructions (text or function), modelSettings, toolUseBehavior,
 * guardrails, lifecycle hooks and each tool's own `errorFunction` and timeout
 * run as in production (a tool that needs approval is refused). Two things are
 * the gate's: every tool call runs through the harness (so a scenario can
 * script and count it), and the trace is the case's. The same agent runs
 * through loopgate's own loop (`--loop loopgate`, `AgentHost`) as an agent of
 * its instructions and tools only.
 *
 * The SDK hides a tool body's throw behind its `errorFunction` (the model reads
 * its words, the call "returns"): the gate tells the two apart by the error the
 * SDK records on the tool's span — the body threw — and reads such a call
 * `failed` in the history it checks, with the words the model read. A body the
 * scenario scripts to fail never reaches your code, so the model reads the
 * SDK's default words for it. One build per case: the agent factory builds the
 * agent and the loop runs that same build, so what the build shares between
 * tools and hooks stays shared.
 *
 *   const support = openAiAgent((model) => supportAgent(model), { sideEffects: { issue_refund: 'STATEFUL' } });
 *   export default defineConfig({ agents: { support: support.agent }, loop: support.loop });
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  Agent,
  getCurrentSpan,
  getCurrentTrace,
  invokeFunctionTool,
  NoopSpan,
  RunContext,
  withTraceContext,
  type FunctionTool,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type Session,
  type StreamEvent,
} from '@openai/agents';
import { z } from 'zod';
import {
  createRedactor,
  LOOPGATE_LOOP,
  ONLY_ITS_OWN_LOOP,
  ToolFailure,
  REDACTED,
  redactSecretPieces,
  type AgentFactory,
  type AnyToolDeclaration,
  type SideEffect,
} from '../../kernel/index.ts';
import { AgentBuildError } from '../../harness/world/agent-under-test.ts';
import { loopgateAdapter, type LoopUnderTestFactory, type PeerTool } from '../../harness/loop-port/peer-world.ts';
import { installedVersion } from '../installed-version.ts';
import { checkAdapterOptions, shapeOf } from '../support/adapter-options.ts';
import { buildOfCase } from '../support/own-build.ts';
import { AgentsTurns, asAgentsTool, modelFor, OPENAI_AGENTS_CAPABILITIES, sessionOf } from './adapter.ts';
import { faultySession } from './faulty-session.ts';
import { CallEndings } from './items.ts';

export interface OpenAiAgentOptions {
  /** Each tool's side-effect level (the SDK has no word for it); default NONE. */
  readonly sideEffects?: Readonly<Record<string, SideEffect>>;
  /** Values that must never leave the agent: redacted everywhere and checked by invariant 15 in every case. */
  readonly secrets?: readonly string[];
  /** The session your app runs with, one per case (default: a MemorySession per case). May be async. */
  readonly session?: () => Session | Promise<Session>;
  /**
   * What your app passes as `run(agent, input, { context })`: your tools and instructions read it. A function is
   * called once per case (and per conversation the production host serves) with `{ conversationId }`, for a fresh
   * one (as your app makes one per request), so what a case writes into it stays in that case.
   */
  readonly context?: unknown;
  /** What your app passes as `run(…, { maxTurns })`; default the scenario's step limit. */
  readonly maxTurns?: number;
  /**
   * Outside the Agents `run()` — loopgate's loop (`--loop loopgate`) and its production host (`AgentHost`) — the
   * agent is its instructions and tools only: its guardrails, `toolUseBehavior`, `outputType`, a forced
   * `toolChoice` and a prompt template do not run there. An agent with any of them is refused there, naming them,
   * unless you say you run it without them: `'instructions-and-tools'`.
   */
  readonly outsideItsLoop?: 'instructions-and-tools';
}

/** What only the Agents `run()` runs of an agent, one phrase each (none: loopgate's loop runs all of it). */
function onlyTheRunRuns(agent: Agent<unknown>, tools: readonly FunctionTool<unknown>[]): string[] {
  const named = (guards: unknown) => (Array.isArray(guards) ? guards.map((g) => String((g as { name?: unknown })?.name ?? '?')) : []);
  const found: string[] = [];
  const guards = (of: string, list: unknown) => {
    const names = named(list);
    if (names.length > 0) found.push(`${of} (${names.join(', ')})`);
  };
  guards('input guardrails', agent.inputGuardrails);
  guards('output guardrails', agent.outputGuardrails);
  for (const t of tools) {
    const own = t as { inputGuardrails?: unknown; outputGuardrails?: unknown };
    guards(`tool ${t.name}'s input guardrails`, own.inputGuardrails);
    guards(`tool ${t.name}'s output guardrails`, own.outputGuardrails);
  }
  const behaviour: unknown = agent.toolUseBehavior;
  if (behaviour !== undefined && behaviour !== 'run_llm_again')
    found.push(`toolUseBehavior (${typeof behaviour === 'function' ? 'a function' : JSON.stringify(behaviour)})`);
  if (agent.outputType !== undefined && agent.outputType !== 'text') found.push('outputType (a structured output)');
  const choice = agent.modelSettings?.toolChoice;
  if (choice !== undefined && choice !== 'auto') found.push(`modelSettings.toolChoice (${JSON.stringify(choice)})`);
  if (agent.prompt !== undefined) found.push('prompt (a Responses prompt template)');
  return found;
}

/**
 * The tools the agent disables for this context (`isEnabled`): the SDK's runner leaves them out, another loop would
 * offer and run them. Asked as the runner asks, with the run context; a predicate that throws disables nothing sure.
 */
async function disabledTools(agent: Agent<unknown>, tools: readonly FunctionTool<unknown>[], context: unknown): Promise<string[]> {
  const found: string[] = [];
  for (const t of tools) {
    let enabled: unknown;
    try {
      enabled = await (t as { isEnabled?: (context: RunContext<unknown>, agent: Agent<unknown>) => unknown }).isEnabled?.(new RunContext(context), agent);
    } catch (error) {
      found.push(`tool ${t.name}'s isEnabled (it threw: ${(error as Error)?.message ?? String(error)})`);
      continue;
    }
    // The SDK leaves out a tool whose isEnabled answers anything falsy, not only false.
    if (!enabled) found.push(`tool ${t.name}'s isEnabled (${JSON.stringify(enabled) ?? String(enabled)} for this context)`);
  }
  return found;
}

/** The agent (for `agents:`) and its loop (for `loop:`), from one build function. */
export interface GatedOpenAiAgent {
  readonly agent: AgentFactory;
  readonly loop: LoopUnderTestFactory;
}

const NAME = 'openAiAgent';
/** The loop's id, as the generic Agents loop's. */
const LOOP_ID = 'openai-agents';
/** What the agent is told as `AgentContext.loop` in this adapter's own loop (the SDK's run() of the team's Agent). */
const OWN_LOOP = `${LOOP_ID}/${NAME}`;

/** What the SDK tells the model when a tool throws and no `errorFunction` is set (`@openai/agents` 0.20's default). */
export const SDK_TOOL_ERROR = 'An error occurred while running the tool. Please try again.';

/** The model an agent is built with: it answers as the case's model once the loop aims it there. */
interface ModelSlot {
  readonly model: Model;
  aim(target: Model): void;
}

function modelSlot(): ModelSlot {
  let target: Model | undefined;
  const unaimed = () => new Error(`${NAME}: this build of your agent serves another loop; its model is not called`);
  const model: Model = {
    getResponse: (request: ModelRequest): Promise<ModelResponse> => (target ? target.getResponse(request) : Promise.reject(unaimed())),
    getStreamedResponse: (request: ModelRequest): AsyncIterable<StreamEvent> => {
      if (!target) throw unaimed();
      return target.getStreamedResponse(request);
    },
  };
  return { model, aim: (to) => (target = to) };
}

/** One build of the agent: the agent, its function tools, and the model slot it was built with. */
interface Build {
  readonly agent: Agent<unknown>;
  readonly tools: readonly FunctionTool<unknown>[];
  readonly slot: ModelSlot;
}

/** Builds the agent on a fresh model slot; anything the gate cannot run as it ships is refused, named. */
function build(make: (model: Model) => unknown): Build {
  const slot = modelSlot();
  let agent: unknown;
  try {
    agent = make(slot.model);
  } catch (error) {
    throw new TypeError(`${NAME}: your build function threw: ${(error as Error)?.message ?? String(error)}`, { cause: error });
  }
  const a = agent as Partial<Agent<unknown>> | null;
  if (typeof (a as { then?: unknown } | null)?.then === 'function')
    throw new TypeError(
      `${NAME}: your build function returned a Promise: build the Agent synchronously ((model) => new Agent({ model, … })), as the gate builds it once per case`,
    );
  if (a === null || typeof a !== 'object' || typeof a.getSystemPrompt !== 'function' || !Array.isArray(a.tools))
    throw new TypeError(`${NAME}: your build function must return an Agent (new Agent({ model, … }) from @openai/agents), got ${shapeOf(agent)}`);
  // An agent that ignores the model it is given would call your real provider from the gate, and certify its answers.
  if (a.model !== slot.model)
    throw new TypeError(
      `${NAME}: the agent your build function returns does not use the model it is given (its model is ${
        typeof a.model === 'string'
          ? JSON.stringify(a.model)
          : a.model === undefined || a.model === null
            ? 'not set'
            : "another Model: one of its own, one wrapping the model given (the gate cannot tell it calls it), or an earlier build's (an Agent made once and returned again)"
      }): build a new Agent on each call with new Agent({ model, … })`,
    );
  if ((a.handoffs ?? []).length > 0)
    throw new TypeError(`${NAME}: the agent has handoffs, which the gate does not carry: it gates one agent; gate each agent of a handoff on its own`);
  if ((a.mcpServers ?? []).length > 0)
    throw new TypeError(`${NAME}: the agent has MCP servers, whose tools the gate cannot script or count: give the gate's build function tools of its own`);
  const foreign = a.tools.filter((t) => (t as { type?: unknown })?.type !== 'function' || typeof (t as { invoke?: unknown }).invoke !== 'function');
  if (foreign.length > 0)
    throw new TypeError(
      `${NAME}: the agent has tools the gate cannot run (${foreign.map((t) => `${(t as { name?: unknown }).name ?? '?'} (${(t as { type?: unknown }).type ?? shapeOf(t)})`).join(', ')}): only function tools (tool({ … })) run in the gate`,
    );
  return { agent: a as Agent<unknown>, tools: a.tools as FunctionTool<unknown>[], slot };
}

/** The SDK's run of a call, as the gate's tool is handed it: the run context (your context) and the call's details. */
interface SdkCall {
  readonly runContext: RunContext<unknown>;
  readonly details: unknown;
  /** The argument text as the model sent it (the Agents loop): what the SDK's own parser reads. */
  readonly input?: string;
}
const sdkCall = new AsyncLocalStorage<SdkCall>();

/** A body that threw with no `errorFunction` to answer it (`errorFunction: null`): the SDK ends the run with the error. */
class Unhandled extends Error {
  constructor(name: string, error: unknown) {
    super(`${name} threw and its tool has no errorFunction: ${(error as Error)?.message ?? String(error)}`, { cause: error });
    this.name = 'Unhandled';
  }
}

/** A body that threw, hidden by the tool's `errorFunction`: `told` is what the model read. */
class ToldFailure extends Error {
  readonly told: unknown;
  constructor(name: string, told: unknown) {
    super(`${name} threw; the model was told: ${typeof told === 'string' ? told : JSON.stringify(told)}`);
    this.name = 'ToldFailure';
    this.told = told;
  }
}

/** What the witness lays its watch over outside the SDK's runner (loopgate's loop): a span that records nothing. */
const NO_SPAN_PROCESSOR = {
  onSpanStart: async () => {},
  onSpanEnd: async () => {},
  onTraceStart: async () => {},
  onTraceEnd: async () => {},
  shutdown: async () => {},
  forceFlush: async () => {},
};

/**
 * Runs the tool as the SDK runs it (`invokeFunctionTool`: its parsing, body and `errorFunction`; the timeout left
 * to the loop running it) and says whether the body threw: the SDK records that as an error on the current span,
 * which here is a witness laid over the SDK's own span (or, outside its runner, over one that records nothing).
 */
async function invokeWitnessed(tool: FunctionTool<unknown>, call: SdkCall, input: string): Promise<{ output: unknown; threw: boolean }> {
  const real = getCurrentSpan();
  let threw = false;
  const watched = (real ?? new NoopSpan({ type: 'custom', name: tool.name, data: {} } as never, NO_SPAN_PROCESSOR as never)) as object;
  const witness = new Proxy(watched, {
    get(target, key) {
      if (key === 'setError')
        return (error: unknown) => {
          threw = true;
          real?.setError(error as never);
        };
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const trace = getCurrentTrace();
  const output = await withTraceContext({ trace: trace ?? undefined, span: witness } as never, () =>
    invokeFunctionTool({ tool: { ...tool, timeoutMs: undefined } as never, runContext: call.runContext, input, details: call.details as never }),
  );
  return { output, threw };
}

/**
 * The SDK's details of a call with another call id for the body. Copied with every property as it is, the SDK's own
 * hidden ones too (symbol-keyed: the parent run's config a nested run inherits — its model provider — the usage
 * recorder, the parent span): a plain spread dropped them, and an agent run as a tool then reached the default
 * provider.
 */
function withCallId(details: unknown, callId: string): unknown {
  if (details === null || typeof details !== 'object') return details;
  const copy = Object.create(Object.getPrototypeOf(details), Object.getOwnPropertyDescriptors(details)) as { toolCall?: unknown };
  const toolCall = copy.toolCall;
  if (toolCall !== null && typeof toolCall === 'object')
    Object.defineProperty(copy, 'toolCall', { value: { ...toolCall, callId }, enumerable: true, configurable: true, writable: true });
  return copy;
}

/**
 * An agent run as a tool (`agent.asTool(…)`, the only function tool with `on`): its "body" is a nested run, which
 * the SDK finds again by the very call object it was handed — so it keeps the call as the SDK gave it.
 */
function isAgentTool(tool: FunctionTool<unknown>): boolean {
  return typeof (tool as { on?: unknown }).on === 'function';
}

/** The agent's function tool as a loopgate tool: its JSON Schema as zod, its body through the SDK's `invokeFunctionTool`. */
function asGateTool(tool: FunctionTool<unknown>, sideEffect: SideEffect, context: unknown, agent?: Agent<unknown>): AnyToolDeclaration {
  let input: z.ZodType;
  try {
    input = z.fromJSONSchema(tool.parameters as never);
  } catch (error) {
    throw new TypeError(`${NAME}: tool ${tool.name}: its parameters are a JSON Schema zod cannot read: ${(error as Error).message}`);
  }
  return {
    name: tool.name,
    description: tool.description || tool.name,
    input,
    sideEffect,
    ...(typeof tool.timeoutMs === 'number' ? { timeoutMs: tool.timeoutMs } : {}),
    // The Agents runner never runs a tool again after it throws or times out: nor does any loop the gate runs it in.
    maxRetries: 0,
    run: async (args, ctx) => {
      // In the Agents loop, the runner's own run context and call, and the argument text as the model sent it; in
      // another loop, a run of your context. Either way the body's call id is loopgate's key for the call
      // (`<conversation>/<tool>:<call id>`): a case's own, though scenarios reuse ids and cases run at once, and the
      // same after a crash — what a body keying a payment on it needs (outside probe 41, F4: every case's refund
      // reached the backend as "r1").
      const given = sdkCall.getStore();
      const call: SdkCall = given
        ? { ...given, details: isAgentTool(tool) ? given.details : withCallId(given.details, ctx.idempotencyKey) }
        : {
            runContext: new RunContext(context),
            details: {
              toolCall: { type: 'function_call', callId: ctx.idempotencyKey, name: tool.name, arguments: JSON.stringify(args), status: 'completed' },
              signal: ctx.signal,
            },
          };
      // Outside the SDK's runner, which asks isEnabled at every turn and leaves a disabled tool out, a call of a tool
      // disabled now is not run (review of stop 51, HIGH: a refund that disabled itself after one ran twice).
      if (!given && agent) {
        let enabled: unknown = true;
        try {
          enabled = await (tool as { isEnabled?: (context: RunContext<unknown>, agent: Agent<unknown>) => unknown }).isEnabled?.(call.runContext, agent);
        } catch {
          enabled = false;
        }
        if (!enabled) throw new ToolFailure('NOT_ENABLED', `${tool.name} is not enabled (isEnabled) for this context: it was not run`, { retryable: false });
      }
      let result: { output: unknown; threw: boolean };
      try {
        result = await invokeWitnessed(tool, call, call.input ?? JSON.stringify(args));
      } catch (error) {
        if (ctx.signal?.aborted) throw error;
        throw new Unhandled(tool.name, error);
      }
      if (result.threw) throw new ToldFailure(tool.name, result.output);
      return result.output as never;
    },
  };
}

/**
 * The gate's copy of one of the agent's tools for the Agents runner: everything the tool ships with (schema,
 * strictness, guardrails, timeout) stays; its `invoke` runs the body through the harness, and notes
 * how each call ended (the items carry no status).
 */
function gatedTool(tool: FunctionTool<unknown>, gate: PeerTool, endings: CallEndings): FunctionTool<unknown> {
  const theirs = tool.timeoutErrorFunction;
  return {
    ...tool,
    invoke: async (runContext, input, details) => {
      const callId = details?.toolCall?.callId ?? 'unknown-call';
      // Every call goes through the gate, whatever its arguments: the SDK's own parser decides what reaches the body
      // (a non-strict tool is handed even text that is not JSON), so no body runs unscripted and uncounted.
      let args: unknown;
      try {
        args = JSON.parse(input);
      } catch {
        args = input;
      }
      const run = endings.started(callId);
      try {
        return await sdkCall.run({ runContext, details, input }, () => gate.run(args, { callId, signal: details?.signal }));
      } catch (error) {
        if (run.ending === 'ok') run.ending = 'failed'; // a body aborted by the timeout stays unknown
        if (error instanceof ToldFailure) return error.told as string;
        if (error instanceof Unhandled) throw error.cause; // errorFunction: null — the SDK ends the run, as in production
        if (details?.signal?.aborted) throw error;
        // Scripted by the scenario: your errorFunction never saw it. A tool that lets errors end the run (an
        // outputSchema tool's default) ends it here too.
        if ((tool as { errorFunction?: unknown }).errorFunction === null) throw error;
        return SDK_TOOL_ERROR;
      }
    },
    timeoutErrorFunction: (runContext, error, details) => {
      endings.timedOut(details?.toolCall?.callId ?? 'unknown-call');
      return theirs ? theirs(runContext, error, details) : `Tool '${tool.name}' timed out after ${tool.timeoutMs}ms.`;
    },
  } as FunctionTool<unknown>;
}

/**
 * The tools whose calls the SDK may hold for a human's approval: `needsApproval: true`, or a function of the call
 * (which may hold a call the gate cannot foresee — outside probe 46, F2: one deciding by the amount answered "no" for
 * no arguments, and loopgate's loop ran a held refund unasked). The agent's own loop answers them from the case's
 * approver (AgentsTurns); any other loop or host would run such a call unasked, so there the agent is refused.
 */
async function heldForApproval(tools: readonly FunctionTool<unknown>[], context: unknown): Promise<string[]> {
  const dynamic = await dynamicApprovalTest();
  const held: string[] = [];
  for (const t of tools) {
    if (dynamic?.(t)) {
      held.push(t.name);
      continue;
    }
    let answer: unknown;
    try {
      // A static setting answers the same whatever the call: asked with arguments of nothing.
      answer = await t.needsApproval(new RunContext(context), {} as never, 'loopgate-approval-probe');
    } catch {
      answer = true; // a policy that cannot answer for a call it did not expect may hold real ones
    }
    if (answer !== false) held.push(t.name);
  }
  return held;
}

/** The SDK's own test of a tool's approval setting being a function of the call (not true or false), where it can be loaded. */
async function dynamicApprovalTest(): Promise<((tool: FunctionTool<unknown>) => boolean) | undefined> {
  try {
    const internal = (await import('@openai/agents-core/utils/internal' as string)) as { hasDynamicFunctionToolApprovalPolicy?: (tool: unknown) => boolean };
    return typeof internal.hasDynamicFunctionToolApprovalPolicy === 'function' ? internal.hasDynamicFunctionToolApprovalPolicy : undefined;
  } catch {
    return undefined;
  }
}

const heldMessage = (tool: string) =>
  `${NAME}: tool ${tool} needs approval (needsApproval), which only the SDK's run() asks about: gate the agent on its own loop (loop: ${NAME}(…).loop), where the case's approver answers it, or with approval off (needsApproval: false)`;

export function openAiAgent(make: (model: Model) => unknown, options: OpenAiAgentOptions = {}): GatedOpenAiAgent {
  if (typeof make !== 'function')
    throw new TypeError(
      `${NAME}: the first argument is the function that builds your agent from a model ((model) => new Agent({ model, … })), got ${shapeOf(make)}`,
    );
  checkAdapterOptions(NAME, options, ['sideEffects', 'secrets', 'session', 'context', 'maxTurns', 'outsideItsLoop']);
  if (options.outsideItsLoop !== undefined && options.outsideItsLoop !== 'instructions-and-tools')
    throw new TypeError(
      `${NAME}: outsideItsLoop must be 'instructions-and-tools', got ${JSON.stringify(options.outsideItsLoop) ?? shapeOf(options.outsideItsLoop)}`,
    );
  if (options.session !== undefined && typeof options.session !== 'function')
    throw new TypeError(`${NAME}: session must be a function that returns a Session (one per case), got ${shapeOf(options.session)}`);
  const { maxTurns } = options;
  if (maxTurns !== undefined && !(Number.isInteger(maxTurns) && maxTurns >= 1))
    throw new TypeError(`${NAME}: maxTurns must be a whole number of at least 1, got ${JSON.stringify(maxTurns) ?? shapeOf(maxTurns)}`);
  // What the agent's own code says when it fails (a build, its instructions, a session store) is said without its secrets.
  const secrets = (options.secrets ?? []).filter((x) => typeof x === 'string' && x.length > 0);
  const redactor = secrets.length > 0 ? createRedactor({ secrets }) : undefined;
  const redact = (text: string) => (redactor ? redactSecretPieces(redactor(text), secrets, REDACTED) : text);
  const withoutSecrets = <T>(work: () => T, as: (message: string) => Error): T => {
    try {
      return work();
    } catch (error) {
      throw as(redact((error as Error)?.message ?? String(error)));
    }
  };
  // Read once at config load, so a build function that fails or returns something else is exit 2, not a failed case.
  const loaded = withoutSecrets(
    () => build(make),
    (message) => new TypeError(message),
  );
  const names = loaded.tools.map((t) => t.name);
  for (const [name, level] of Object.entries(options.sideEffects ?? {})) {
    if (!names.includes(name)) throw new TypeError(`${NAME}: sideEffects names ${name}, which is not one of the agent's tools (${names.join(', ') || 'none'})`);
    if (!['NONE', 'IDEMPOTENT', 'STATEFUL', 'CRITICAL'].includes(level as string))
      throw new TypeError(`${NAME}: sideEffects.${name} must be NONE, IDEMPOTENT, STATEFUL or CRITICAL, got ${JSON.stringify(level)}`);
  }
  // An agent run as a tool calls its own tools inside its nested run: neither the gate nor loopgate's host sees them,
  // so what the call may do (a refund inside it: no retry, told after a failed turn) is the team's to declare.
  for (const t of loaded.tools)
    if (isAgentTool(t) && options.sideEffects?.[t.name] === undefined)
      throw new TypeError(
        `${NAME}: tool ${t.name} runs an agent as a tool (asTool): the tools it calls run inside it, out of loopgate's sight — declare sideEffects.${t.name}, the most it may do (NONE if it only reads)`,
      );
  for (const t of loaded.tools) asGateTool(t, 'NONE', undefined);

  // The build of each case, by the agent the factory returned for it (PeerWorld.built): the loop runs that build.
  const builds = new WeakMap<object, Build & { readonly system: string; readonly context: unknown }>();
  const agent: AgentFactory = async (built) => {
    const own = withoutSecrets(
      () => build(make),
      (message) => new AgentBuildError(message),
    );
    // A function makes the context of each case or conversation, told which (your app makes one per request, by who asks).
    const context =
      typeof options.context === 'function'
        ? (options.context as (of: { conversationId?: string }) => unknown)(built?.conversationId !== undefined ? { conversationId: built.conversationId } : {})
        : options.context;
    // Built for loopgate's loop or its host (or another SDK's loop), the agent runs without what only the Agents
    // run() runs: refused, named, rather than served without its guardrails (outside probe 41, F1). Built without
    // being told its loop, it is marked so, and the host (or the gate, for another loop) refuses it then.
    const dropped =
      built?.loop !== OWN_LOOP && options.outsideItsLoop === undefined
        ? [...onlyTheRunRuns(own.agent, own.tools), ...(await disabledTools(own.agent, own.tools, context))]
        : [];
    const missing = (where: string) =>
      redact(
        `${NAME}: ${where} only the agent's instructions and tools, and it has what only the Agents run() runs: ${dropped.join(', ')}; serve it with the SDK's run() (gate it with loop: ${NAME}(…).loop), or pass ${NAME}(build, { outsideItsLoop: 'instructions-and-tools' }) to run it here without them`,
      );
    if (dropped.length > 0 && built?.loop !== undefined)
      throw new AgentBuildError(missing(built.loop === LOOPGATE_LOOP ? "loopgate's loop and host run" : `the ${built.loop} loop (not this agent's own) runs`));
    // Its own loop answers the SDK's approval interruptions from the case's approver; no other loop can: refused there,
    // and marked when built without being told its loop (a config checked as it loads; outside probe 46, F1).
    const held = built?.loop === OWN_LOOP ? [] : await heldForApproval(own.tools, context);
    if (held.length > 0 && built?.loop !== undefined) throw new AgentBuildError(redact(heldMessage(held[0]!)));
    let system: string | undefined;
    try {
      system = await own.agent.getSystemPrompt(new RunContext(context));
    } catch (error) {
      throw new AgentBuildError(`${NAME}: the agent's instructions threw: ${redact((error as Error)?.message ?? String(error))}`);
    }
    const definition = {
      ...(system !== undefined ? { system } : {}),
      ...(options.secrets !== undefined ? { secrets: options.secrets } : {}),
      tools: own.tools.map((t) => asGateTool(t, options.sideEffects?.[t.name] ?? 'NONE', context, own.agent)),
    };
    if (dropped.length > 0 || held.length > 0)
      Object.defineProperty(definition, ONLY_ITS_OWN_LOOP, {
        enumerable: true, // a copy ({ ...agent }) keeps it
        value: {
          loop: OWN_LOOP,
          missing: held.length > 0 ? redact(heldMessage(held[0]!)) : missing("loopgate's loop and host, and any loop but its own, run"),
        },
      });
    builds.set(definition, { ...own, system: system ?? '', context });
    return definition;
  };

  const loop: LoopUnderTestFactory = loopgateAdapter({
    id: LOOP_ID,
    agentLoop: OWN_LOOP,
    version: `@openai/agents ${installedVersion('@openai/agents')} (Agent)`,
    // Beyond the SDK's generic loop: its tools' approvals, put to the case's approver.
    capabilities: { ...OPENAI_AGENTS_CAPABILITIES, supports: [...OPENAI_AGENTS_CAPABILITIES.supports, 'approver'] },
    glue: options.session ? `your Session (${NAME}({ session }))` : 'the peer’s own Session (MemorySession)',
    create: async (world) => {
      const own = buildOfCase(builds, world, NAME);
      const endings = new CallEndings();
      own.slot.aim(await modelFor(world, endings));
      const theirs = new Map(own.tools.map((t) => [t.name, t]));
      // The build is this case's alone: its tools become the gate's copies (a tool the scenario declares joins them,
      // as the SDK's default tool would hold it); a scenario's `system:` replaces the instructions.
      own.agent.tools = world.tools.map((gate) => {
        const tool = theirs.get(gate.name);
        return tool ? gatedTool(tool, gate, endings) : asAgentsTool(gate, endings, undefined);
      });
      if (world.system !== own.system) own.agent.instructions = world.system;
      let session: Session;
      try {
        session = faultySession(await sessionOf(options.session, NAME), world.failWrites);
      } catch (error) {
        throw new AgentBuildError(redact((error as Error).message));
      }
      return new AgentsTurns(world, own.agent, session, endings, { context: own.context, maxTurns: maxTurns ?? world.maxSteps });
    },
  });
  return { agent, loop };
}
