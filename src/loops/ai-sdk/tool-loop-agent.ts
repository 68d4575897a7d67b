/**
 * An AI SDK 6 `ToolLoopAgent` under the gate as it ships. You give the
 * function that builds it from a model (your production code calls it with
 * your provider's model); the gate calls it with the case's model — the
 * scenario's script, or the provider's own package against the wire fake — and
 * runs each turn as `agent.generate({ messages, abortSignal })`, so your
 * `instructions`, `stopWhen` (the SDK's default of 20 steps when you set none),
 * `prepareCall`, `prepareStep`, call settings and `onStepFinish` run as in
 * production. Two things are the gate's: the tools (your tools' `execute`
 * bodies, wrapped so a scenario can script and count them) and the telemetry
 * (the case's trace). The same agent runs through every other loop
 * (`--loop loopgate`, `--loop openai-agents`) as `aiSdkAgent` of its
 * instructions, its tools and its `experimental_context`.
 *
 *   const support = toolLoopAgent((model) => supportAgent(model), { sideEffects: { issue_refund: 'STATEFUL' } });
 *   export default defineConfig({ agents: { support: support.agent }, loop: support.loop });
 *
 * The settings are read from the agent (`ai` 6 keeps them on it, unexported in
 * its types); an `ai` that keeps them elsewhere is refused naming its version.
 */
import type { ToolSet } from 'ai';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { AgentFactory, SideEffect } from '../../kernel/index.ts';
import { AgentBuildError } from '../../harness/world/agent-under-test.ts';
import type { LoopUnderTestFactory } from '../../harness/loop-port/peer-world.ts';
import { installedVersion } from '../installed-version.ts';
import { checkAdapterOptions, isPlainObject, shapeOf } from '../support/adapter-options.ts';
import { aiSdkTurnsLoop, caseModel, checkedGlue, heldToCaseModel, type AiSdkGlue, type TurnCall } from './adapter.ts';
import { aiSdkAgent } from './agent.ts';

export interface ToolLoopAgentOptions {
  /** Each tool's side-effect level, as in `aiSdkAgent`; default NONE. */
  readonly sideEffects?: Readonly<Record<string, SideEffect>>;
  /** Values that must never leave the agent, as in `aiSdkAgent`. */
  readonly secrets?: readonly string[];
  /** How the app keeps the conversation around `agent.generate`, as in `aiSdkLoop`. Default `on-success`. */
  readonly glue?: AiSdkGlue;
  /** What every turn passes as `generate({ options })`: for an agent with a `callOptionsSchema`. */
  readonly callOptions?: unknown;
}

/** The agent (for `agents:`) and its loop (for `loop:`), from one build function. */
export interface GatedToolLoopAgent {
  readonly agent: AgentFactory;
  readonly loop: LoopUnderTestFactory;
}

/** What a `ToolLoopAgent` is to the gate: its `generate`, and the settings it was built with. */
interface BuiltAgent {
  readonly generate: (call: Record<string, unknown>) => ReturnType<TurnCall>;
}
interface Settings {
  readonly model?: unknown;
  readonly prepareStep?: unknown;
  readonly callOptionsSchema?: unknown;
  readonly instructions?: unknown;
  readonly tools?: unknown;
  readonly experimental_context?: unknown;
}

const NAME = 'toolLoopAgent';

/** A model that is never called: the agent is built with it to read its settings and tools. */
function placeholderModel(): LanguageModelV3 {
  const never = () => Promise.reject(new Error(`${NAME}: the placeholder model the gate reads your agent's settings with was called`));
  return { specificationVersion: 'v3', provider: 'loopgate', modelId: 'placeholder', supportedUrls: {}, doGenerate: never, doStream: never };
}

/** Builds the agent with `model` and reads its settings; anything that is not a ToolLoopAgent built with that model is refused. */
function build(make: (model: LanguageModelV3) => unknown, model: LanguageModelV3): { agent: BuiltAgent; settings: Settings } {
  let agent: unknown;
  try {
    agent = make(model);
  } catch (error) {
    throw new TypeError(`${NAME}: your build function threw: ${(error as Error)?.message ?? String(error)}`, { cause: error });
  }
  if (agent === null || typeof agent !== 'object' || typeof (agent as Partial<BuiltAgent>).generate !== 'function')
    throw new TypeError(`${NAME}: your build function must return a ToolLoopAgent (new ToolLoopAgent({ model, … })), got ${shapeOf(agent)}`);
  const settings: unknown = (agent as { settings?: unknown }).settings;
  if (settings === null || typeof settings !== 'object')
    throw new TypeError(
      `${NAME}: the agent keeps no settings where ai 6's ToolLoopAgent does (installed: ai ${installedVersion('ai')}); use aiSdkAgent and aiSdkLoop`,
    );
  // An agent that ignores the model it is given would call your real provider from the gate, and certify its answers.
  if ((settings as Settings).model !== model)
    throw new TypeError(`${NAME}: the agent your build function returns does not use the model it is given: build it with new ToolLoopAgent({ model, … })`);
  const tools = (settings as Settings).tools;
  if (tools !== undefined && !isPlainObject(tools)) throw new TypeError(`${NAME}: the agent's tools must be an object of AI SDK tools, got ${shapeOf(tools)}`);
  return { agent: agent as BuiltAgent, settings: settings as Settings };
}

/** The agent's instructions as one system text: a text, a system message, or a list of them (joined by a blank line). */
function systemOf(instructions: unknown): string | undefined {
  const one = (value: unknown, where: string): string => {
    if (typeof value === 'string') return value;
    const message = value as { role?: unknown; content?: unknown } | null;
    if (message !== null && typeof message === 'object' && message.role === 'system' && typeof message.content === 'string') return message.content;
    throw new TypeError(`${NAME}: ${where} must be a text or a system message ({ role: 'system', content }), got ${shapeOf(value)}`);
  };
  if (instructions === undefined) return undefined;
  if (Array.isArray(instructions)) return instructions.map((m, i) => one(m, `instructions[${i}]`)).join('\n\n');
  return one(instructions, 'instructions');
}

/**
 * The call options each turn passes, checked at load against the agent's `callOptionsSchema` (a Standard Schema, as
 * zod's): options it refuses, or none where it needs some, would fail every case at its first turn, not name the cause.
 */
function checkCallOptions(schema: unknown, given: unknown): void {
  const standard = (schema as { '~standard'?: { validate?: (value: unknown) => unknown } } | undefined)?.['~standard'];
  if (typeof standard?.validate !== 'function') return;
  const result = standard.validate(given) as { issues?: readonly { message: string; path?: readonly unknown[] }[] } | Promise<unknown>;
  if (result instanceof Promise || !result.issues?.length) return; // an async schema is checked where the SDK checks it
  const issues = result.issues.map(
    (i) => `${(i.path ?? []).map((p) => (typeof p === 'object' && p !== null ? (p as { key: unknown }).key : p)).join('.') || '(the options)'}: ${i.message}`,
  );
  throw new TypeError(`${NAME}: callOptions do not match the agent's callOptionsSchema${given === undefined ? ' (none given)' : ''}: ${issues.join('; ')}`);
}

export function toolLoopAgent(make: (model: LanguageModelV3) => unknown, options: ToolLoopAgentOptions = {}): GatedToolLoopAgent {
  if (typeof make !== 'function')
    throw new TypeError(
      `${NAME}: the first argument is the function that builds your agent from a model ((model) => new ToolLoopAgent({ model, … })), got ${shapeOf(make)}`,
    );
  checkAdapterOptions(NAME, options, ['sideEffects', 'secrets', 'glue', 'callOptions']);
  const glue = checkedGlue(NAME, options.glue);
  // Read once at config load, so a build function that fails or returns something else is exit 2, not a failed case.
  const { settings } = build(make, placeholderModel());
  const system = systemOf(settings.instructions);
  checkCallOptions(settings.callOptionsSchema, options.callOptions);

  const agent: AgentFactory = async (context) => {
    const { settings: fresh } = build(make, placeholderModel()); // fresh tools per case, as aiSdkAgent's tools()
    return aiSdkAgent({
      ...(system !== undefined ? { system } : {}),
      tools: () => (fresh.tools ?? {}) as ToolSet,
      ...(options.sideEffects !== undefined ? { sideEffects: options.sideEffects } : {}),
      ...(options.secrets !== undefined ? { secrets: options.secrets } : {}),
      ...(settings.experimental_context !== undefined ? { context: settings.experimental_context } : {}),
    })(context);
  };

  const loop = aiSdkTurnsLoop(NAME, `ai ${installedVersion('ai')} (ToolLoopAgent)`, glue, async (world) => {
    const model = await caseModel(world);
    const built = build(make, model);
    // This loop runs one agent: a case of another would run with this one's instructions, silently.
    const names = Object.keys(built.settings.tools ?? {}).sort();
    const given = world.tools.map((t) => t.name).sort();
    if ((systemOf(built.settings.instructions) ?? '') !== world.system || names.join('\n') !== given.join('\n'))
      throw new AgentBuildError(
        `${NAME}: the case's agent (tools: ${given.join(', ') || 'none'}) is not the ToolLoopAgent this loop runs (tools: ${names.join(', ') || 'none'}): give the loop of toolLoopAgent(…) only to configs whose agents are its .agent`,
      );
    const callOptions = options.callOptions !== undefined ? { options: options.callOptions } : {};
    // generate() lays what it is given over the agent's settings: the harness's tools and telemetry, and its own
    // prepareStep held to the case's model (heldToCaseModel), nothing else.
    return async (call) => {
      const held = heldToCaseModel(NAME, model, built.settings.prepareStep);
      try {
        return await built.agent.generate({ ...callOptions, ...call, prepareStep: held.prepareStep });
      } catch (error) {
        throw held.tripped() ?? error;
      }
    };
  });
  return { agent, loop };
}
