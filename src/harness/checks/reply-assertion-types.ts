/**
 * What reply assertions need from the config: its predicates (`assertions`) and
 * its judges (`judges`, `defaultJudge`), and what a predicate is given.
 */
import type { AnyEvent, ModelClient } from '../../kernel/index.ts';

/** What a predicate sees of the case besides the reply. */
export interface AssertionRun {
  /** The scenario's name. */
  readonly scenario: string;
  /** The last turn's outcome label (`replied`, `failed{max_steps}`), if a turn ran. */
  readonly outcome: string | undefined;
  /** Every turn's outcome label, in order. */
  readonly outcomes: readonly string[];
  /** Every turn's reply, in order (undefined for a turn without one). */
  readonly replies: readonly (string | undefined)[];
  /** The final projected history, one message per line (as `history` expectations see it). */
  readonly history: readonly string[];
  /** Names of the tool calls that started executing, in order. */
  readonly toolCalls: readonly string[];
  /** The case's log. */
  readonly events: readonly AnyEvent[];
}

/**
 * A predicate on the last reply: `true` passes; a string fails with that
 * reason; `false` fails. May be async. A predicate that throws fails its check
 * with the error's message.
 */
export type ReplyPredicate = (reply: string, run: AssertionRun) => boolean | string | Promise<boolean | string>;

/** The wire providers a judge may be built on, through loopgate's adapters. */
export type JudgeProvider = 'anthropic' | 'openai-chat' | 'openai-responses';

/**
 * A judge model for `rubric` assertions:
 * - a ModelClient of your own (or a fake), asked for `model` (default: its name);
 * - `{ provider, model }`: built through loopgate's adapters with the API key from
 *   the environment, only in live runs (`--live`): the gate itself stays offline.
 */
export type JudgeSpec = ModelClient | { readonly client: ModelClient; readonly model?: string } | { readonly provider: JudgeProvider; readonly model: string };

export interface ReplyAssertionContext {
  readonly predicates: ReadonlyMap<string, ReplyPredicate>;
  readonly judges: ReadonlyMap<string, JudgeSpec>;
  /** The judge of rubrics that name none. */
  readonly defaultJudge?: string;
  /** Where the API keys of provider judges come from (live runs). */
  readonly env?: NodeJS.ProcessEnv;
}

export function isProviderJudge(spec: JudgeSpec): spec is { readonly provider: JudgeProvider; readonly model: string } {
  return typeof (spec as { provider?: unknown }).provider === 'string';
}
