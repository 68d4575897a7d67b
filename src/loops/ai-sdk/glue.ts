/**
 * The app's persistence around `generateText`: the AI SDK keeps no history, so
 * what a turn leaves for the next is the app's code — its glue. A glue is called
 * once at the end of every turn with what the turn did and returns what the app
 * keeps: the history the next turn starts from, and messages waiting to go
 * before the next user message. The named ones:
 *
 *   on-success  the SDK docs' pattern (the default): a turn that resolved keeps
 *               its input and `response.messages`; one that threw keeps nothing
 *   per-step    as on-success, but a turn that threw keeps its input and the
 *               messages of its last finished step (`onStepFinish`)
 *   notice      as on-success, and a turn that threw after a STATEFUL or
 *               CRITICAL call ran leaves a notice naming each such call
 *               waiting for the next turn, as loopgate's own loop does — so the
 *               failed turn adds nothing to the history, and the model is told;
 *               a cancelled turn keeps its message and its finished steps, as
 *               loopgate's own loop does (the message is not lost)
 *
 * A team's own glue is a function of the same shape: the gate then runs the
 * team's persistence code, not one of these.
 */
import type { GenerateTextResult, ModelMessage, StepResult, ToolSet } from 'ai';
import type { SideEffect } from '../../kernel/index.ts';

/** What the app keeps between turns. */
export interface AiSdkKept {
  /** The history the next turn starts from. */
  readonly history: readonly ModelMessage[];
  /** Messages that go before the next turn's user message (and into its history with it): a notice of what a failed turn did. */
  readonly waiting?: readonly ModelMessage[];
}

/** What one turn did, as the glue sees it. */
export interface AiSdkTurnEnd {
  /** What was kept when the turn began. */
  readonly kept: AiSdkKept;
  /** The messages the turn sent: `kept.history`, `kept.waiting`, then the user's message. */
  readonly input: readonly ModelMessage[];
  /**
   * The steps that finished (`onStepFinish`), also when the turn threw. A turn where the SDK held calls for
   * approval runs `generateText` again after the approver's answers: each later run's steps (and its result) say in
   * `response.messages` what the turn answered before them too, with those answers — as if the turn were one run.
   */
  readonly steps: readonly StepResult<ToolSet>[];
  /** Every call whose body ran in the turn, in order — also one the SDK ran outside any step (an approved call, run as the next `generateText` starts). */
  readonly ran: readonly AiSdkRanCall[];
  /** When the turn's (last) `generateText` resolved. */
  readonly result?: GenerateTextResult<ToolSet, never>;
  /** When it threw. */
  readonly error?: unknown;
  /** Whether the turn was cancelled (its signal aborted): a cancel, not a failure. */
  readonly cancelled: boolean;
}

/** A call whose body ran: returned (`done`) or threw (`failed`). */
export interface AiSdkRanCall {
  readonly toolName: string;
  readonly toolCallId: string;
  readonly outcome: 'done' | 'failed';
}

export type AiSdkGlueFunction = (end: AiSdkTurnEnd) => AiSdkKept | Promise<AiSdkKept>;
export type AiSdkGlueName = 'on-success' | 'per-step' | 'notice';
export type AiSdkGlue = AiSdkGlueName | AiSdkGlueFunction;

export const GLUES: readonly AiSdkGlueName[] = ['on-success', 'per-step', 'notice'];

/** A named glue as a function; `tools` tells the notice glue which calls change the world. */
export function builtInGlue(name: AiSdkGlueName, tools: readonly { readonly name: string; readonly sideEffect: SideEffect }[]): AiSdkGlueFunction {
  switch (name) {
    case 'on-success':
      return ({ kept, input, result }) => (result ? replied(input, result) : kept);
    case 'per-step':
      return ({ kept, input, result, steps }) => {
        if (result) return replied(input, result);
        const last = steps[steps.length - 1];
        return last ? { history: [...input, ...last.response.messages] } : kept;
      };
    case 'notice': {
      const changes = new Set(tools.filter((t) => t.sideEffect === 'STATEFUL' || t.sideEffect === 'CRITICAL').map((t) => t.name));
      return ({ kept, input, result, steps, ran, cancelled }) => {
        if (result) return replied(input, result);
        const last = steps[steps.length - 1];
        // A cancelled turn keeps its message and finished steps; a call of them that never ran (held for approval when
        // the cancel came) is answered "not run", as loopgate's loop closes it — never left without a result.
        if (cancelled) return { history: closeUnanswered([...input, ...(last ? last.response.messages : [])]) };
        // Every call that ran, also one outside a finished step (an approved call the SDK ran before its next step).
        const lines = ran.filter((call) => changes.has(call.toolName)).map((call) => `- ${call.toolName} (call ${call.toolCallId}): ${call.outcome}`);
        if (lines.length === 0) return kept;
        const notice = `[The previous turn failed and its messages were not kept, but these actions were already carried out or may have been:\n${lines.join('\n')}\nDo not repeat them without checking.]`;
        return { history: kept.history, waiting: [...(kept.waiting ?? []), { role: 'user', content: notice }] };
      };
    }
    default:
      throw new TypeError(`aiSdkLoop: ${JSON.stringify(name)} is not a glue; known: ${GLUES.join(', ')}`);
  }
}

/** The messages with a tool message answering each call that has no result: "not run". */
function closeUnanswered(messages: readonly ModelMessage[]): ModelMessage[] {
  const answered = new Set<string>();
  for (const m of messages) if (m.role === 'tool') for (const part of m.content) if (part.type === 'tool-result') answered.add(part.toolCallId);
  const open = messages.flatMap((m) =>
    m.role === 'assistant' && Array.isArray(m.content)
      ? m.content.flatMap((part) => (part.type === 'tool-call' && !answered.has(part.toolCallId) ? [part] : []))
      : [],
  );
  if (open.length === 0) return [...messages];
  return [
    ...messages,
    {
      role: 'tool',
      content: open.map((call) => ({
        type: 'tool-result' as const,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: { type: 'error-text' as const, value: 'Not run: the turn was cancelled before it ran. Call it again if it is still needed.' },
      })),
    },
  ];
}

/** A turn that resolved keeps what it sent (a waiting notice included) and what it answered. */
function replied(input: readonly ModelMessage[], result: GenerateTextResult<ToolSet, never>): AiSdkKept {
  return { history: [...input, ...result.response.messages] };
}
