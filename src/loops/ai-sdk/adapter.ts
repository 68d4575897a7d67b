/**
 * The Vercel AI SDK's `generateText` loop (`ai` 6) behind the loop-under-test
 * port. One `generateText` call per turn (one more after each time the SDK held
 * calls for approval, answered by the case's approver), multi-step with `stopWhen:
 * stepCountIs(maxSteps)`, the harness's tools (the agent's own, scripted and
 * counted) as AI SDK tools, the turn's signal as `abortSignal`, telemetry into
 * a recording tracer — and the model: the scenario's script as a scripted
 * `LanguageModelV3`, or for a wire scenario the provider's own package
 * (`@ai-sdk/anthropic`, `@ai-sdk/openai`) against the wire fake.
 *
 * The AI SDK keeps no history: the app does, in its glue (./glue.ts): one of
 * three named ones (`on-success`, the SDK docs' pattern and the default;
 * `per-step`; `notice`), or the team's own function — its real persistence
 * code, called at the end of every turn with what the turn did. What a glue
 * keeps is the history the next turn starts from, and messages waiting to go
 * before its user message (a notice of what a failed turn did).
 */
import { generateText, stepCountIs, tool, type GenerateTextResult, type ModelMessage, type StepResult, type ToolSet } from 'ai';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { closestName, type Agent } from '../../kernel/index.ts';
import { sdkApprovals } from '../../harness/loop-port/tool-approval.ts';
import { AgentBuildError } from '../../harness/world/agent-under-test.ts';
import { installedVersion } from '../installed-version.ts';
import { checkAdapterOptions, isPlainObject, shapeOf } from '../support/adapter-options.ts';
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
import { sdkCallContext } from './call-context.ts';
import { classifyResolved, classifyThrown, endingOf } from './classify.ts';
import { builtInGlue, GLUES, type AiSdkGlue, type AiSdkGlueFunction, type AiSdkGlueName, type AiSdkKept, type AiSdkRanCall } from './glue.ts';
import { fromSdkMessages, type SdkMessage } from './messages.ts';
import { OtelRecorder } from './otel-recorder.ts';
import type { BookSpan } from '../support/span-book.ts';
import { scriptedLanguageModel } from './scripted-language-model.ts';
import { wireLanguageModel } from './wire-model.ts';

export type { AiSdkGlue, AiSdkGlueFunction, AiSdkKept, AiSdkRanCall, AiSdkTurnEnd } from './glue.ts';

/**
 * `generateText` options of your own (temperature, providerOptions, prepareStep, …): laid over the harness's,
 * never replacing its model, tools, messages or signal. Your `onStepFinish` is called after the harness's own,
 * with the same step; `experimental_telemetry` is the harness's (its spans are the case's trace).
 */
export type GenerateTextOptions = Omit<Partial<Parameters<typeof generateText>[0]>, 'model' | 'tools' | 'messages' | 'prompt' | 'abortSignal' | 'system'>;

export interface AiSdkLoopOptions {
  /** How the app persists the conversation around `generateText`: a named glue, or your own function. Default `on-success`. */
  readonly glue?: AiSdkGlue;
  readonly options?: GenerateTextOptions;
}

export const AI_SDK_CAPABILITIES: Capabilities = {
  supports: ['wire:anthropic', 'wire:openai-chat', 'wire:openai-responses', 'approver', 'sdk-approval'],
  history: 'app-glue',
  time: 'patched-timers',
};

export function aiSdkLoop(loop: AiSdkLoopOptions = {}): LoopUnderTestFactory {
  checkAdapterOptions('aiSdkLoop', loop, ['glue', 'options']);
  const options: unknown = loop.options;
  if (options !== undefined && !isPlainObject(options))
    throw new TypeError(`aiSdkLoop: options must be an object of generateText options (e.g. { temperature: 0 }), got ${shapeOf(options)}`);
  const glue = checkedGlue('aiSdkLoop', loop.glue);
  // The tools the gate runs are the agent's, called by the harness: the loop's context would never reach them.
  if ((options as { experimental_context?: unknown } | undefined)?.experimental_context !== undefined)
    throw new TypeError(
      'aiSdkLoop: options.experimental_context never reaches the tools the gate runs: give it to aiSdkAgent({ context }), which hands it to every execute in every loop',
    );
  checkGenerateTextOptions(options as Readonly<Record<string, unknown>> | undefined);
  const own = loop.options ?? {};
  return aiSdkTurnsLoop('aiSdkLoop', `ai ${installedVersion('ai')}`, glue, async (world) => {
    const model = await caseModel(world);
    return async ({ remainingSteps, ...call }) => {
      const held = heldToCaseModel('aiSdkLoop', model, own.prepareStep ?? own.experimental_prepareStep);
      try {
        return await generateText({
          stopWhen: stepCountIs(remainingSteps),
          maxOutputTokens: world.maxTokens,
          maxRetries: world.retries,
          ...own,
          model,
          system: world.system,
          ...call,
          prepareStep: held.prepareStep,
          // The team's own (where an app persists, audits or bills per step): called after the harness's, as generateText would.
          onStepFinish: async (step) => {
            await call.onStepFinish(step);
            return own.onStepFinish?.(step);
          },
        });
      } catch (error) {
        throw held.tripped() ?? error;
      }
    };
  });
}

/** A glue as a config gives it: a name load-config checks against GLUES (naming the closest), or a function; anything else is refused here. */
export function checkedGlue(adapter: string, given: unknown): AiSdkGlue {
  const glue: unknown = given === undefined ? 'on-success' : given;
  if (typeof glue !== 'string' && typeof glue !== 'function')
    throw new TypeError(`${adapter}: glue must be one of ${GLUES.join(', ')}, or a function, got ${shapeOf(glue)}`);
  return glue as AiSdkGlue;
}

/**
 * The team's `prepareStep` (or none), held to the case's model: a step about to run on another model — chosen by
 * this `prepareStep`, or by a `prepareCall` before it — would call that model from the gate (a production provider,
 * with the case's prompts) and certify its answers. Such a step throws before any request; the turn then rethrows
 * an AgentBuildError naming the model, and the case fails (outside probe 34, HIGH-2).
 */
export function heldToCaseModel(
  adapter: string,
  model: LanguageModelV3,
  own: unknown,
  isCaseModel: (chosen: unknown) => boolean = (chosen) => chosen === model,
): { prepareStep: NonNullable<GenerateTextOptions['prepareStep']>; tripped: () => AgentBuildError | undefined } {
  let tripped: AgentBuildError | undefined;
  const refuse = (chosen: unknown, by: string) => {
    const name =
      typeof chosen === 'string' ? chosen : `${(chosen as Partial<LanguageModelV3>)?.provider ?? '?'} ${(chosen as Partial<LanguageModelV3>)?.modelId ?? '?'}`;
    tripped = new AgentBuildError(
      `${adapter}: the agent chose another model than the case's (${name}, by its ${by}): the gate would call that model with the case's prompts and certify its answers; choose it by the model given to the agent, or leave the model to the gate`,
    );
    throw tripped;
  };
  const prepareStep = (async (options: { model: unknown }) => {
    if (!isCaseModel(options.model)) refuse(options.model, 'prepareCall or call settings');
    const result = typeof own === 'function' ? await own(options) : undefined;
    const chosen = (result as { model?: unknown } | undefined)?.model;
    if (chosen !== undefined && !isCaseModel(chosen)) refuse(chosen, 'prepareStep');
    return result;
  }) as NonNullable<GenerateTextOptions['prepareStep']>;
  return { prepareStep, tripped: () => tripped };
}

/** The case's model: the scenario's script as a scripted `LanguageModelV3`, or the provider's own package against the wire fake. */
export async function caseModel(world: PeerWorld): Promise<LanguageModelV3> {
  return world.wire ? await wireLanguageModel(world.wire) : scriptedLanguageModel(world.model, 'scenario-model');
}

/** What the harness gives each turn's call: the conversation, the turn's signal, the case's tools, its step hook and telemetry. */
export interface HarnessCall {
  readonly messages: ModelMessage[];
  /** The steps left of the case's limit (the turn's earlier generateText runs took the rest): the default stopWhen. */
  readonly remainingSteps: number;
  readonly abortSignal: AbortSignal;
  readonly tools: ToolSet;
  readonly onStepFinish: (step: StepResult<ToolSet>) => void | Promise<void>;
  readonly experimental_telemetry: { readonly isEnabled: true; readonly tracer: OtelRecorder['tracer']; readonly functionId: string };
}

/** One turn of the loop under test: `generateText`, or a `ToolLoopAgent`'s `generate`. */
export type TurnCall = (call: HarnessCall) => Promise<GenerateTextResult<ToolSet, never>>;

/** The factory both AI SDK forms share: a glue (a name or the team's function), and per case the turn's call. */
export function aiSdkTurnsLoop(adapter: string, version: string, glue: AiSdkGlue, callFor: (world: PeerWorld) => Promise<TurnCall>): LoopUnderTestFactory {
  const own = typeof glue === 'function';
  return loopgateAdapter({
    id: 'ai-sdk',
    version,
    capabilities: AI_SDK_CAPABILITIES,
    // A name is checked against the glues this adapter knows (load-config refuses another); a function is the team's own.
    ...(own ? { glue: `your glue (${adapter}({ glue }))` } : { glue: String(glue), glues: GLUES }),
    create: async (world) => new AiSdkTurns(world, await callFor(world), own ? (glue as AiSdkGlueFunction) : builtInGlue(glue as AiSdkGlueName, world.tools)),
  });
}

/** `generateText`'s options in `ai` 6 that a team may lay over the harness's (what `GenerateTextOptions` allows). */
const GENERATE_TEXT_OPTIONS = [
  'maxOutputTokens',
  'temperature',
  'topP',
  'topK',
  'presencePenalty',
  'frequencyPenalty',
  'stopSequences',
  'seed',
  'maxRetries',
  'timeout',
  'headers',
  'allowSystemInMessages',
  'toolChoice',
  'stopWhen',
  'experimental_output',
  'output',
  'experimental_telemetry',
  'providerOptions',
  'experimental_activeTools',
  'activeTools',
  'experimental_prepareStep',
  'prepareStep',
  'experimental_repairToolCall',
  'experimental_download',
  'experimental_toolApprovalSecret',
  'experimental_include',
  'experimental_onStart',
  'experimental_onStepStart',
  'experimental_onToolCallStart',
  'experimental_onToolCallFinish',
  'onStepFinish',
  'onFinish',
] as const;

/** The options the harness gives `generateText` itself, and where a team's belongs instead. */
const HARNESS_OWNED: Readonly<Record<string, string>> = {
  model: "the gate runs the scenario's model (scripted, or the provider's package against the wire fake)",
  tools: 'give the tools to aiSdkAgent({ tools })',
  system: 'give it to aiSdkAgent({ system })',
  messages: "the conversation is the scenario's, kept by the glue",
  prompt: "the conversation is the scenario's, kept by the glue",
  abortSignal: "the turn's signal is the harness's (a scenario's cancel)",
};

/**
 * A key that is no `generateText` option would be dropped by the SDK unsaid — the gate would certify a run at
 * the defaults (a misspelled `temperature`) — and one the harness owns would be overwritten: each is refused,
 * naming the option meant (outside probe 31, F10).
 */
function checkGenerateTextOptions(options: Readonly<Record<string, unknown>> | undefined): void {
  for (const key of Object.keys(options ?? {})) {
    if (key in HARNESS_OWNED) throw new TypeError(`aiSdkLoop: options.${key} is the harness's: ${HARNESS_OWNED[key]}`);
    if ((GENERATE_TEXT_OPTIONS as readonly string[]).includes(key)) continue;
    const meant = closestName(key, GENERATE_TEXT_OPTIONS);
    throw new TypeError(
      `aiSdkLoop: options.${key} is not a generateText option of ai ${installedVersion('ai')}${meant ? ` (did you mean ${meant}?)` : ''}; known: ${GENERATE_TEXT_OPTIONS.join(', ')}`,
    );
  }
}

class AiSdkTurns implements PeerAdapter {
  readonly #call: TurnCall;
  readonly #glue: AiSdkGlueFunction;
  readonly #recorder: OtelRecorder;
  readonly #tools: ToolSet;
  readonly #world: PeerWorld;
  #kept: AiSdkKept = { history: [] };
  /** The calls whose bodies ran in the turn going now (AiSdkTurnEnd.ran). */
  #ran: AiSdkRanCall[] = [];

  constructor(world: PeerWorld, call: TurnCall, glue: AiSdkGlueFunction) {
    this.#call = call;
    this.#glue = glue;
    this.#world = world;
    this.#recorder = new OtelRecorder(world.clock);
    // A tool the agent's SDK holds for approval is held here too: the SDK's own setting, handed back (tool-approval.ts).
    const approvals = sdkApprovals(world.built as Agent);
    const ran = (call: AiSdkRanCall) => this.#ran.push(call);
    this.#tools = Object.fromEntries(world.tools.map((t) => [t.name, asSdkTool(t, approvals.get(t.name), ran)]));
  }

  async runTurn({ text, turn, signal }: PeerTurn): Promise<TurnReport> {
    this.#recorder.turn = turn;
    this.#ran = [];
    const kept = this.#kept;
    const input: ModelMessage[] = [...kept.history, ...(kept.waiting ?? []), { role: 'user', content: text }];
    // What the turn's earlier generateText runs answered, with the approver's answers: laid before every later run's
    // messages, and before what its steps and result say they answered, so the glue sees the turn as one run.
    let earlier: ModelMessage[] = [];
    const steps: StepResult<ToolSet>[] = [];
    const usage = { inputTokens: 0, outputTokens: 0 };
    let report: TurnReport;
    let result: GenerateTextResult<ToolSet, never> | undefined;
    let thrown: { error: unknown } | undefined;
    const call = async (remainingSteps: number) => {
      const before = earlier;
      const r = await this.#call({
        tools: this.#tools,
        messages: [...input, ...before],
        remainingSteps,
        abortSignal: signal,
        onStepFinish: (step) => {
          steps.push(after(before, step));
        },
        experimental_telemetry: { isEnabled: true, tracer: this.#recorder.tracer, functionId: `turn:${turn}` },
      });
      usage.inputTokens += r.totalUsage.inputTokens ?? 0;
      usage.outputTokens += r.totalUsage.outputTokens ?? 0;
      return r;
    };
    // A turn of several generateText runs is one trace: the app's turn span over them.
    let appTurn: BookSpan | undefined;
    try {
      let r = await call(this.#world.maxSteps);
      // Calls the SDK held for approval: the app puts each to the approver and calls generateText again with the
      // conversation so far and the answers (the SDK's docs' pattern); the SDK then runs what was approved. The
      // case's step limit holds for the whole turn: at it, the held calls stay held (failed{max_steps}).
      for (let held = approvalRequests(r); held.length > 0 && steps.length < this.#world.maxSteps; held = approvalRequests(r)) {
        appTurn ??= this.#recorder.root = this.#recorder.book.underOne(turn, 'app.turn');
        const answers: ApprovalResponsePart[] = [];
        for (const request of held) answers.push(await this.#answer(request, signal)); // one at a time, in the model's order
        // Cancelled while the approver decided: the app does not go on, whatever it was told after (the SDK would
        // run an approved call before it saw the abort).
        if (signal.aborted) throw signal.reason;
        earlier = [...earlier, ...r.response.messages, { role: 'tool', content: answers }];
        r = await call(this.#world.maxSteps - steps.length);
      }
      result = after(earlier, r);
      report = {
        turn,
        outcome: classifyResolved(r.finishReason, r.text),
        ending: { kind: 'resolved', finishReason: r.finishReason, ...(r.rawFinishReason ? { raw: r.rawFinishReason } : {}) },
        ...(r.text ? { reply: r.text } : {}),
        steps: steps.length,
        usage,
      };
    } catch (error) {
      // The team's agent or config broke the gate's terms (another model chosen mid-turn): the case fails naming it.
      if (error instanceof AgentBuildError) throw error;
      thrown = { error };
      report = { turn, outcome: classifyThrown(error, signal), ending: endingOf(error), steps: steps.length, usage };
    }
    if (appTurn) this.#recorder.book.close(appTurn, thrown ? (report.outcome.kind === 'cancelled' ? 'cancelled' : 'error') : 'ok');
    this.#recorder.root = undefined;
    const ran = this.#ran;
    this.#kept = await this.#keep({ kept, input, steps, ran, ...(result ? { result } : {}), ...(thrown ?? {}), cancelled: signal.aborted });
    return report;
  }

  /**
   * The approver's answer to one held call, as the app sends it back: approved only on "approve"; a "no", an answer
   * that is neither, an approver that throws or none at all deny it (loopgate's policy default).
   */
  async #answer(request: ApprovalRequestPart, signal: AbortSignal): Promise<ApprovalResponsePart> {
    const { toolCall } = request;
    const tool = this.#world.tools.find((t) => t.name === toolCall.toolName);
    let approved = false;
    if (this.#world.approver)
      try {
        const answer = await this.#world.approver.approve(
          {
            callId: toolCall.toolCallId,
            tool: toolCall.toolName,
            args: toolCall.input,
            sideEffect: tool?.sideEffect ?? 'NONE',
            reason: `${toolCall.toolName} needs approval (needsApproval)`,
          },
          signal,
        );
        approved = answer === 'approve';
      } catch {
        approved = false;
      }
    return {
      type: 'tool-approval-response',
      approvalId: request.approvalId,
      approved,
      ...(approved ? {} : { reason: this.#world.approver ? 'The approver did not approve this call.' : 'No approver answered; the call is denied.' }),
    };
  }

  /** The glue's answer, checked: a glue that throws or keeps something else fails the case in one line naming it, as the app's own bug. */
  async #keep(end: Parameters<AiSdkGlueFunction>[0]): Promise<AiSdkKept> {
    let kept: AiSdkKept;
    try {
      kept = await this.#glue(end);
    } catch (error) {
      throw new AgentBuildError(`aiSdkLoop: the glue threw: ${(error as Error)?.message ?? String(error)}`);
    }
    if (kept === null || typeof kept !== 'object' || !Array.isArray(kept.history) || (kept.waiting !== undefined && !Array.isArray(kept.waiting)))
      throw new AgentBuildError('aiSdkLoop: the glue must return { history: ModelMessage[], waiting?: ModelMessage[] }');
    // Each message's shape (a role the SDK knows; its content a text or a list of typed parts): a malformed one is the
    // glue's, named here, not a stack in the next turn. (Not the SDK's modelMessageSchema: the messages the SDK itself
    // returns can hold tool outputs that schema refuses, a Date among them.)
    for (const [list, messages] of [
      ['history', kept.history],
      ['waiting', kept.waiting ?? []],
    ] as const)
      for (const [i, message] of messages.entries()) {
        const problem = messageProblem(message);
        if (problem)
          throw new AgentBuildError(
            `aiSdkLoop: the glue returned ${list}[${i}], which is not a ModelMessage: ${problem} (${JSON.stringify(message)?.slice(0, 80)})`,
          );
      }
    return kept;
  }

  persistedHistory() {
    return fromSdkMessages(this.#kept.history as unknown as SdkMessage[]).messages;
  }

  waiting() {
    return fromSdkMessages((this.#kept.waiting ?? []) as unknown as SdkMessage[]).messages;
  }

  traces() {
    return this.#recorder.book.traces();
  }
}

/** What is wrong with a message's shape, or undefined. */
function messageProblem(message: unknown): string | undefined {
  if (message === null || typeof message !== 'object') return `got ${message === null ? 'null' : typeof message}`;
  const { role, content } = message as { role?: unknown; content?: unknown };
  if (role !== 'system' && role !== 'user' && role !== 'assistant' && role !== 'tool')
    return `role ${JSON.stringify(role)} is none of system, user, assistant, tool`;
  if (typeof content === 'string') return role === 'tool' ? 'a tool message holds a list of parts, not a text' : undefined;
  if (!Array.isArray(content)) return `content is ${content === null ? 'null' : typeof content}, not a text or a list of parts`;
  const bad = content.findIndex((part) => part === null || typeof part !== 'object' || typeof (part as { type?: unknown }).type !== 'string');
  return bad >= 0 ? `content[${bad}] is not a part with a type` : undefined;
}

type ApprovalRequestPart = Extract<GenerateTextResult<ToolSet, never>['content'][number], { type: 'tool-approval-request' }>;
type ApprovalResponsePart = { type: 'tool-approval-response'; approvalId: string; approved: boolean; reason?: string };

/** The calls a `generateText` result stopped on, held for approval. */
function approvalRequests(result: GenerateTextResult<ToolSet, never>): ApprovalRequestPart[] {
  return result.content.filter((part): part is ApprovalRequestPart => part.type === 'tool-approval-request');
}

function asSdkTool(t: PeerTool, needsApproval: unknown, ran: (call: AiSdkRanCall) => void) {
  return tool({
    description: t.description,
    inputSchema: t.input,
    ...(needsApproval !== undefined ? { needsApproval: needsApproval as never } : {}),
    // The step's context reaches the agent's own execute through the harness's wrapping (call-context.ts).
    execute: async (args: unknown, { toolCallId, abortSignal, experimental_context }) => {
      try {
        const out = await sdkCallContext.run({ context: experimental_context }, () => t.run(args, { callId: toolCallId, signal: abortSignal }));
        ran({ toolName: t.name, toolCallId, outcome: 'done' });
        return out;
      } catch (error) {
        ran({ toolName: t.name, toolCallId, outcome: 'failed' });
        throw error;
      }
    },
  });
}

/**
 * A step or result of a later generateText run of the turn, as if the turn were one run: what the earlier runs
 * answered (with the approver's answers) laid before its response messages. Nothing else of it changes.
 */
function after<T extends { readonly response: { readonly messages: readonly ModelMessage[] } }>(earlier: readonly ModelMessage[], value: T): T {
  if (earlier.length === 0) return value;
  const response = { ...value.response, messages: [...earlier, ...value.response.messages] };
  return new Proxy(value, { get: (target, key) => (key === 'response' ? response : Reflect.get(target, key, target)) });
}
