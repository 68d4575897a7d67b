/**
 * The Vercel AI SDK's `generateText` loop (`ai` 6) behind the loop-under-test
 * port. One `generateText` call per turn, multi-step with `stopWhen:
 * stepCountIs(maxSteps)`, the harness's tools (the agent's own, scripted and
 * counted) as AI SDK tools, the turn's signal as `abortSignal`, telemetry into
 * a recording tracer — and the model: the scenario's script as a scripted
 * `LanguageModelV3`, or for a wire scenario the provider's own package
 * (`@ai-sdk/anthropic`, `@ai-sdk/openai`) against the wire fake.
 *
 * The AI SDK keeps no history: the app does. Two named glues:
 * - `on-success` (the default; the SDK docs' pattern): after `generateText`
 *   resolves, `messages.push(...response.messages)`; a turn that throws keeps
 *   nothing, its user message included.
 * - `per-step`: the turn's messages as of the last finished step
 *   (`onStepFinish`) are kept whatever the ending.
 */
import { generateText, stepCountIs, tool, type ModelMessage, type ToolSet } from 'ai';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { installedVersion } from '../installed-version.ts';
import { checkAdapterOptions, isPlainObject, shapeOf } from '../support/adapter-options.ts';
import type { Capabilities } from '../../harness/loop-port/capabilities.ts';
import type { LoopUnderTestFactory, PeerAdapter, PeerTool, PeerTurn, PeerWorld } from '../../harness/loop-port/peer-world.ts';
import type { TurnReport } from '../../harness/loop-port/port.ts';
import { classifyResolved, classifyThrown, endingOf } from './classify.ts';
import { fromSdkMessages, type SdkMessage } from './messages.ts';
import { OtelRecorder } from './otel-recorder.ts';
import { scriptedLanguageModel } from './scripted-language-model.ts';
import { wireLanguageModel } from './wire-model.ts';

export type AiSdkGlue = 'on-success' | 'per-step';
const GLUES: readonly AiSdkGlue[] = ['on-success', 'per-step'];

/**
 * `generateText` options of your own (temperature, providerOptions, prepareStep, …): laid over the harness's,
 * never replacing its model, tools, messages or signal. Your `onStepFinish` is called after the harness's own,
 * with the same step; `experimental_telemetry` is the harness's (its spans are the case's trace).
 */
export type GenerateTextOptions = Omit<Partial<Parameters<typeof generateText>[0]>, 'model' | 'tools' | 'messages' | 'prompt' | 'abortSignal' | 'system'>;

export interface AiSdkLoopOptions {
  /** How the app persists the conversation around `generateText`. Default `on-success`. */
  readonly glue?: AiSdkGlue;
  readonly options?: GenerateTextOptions;
}

export const AI_SDK_CAPABILITIES: Capabilities = {
  supports: ['wire:anthropic', 'wire:openai-chat', 'wire:openai-responses'],
  history: 'app-glue',
  time: 'patched-timers',
};

export function aiSdkLoop(loop: AiSdkLoopOptions = {}): LoopUnderTestFactory {
  checkAdapterOptions('aiSdkLoop', loop, ['glue', 'options']);
  const options: unknown = loop.options;
  if (options !== undefined && !isPlainObject(options))
    throw new TypeError(`aiSdkLoop: options must be an object of generateText options (e.g. { temperature: 0 }), got ${shapeOf(options)}`);
  const glue = loop.glue ?? 'on-success';
  // The tools the gate runs are the agent's, called by the harness: the loop's context would never reach them.
  if ((options as { experimental_context?: unknown } | undefined)?.experimental_context !== undefined)
    throw new TypeError(
      'aiSdkLoop: options.experimental_context never reaches the tools the gate runs: give it to aiSdkAgent({ context }), which hands it to every execute in every loop',
    );
  return {
    id: 'ai-sdk',
    version: `ai ${installedVersion('ai')}`,
    capabilities: AI_SDK_CAPABILITIES,
    glue,
    glues: GLUES,
    create: async (world) =>
      new AiSdkTurns(world, world.wire ? await wireLanguageModel(world.wire) : scriptedLanguageModel(world.model, 'scenario-model'), glue, loop.options ?? {}),
  };
}

class AiSdkTurns implements PeerAdapter {
  readonly #world: PeerWorld;
  readonly #model: LanguageModelV3;
  readonly #glue: AiSdkGlue;
  readonly #options: GenerateTextOptions;
  readonly #recorder: OtelRecorder;
  readonly #tools: ToolSet;
  #persisted: ModelMessage[] = [];

  constructor(world: PeerWorld, model: LanguageModelV3, glue: AiSdkGlue, options: GenerateTextOptions) {
    this.#world = world;
    this.#model = model;
    this.#glue = glue;
    this.#options = options;
    this.#recorder = new OtelRecorder(world.clock);
    this.#tools = Object.fromEntries(world.tools.map((t) => [t.name, asSdkTool(t)]));
  }

  async runTurn({ text, turn, signal }: PeerTurn): Promise<TurnReport> {
    this.#recorder.turn = turn;
    const input: ModelMessage[] = [...this.#persisted, { role: 'user', content: text }];
    let lastStep: ModelMessage[] | undefined;
    let steps = 0;
    const own = this.#options.onStepFinish;
    try {
      const r = await generateText({
        stopWhen: stepCountIs(this.#world.maxSteps),
        maxOutputTokens: this.#world.maxTokens,
        maxRetries: this.#world.retries,
        ...this.#options,
        model: this.#model,
        tools: this.#tools,
        system: this.#world.system,
        messages: input,
        abortSignal: signal,
        onStepFinish: (step) => {
          steps++;
          lastStep = step.response.messages;
          // The team's own (where an app persists, audits or bills per step): called as generateText would.
          return own?.(step);
        },
        experimental_telemetry: { isEnabled: true, tracer: this.#recorder.tracer, functionId: `turn:${turn}` },
      });
      this.#persisted = [...input, ...r.response.messages];
      return {
        turn,
        outcome: classifyResolved(r.finishReason, r.text),
        ending: { kind: 'resolved', finishReason: r.finishReason, ...(r.rawFinishReason ? { raw: r.rawFinishReason } : {}) },
        ...(r.text ? { reply: r.text } : {}),
        steps: r.steps.length,
        usage: { inputTokens: r.totalUsage.inputTokens ?? 0, outputTokens: r.totalUsage.outputTokens ?? 0 },
      };
    } catch (error) {
      if (this.#glue === 'per-step' && lastStep) this.#persisted = [...input, ...lastStep];
      return { turn, outcome: classifyThrown(error, signal), ending: endingOf(error), steps, usage: { inputTokens: 0, outputTokens: 0 } };
    }
  }

  persistedHistory() {
    return fromSdkMessages(this.#persisted as unknown as SdkMessage[]).messages;
  }

  traces() {
    return this.#recorder.book.traces();
  }
}

function asSdkTool(t: PeerTool) {
  return tool({
    description: t.description,
    inputSchema: t.input,
    execute: (args: unknown, { toolCallId, abortSignal }) => t.run(args, { callId: toolCallId, signal: abortSignal }),
  });
}
