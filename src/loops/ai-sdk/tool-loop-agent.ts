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
 * One build per case: the agent factory builds the agent (with a model slot the
 * loop later aims at the case's model) and the loop runs that same build, so
 * what your build function shares between tools and hooks stays shared. Each
 * turn is what `generate` does — your `prepareCall`, then `generateText` — with
 * the gate's tools, telemetry and signal laid over what `prepareCall` returned,
 * and whatever `prepareStep` it leaves held to the case's model.
 *
 *   const support = toolLoopAgent((model) => supportAgent(model), { sideEffects: { issue_refund: 'STATEFUL' } });
 *   export default defineConfig({ agents: { support: support.agent }, loop: support.loop });
 *
 * The settings are read from the agent (`ai` 6 keeps them on it, unexported in
 * its types); an `ai` that keeps them elsewhere is refused naming its version.
 */
import { generateText, type ToolSet } from 'ai';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { LOOPGATE_LOOP, ONLY_ITS_OWN_LOOP, type AgentFactory, type SideEffect } from '../../kernel/index.ts';
import { AgentBuildError } from '../../harness/world/agent-under-test.ts';
import type { LoopUnderTestFactory } from '../../harness/loop-port/peer-world.ts';
import { installedVersion } from '../installed-version.ts';
import { checkAdapterOptions, isPlainObject, shapeOf } from '../support/adapter-options.ts';
import { buildOfCase } from '../support/own-build.ts';
import { aiSdkTurnsLoop, caseModel, checkedGlue, heldToCaseModel, type AiSdkGlue } from './adapter.ts';
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
  /**
   * Outside the AI SDK's loop — loopgate's loop (`--loop loopgate`) and its production host (`AgentHost`) — the
   * agent is its instructions, tools and context only: its `prepareCall`, `prepareStep`, `stopWhen`, `activeTools`,
   * a forced `toolChoice`, an `output` and a repair function do not run there. An agent with any of them is refused
   * there, naming them, unless you say you run it without them: `'instructions-and-tools'`.
   */
  readonly outsideItsLoop?: 'instructions-and-tools';
}

/** The agent (for `agents:`) and its loop (for `loop:`), from one build function. */
export interface GatedToolLoopAgent {
  readonly agent: AgentFactory;
  readonly loop: LoopUnderTestFactory;
}

/** What a `ToolLoopAgent` is to the gate: its `prepareCall` (what `generate` runs first), and the settings it was built with. */
interface BuiltAgent {
  readonly generate: unknown;
  readonly prepareCall: (options: Record<string, unknown>) => Promise<Record<string, unknown>>;
}
interface Settings {
  readonly model?: unknown;
  readonly callOptionsSchema?: unknown;
  readonly instructions?: unknown;
  readonly tools?: unknown;
  readonly experimental_context?: unknown;
  readonly onStepFinish?: unknown;
  readonly prepareCall?: unknown;
  readonly prepareStep?: unknown;
  readonly experimental_prepareStep?: unknown;
  readonly experimental_activeTools?: unknown;
  readonly experimental_output?: unknown;
  readonly stopWhen?: unknown;
  readonly activeTools?: unknown;
  readonly toolChoice?: unknown;
  readonly output?: unknown;
  readonly experimental_repairToolCall?: unknown;
}

/** What only the AI SDK's loop runs of an agent's settings, one phrase each (none: loopgate's loop runs all it does). */
function onlyItsLoopRuns(settings: Settings): string[] {
  const found: string[] = [];
  for (const key of ['prepareCall', 'prepareStep', 'experimental_prepareStep', 'experimental_repairToolCall'] as const)
    if (settings[key] !== undefined) found.push(`${key} (a function)`);
  if (settings.stopWhen !== undefined) found.push('stopWhen (a stop condition)');
  // ai 6 still reads the older names (experimental_activeTools, experimental_output) where the new ones are unset.
  for (const key of ['activeTools', 'experimental_activeTools'] as const)
    if (settings[key] !== undefined) found.push(`${key} (${JSON.stringify(settings[key]) ?? shapeOf(settings[key])})`);
  if (settings.toolChoice !== undefined && settings.toolChoice !== 'auto')
    found.push(`toolChoice (${JSON.stringify(settings.toolChoice) ?? shapeOf(settings.toolChoice)})`);
  // ai 6's Output.text() (the default, spelled out) is named 'text'.
  for (const key of ['output', 'experimental_output'] as const) {
    const output = settings[key] as { name?: unknown; type?: unknown } | null | undefined;
    if (output !== undefined && output?.name !== 'text' && output?.type !== 'text') found.push(`${key} (a structured output)`);
  }
  return found;
}

/** One build of the agent: the agent, its settings, and the model slot it was built with. */
interface Build {
  readonly agent: BuiltAgent;
  readonly settings: Settings;
  readonly slot: ModelSlot;
}

const NAME = 'toolLoopAgent';
/** What the agent is told as `AgentContext.loop` in this adapter's own loop (generate() of the team's agent). */
const OWN_LOOP = `ai-sdk/${NAME}`;

/**
 * The model an agent is built with: it answers as the case's model once the loop aims it there (a build that
 * serves another loop, or the one read at load, is never aimed and never called).
 */
interface ModelSlot {
  readonly model: LanguageModelV3;
  aim(target: LanguageModelV3): void;
  /** The slot, or a `wrapLanguageModel` around it (which keeps its provider and model id unless told otherwise). */
  holds(model: unknown): boolean;
}

function modelSlot(): ModelSlot {
  let target: LanguageModelV3 | undefined;
  const unaimed = () => Promise.reject(new Error(`${NAME}: this build of your agent serves another loop; its model is not called`));
  const model: LanguageModelV3 = {
    specificationVersion: 'v3',
    provider: 'loopgate',
    modelId: 'case-model',
    get supportedUrls() {
      return target?.supportedUrls ?? {};
    },
    doGenerate: (options) => (target ? target.doGenerate(options) : unaimed()),
    doStream: (options) => (target ? target.doStream(options) : unaimed()),
  };
  return {
    model,
    aim: (to) => {
      target = to;
    },
    holds: (chosen) => {
      if (chosen === model) return true;
      const other = chosen as Partial<LanguageModelV3> | null;
      return typeof other === 'object' && other !== null && other.provider === model.provider && other.modelId === model.modelId;
    },
  };
}

/** Builds the agent on a fresh model slot and reads its settings; anything that is not a ToolLoopAgent built with that model is refused. */
function build(make: (model: LanguageModelV3) => unknown): Build {
  const slot = modelSlot();
  let agent: unknown;
  try {
    agent = make(slot.model);
  } catch (error) {
    throw new TypeError(`${NAME}: your build function threw: ${(error as Error)?.message ?? String(error)}`, { cause: error });
  }
  if (agent === null || typeof agent !== 'object' || typeof (agent as Partial<BuiltAgent>).generate !== 'function')
    throw new TypeError(`${NAME}: your build function must return a ToolLoopAgent (new ToolLoopAgent({ model, … })), got ${shapeOf(agent)}`);
  const settings: unknown = (agent as { settings?: unknown }).settings;
  if (settings === null || typeof settings !== 'object' || typeof (agent as Partial<BuiltAgent>).prepareCall !== 'function')
    throw new TypeError(
      `${NAME}: the agent keeps no settings or prepareCall where ai 6's ToolLoopAgent does (installed: ai ${installedVersion('ai')}); use aiSdkAgent and aiSdkLoop`,
    );
  // An agent that ignores the model it is given would call your real provider from the gate, and certify its answers.
  if (!slot.holds((settings as Settings).model))
    throw new TypeError(
      `${NAME}: the agent your build function returns does not use the model it is given: build it with new ToolLoopAgent({ model, … }) (a wrapLanguageModel around it must keep its provider and modelId)`,
    );
  const tools = (settings as Settings).tools;
  if (tools !== undefined && !isPlainObject(tools)) throw new TypeError(`${NAME}: the agent's tools must be an object of AI SDK tools, got ${shapeOf(tools)}`);
  return { agent: agent as BuiltAgent, settings: settings as Settings, slot };
}

/**
 * The tools a turn runs: the gate's (the agent's own, wrapped per case), or a choice among them a `prepareCall`
 * made. A tool of its own would run ungated and uncounted, so the case fails naming it.
 */
function gateTools(prepared: unknown, gate: ToolSet): ToolSet {
  if (prepared === undefined || prepared === gate) return gate;
  const ours = new Set(Object.values(gate));
  const entries = isPlainObject(prepared) ? Object.entries(prepared as Record<string, unknown>) : [];
  const foreign = entries.filter(([, t]) => !ours.has(t as ToolSet[string])).map(([name]) => name);
  if (!isPlainObject(prepared) || foreign.length > 0)
    throw new AgentBuildError(
      `${NAME}: the agent's prepareCall gave tools the gate does not run (${foreign.join(', ') || shapeOf(prepared)}): the gate runs the agent's own tools, scripted per case; choose among them with activeTools, or build the agent with every tool`,
    );
  return prepared as ToolSet;
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
  checkAdapterOptions(NAME, options, ['sideEffects', 'secrets', 'glue', 'callOptions', 'outsideItsLoop']);
  if (options.outsideItsLoop !== undefined && options.outsideItsLoop !== 'instructions-and-tools')
    throw new TypeError(
      `${NAME}: outsideItsLoop must be 'instructions-and-tools', got ${JSON.stringify(options.outsideItsLoop) ?? shapeOf(options.outsideItsLoop)}`,
    );
  const glue = checkedGlue(NAME, options.glue);
  // Read once at config load, so a build function that fails or returns something else is exit 2, not a failed case.
  const { settings } = build(make);
  systemOf(settings.instructions);
  checkCallOptions(settings.callOptionsSchema, options.callOptions);

  // The build of each case, by the agent the factory returned for it (PeerWorld.built): the loop runs that build.
  const builds = new WeakMap<object, Build>();
  const agent: AgentFactory = async (context) => {
    const own = build(make); // fresh per case, as aiSdkAgent's tools(): its tools, context and hooks together
    // Built for loopgate's loop or its host (or another SDK's loop), the agent runs without what only the AI SDK's
    // loop runs: refused, named, rather than served without it (outside probe 41, F1).
    // Built without being told its loop, the agent is marked so, and the host (or the gate, for another loop) refuses it then.
    const dropped = context?.loop !== OWN_LOOP && options.outsideItsLoop === undefined ? onlyItsLoopRuns(own.settings) : [];
    const missing = (where: string) =>
      `${NAME}: ${where} only the agent's instructions, tools and context, and it has what only the AI SDK's generate() runs: ${dropped.join(', ')}; serve it with agent.generate() (gate it with loop: ${NAME}(…).loop), or pass ${NAME}(build, { outsideItsLoop: 'instructions-and-tools' }) to run it here without them`;
    if (dropped.length > 0 && context?.loop !== undefined)
      throw new AgentBuildError(
        missing(context.loop === LOOPGATE_LOOP ? "loopgate's loop and host run" : `the ${context.loop} loop (not this agent's own) runs`),
      );
    const system = systemOf(own.settings.instructions);
    const definition = await aiSdkAgent({
      ...(system !== undefined ? { system } : {}),
      tools: () => (own.settings.tools ?? {}) as ToolSet,
      ...(options.sideEffects !== undefined ? { sideEffects: options.sideEffects } : {}),
      ...(options.secrets !== undefined ? { secrets: options.secrets } : {}),
      ...(own.settings.experimental_context !== undefined ? { context: own.settings.experimental_context } : {}),
    })(context);
    if (dropped.length > 0)
      Object.defineProperty(definition, ONLY_ITS_OWN_LOOP, {
        enumerable: true, // a copy ({ ...agent }) keeps it
        value: { loop: OWN_LOOP, missing: missing("loopgate's loop and host, and any loop but its own, run") },
      });
    builds.set(definition, own);
    return definition;
  };

  const turns = aiSdkTurnsLoop(NAME, `ai ${installedVersion('ai')} (ToolLoopAgent)`, glue, async (world) => {
    const own = buildOfCase(builds, world, NAME);
    own.slot.aim(await caseModel(world));
    const theirs = own.settings.onStepFinish;
    // A scenario's own system prompt replaces the agent's, as for every agent; else the agent's (prepareCall's) stands.
    const scenarioSystem = world.system !== (systemOf(own.settings.instructions) ?? '') ? world.system : undefined;
    const callOptions = options.callOptions !== undefined ? { options: options.callOptions } : {};
    return async ({ abortSignal, onStepFinish, remainingSteps: _theirs, ...call }) => {
      // The agent's own stopWhen stands (its default, 20 steps); the turn stops continuing at the case's limit (AiSdkTurns).
      // What generate() does: the agent's prepareCall over its settings and the call, then generateText.
      const prepared = await own.agent.prepareCall({ ...callOptions, ...call });
      const held = heldToCaseModel(NAME, own.slot.model, prepared.prepareStep, own.slot.holds);
      try {
        return await generateText({
          ...(prepared as Parameters<typeof generateText>[0]),
          ...(scenarioSystem !== undefined ? { system: scenarioSystem } : {}),
          tools: gateTools(prepared.tools, call.tools),
          experimental_telemetry: call.experimental_telemetry,
          prepareStep: held.prepareStep,
          abortSignal,
          // As generate merges them: the agent's own first, then the harness's.
          onStepFinish: async (step) => {
            if (typeof theirs === 'function') await theirs(step);
            await onStepFinish(step);
          },
        });
      } catch (error) {
        throw held.tripped() ?? error;
      }
    };
  });
  const loop: LoopUnderTestFactory = { ...turns, agentLoop: OWN_LOOP };
  return { agent, loop };
}
