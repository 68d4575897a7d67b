/**
 * An agent: what a team writes and plugs into the loop — its tools (with their
 * real bodies), its prompt, its permission policy, its approver, compactor,
 * checkpoint hooks and claim policy, and its loop limits. A host supplies the
 * rest (the log and its store, the model clients, the clock, tracing).
 *
 * Agents are built by a factory, once per conversation: a tool that keeps state
 * (a booking table, a payment ledger) starts fresh in every case and every fuzz
 * run, and in production one conversation's state never reaches another's. The
 * same factory serves the production host (built each time it opens a
 * conversation) and both of loopgate's runners (`loopgate run`, `loopgate/vitest`).
 */
import type { Clock } from './clock.ts';
import type { RetryConfig, LoopConfig } from './loop/config.ts';
import type { ModelErrorHandler } from './loop/model-errors.ts';
import type { CheckpointHook, ClaimPolicy, Compactor } from './loop/types.ts';
import type { PromptFragment } from './prompt/assembler.ts';
import type { ToolPolicy } from './tools/policy.ts';
import type { AnyToolDeclaration, Approver } from './tools/types.ts';
import type { VisibilityLayer } from './tools/visibility.ts';

export interface Agent {
  readonly tools?: readonly AnyToolDeclaration[];
  /** The system prompt as one text (an identity fragment at priority −100). */
  readonly system?: string;
  /** The system prompt as fragments for the prompt assembler (priorities, dynamic texts, exclusive); with `system`, added after it. */
  readonly prompt?: readonly PromptFragment[];
  /** Allow / deny / ask rules for tool calls; a deny always wins. */
  readonly policy?: ToolPolicy;
  /** Visibility layers (global → mode → sub-agent); a deny is never lifted by a later layer. */
  readonly visibility?: readonly VisibilityLayer[];
  readonly approver?: Approver;
  readonly compactor?: Compactor;
  readonly checkpoints?: readonly CheckpointHook[];
  readonly claim?: ClaimPolicy;
  /** Consulted before the built-in model-error handlers. */
  readonly errorHandlers?: readonly ModelErrorHandler[];
  /** Loop limits and budgets beyond the defaults. */
  readonly config?: AgentLoopConfig;
  /**
   * Exact values never to be written anywhere (API keys the tools hold, customer
   * secrets). Each at least 4 characters, and none inside a word the loop writes
   * into its records or inside a tool's name: a build refuses those, since
   * redacting them would garble every record. At most 256 (MAX_SECRETS): each is
   * looked for in every form in every text.
   */
  readonly secrets?: readonly string[];
}

export type AgentLoopConfig = Partial<Omit<LoopConfig, 'retry' | 'model'>> & { readonly retry?: Partial<RetryConfig> };

/** `AgentContext.loop` of loopgate's own loop and host. */
export const LOOPGATE_LOOP = 'loopgate';

/**
 * Set by an adapter of another SDK's agent on an agent it built without being told its loop (`AgentContext.loop`
 * unset: a config being inspected, a caller building it itself, a wrapper factory that dropped the context), when
 * only the SDK's own loop runs all of it: `loop` is that loop's `AgentContext.loop`, `missing` says what any other
 * would leave out. loopgate's host, and the gate building it for any other loop, refuse such an agent.
 */
export const ONLY_ITS_OWN_LOOP: unique symbol = Symbol.for('loopgate.agent.onlyItsOwnLoop');

export interface OnlyItsOwnLoop {
  readonly loop: string;
  readonly missing: string;
}

/** The agent's `ONLY_ITS_OWN_LOOP` mark, if it has one. */
export function onlyItsOwnLoop(agent: unknown): OnlyItsOwnLoop | undefined {
  if (agent === null || typeof agent !== 'object') return undefined;
  const mark = (agent as { [ONLY_ITS_OWN_LOOP]?: unknown })[ONLY_ITS_OWN_LOOP];
  return mark !== null && typeof mark === 'object' && typeof (mark as OnlyItsOwnLoop).missing === 'string' ? (mark as OnlyItsOwnLoop) : undefined;
}

/** What a factory is given: the host's clock (virtual under the harness) and a seeded source of randomness. */
export interface AgentContext {
  readonly clock: Clock;
  readonly random: () => number;
  /**
   * The conversation the agent will serve (load that user's state by it). Absent
   * when the agent is built only to be checked (a config being read, a host
   * checking its YAML against it), never to run.
   */
  readonly conversationId?: string;
  /**
   * The loop that will run the agent: `loopgate` for loopgate's own loop and its
   * host (production's, and the gate's cases on them), a peer loop's id
   * (`ai-sdk`, `openai-agents`) when the gate runs the agent in that SDK's loop
   * (an adapter's own loop of a team's SDK agent: its `agentLoop`, e.g.
   * `openai-agents/openAiAgent`).
   * Absent when the agent is built only to be inspected (a config being read).
   * An adapter of another SDK's agent refuses, where loopgate's loop runs it,
   * what only that SDK's own loop runs (its guardrails), rather than drop it.
   */
  readonly loop?: string;
}

/**
 * Builds a fresh agent: called once per case, per fuzz run, per conversation —
 * the production host calls it each time it opens a conversation (again after
 * closing it idle, or in a new process), so keep what must outlive that in your
 * own store, not the closure.
 */
export type AgentFactory = (context: AgentContext) => Agent | Promise<Agent>;
