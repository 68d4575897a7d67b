/**
 * What the loop runner is given (its dependencies and config) and what it returns.
 * The host — production or harness — supplies all of it (seed 004 rule 2).
 */
import type { Message, ModelClient, Usage } from '../model/client.ts';
import type { Clock } from '../clock.ts';
import type { Intent } from '../log/catalogue.ts';
import type { EventLog } from '../log/event-log.ts';
import type { PendingMessage } from '../log/positions.ts';
import type { Outcome } from '../outcome.ts';
import type { Redactor } from '../redact/index.ts';
import type { ToolExecutor } from '../tools/types.ts';
import type { TraceRecord, Tracer } from '../trace/tracer.ts';
import type { LoopConfig } from './config.ts';
import type { StreamRedaction } from './delta-streams.ts';
import type { ModelErrorHandler } from './model-errors.ts';

export { DEFAULT_LOOP_CONFIG, DEFAULT_RETRY, type LoopConfig, type RetryConfig } from './config.ts';

export interface PromptSource {
  assemble(): {
    readonly system: string;
    readonly fragments: readonly { readonly id: string; readonly priority: number }[];
    /** Fragments left out because they failed (a dynamic fragment that threw): recorded, and the request goes out without them. */
    readonly errors?: readonly { readonly id: string; readonly message: string }[];
  };
}

/** Proposes a compaction: a range of closed turns and its summary. */
export interface Compactor {
  compact(input: CompactionInput): Promise<CompactionProposal | null>;
}

export interface CompactionInput {
  readonly log: EventLog;
  readonly messages: readonly Message[];
  /** The widest range that may be replaced: from the first to the last closed turn not yet compacted. */
  readonly candidate: { readonly from: number; readonly to: number } | undefined;
  readonly signal: AbortSignal;
}

export interface CompactionProposal {
  readonly from: number;
  readonly to: number;
  readonly summary: string;
}

/** Decides what of the claimed input reaches the turn (moderation, filters, access). */
export interface ClaimPolicy {
  claim(messages: readonly PendingMessage[], signal: AbortSignal): Promise<ClaimDecision> | ClaimDecision;
}

export type ClaimDecision =
  | { readonly decision: 'allow' /** Rewritten text per message id; null drops the message. */; readonly rewrite?: ReadonlyMap<string, string | null> }
  | { readonly decision: 'deny'; readonly reason: string };

/** Runs before a turn closes; may extend the turn with a message (seed 000 §6). */
export interface CheckpointHook {
  readonly name: string;
  run(context: {
    readonly turn: number;
    readonly reply: string;
    readonly log: EventLog;
    readonly signal: AbortSignal;
  }): Promise<{ readonly extend?: string } | void> | { readonly extend?: string } | void;
}

export interface TurnTracing {
  /** A new trace for the turn. */
  begin(turn: number): Tracer;
  /** Ends and exports it; called in `finally`, exactly once per begun trace. */
  finish(tracer: Tracer, outcome: Outcome): TraceRecord;
}

/**
 * What a persist call must guarantee when it resolves.
 *
 * - `barrier`: everything the log holds is durably stored. The loop asks for it
 *   when a turn has taken its messages (before the first model request is spent
 *   on a turn the store may not hold), before a `STATEFUL` or `CRITICAL` tool
 *   call runs (the write-ahead record) and when a turn closes (before its
 *   outcome and reply are returned).
 * - `step`: the events are handed to the store; they may still be in flight (a
 *   host's group commit writes them with other conversations' events). Asked at
 *   each step's end, and before the loop waits out a provider's retry-after or
 *   turns to a fallback for one (the window outlives a crash). If that
 *   write fails, a later persist of the same log rejects, at the latest the
 *   turn's closing barrier: the turn then ends `failed{persistence}`.
 *
 * Omitted: `barrier`.
 */
export type Durability = 'step' | 'barrier';

/**
 * A promise already fulfilled, shared: a persist (or a store's append) that
 * returns this very object has finished its write before returning, so the
 * caller may go on without waiting a turn of the microtask queue for it. Any
 * other promise is awaited as always.
 */
export const WRITTEN: Promise<void> = Promise.resolve();

export interface LoopDeps {
  readonly log: EventLog;
  readonly model: ModelClient;
  /** Tier 3 of the retry chain: tried in order once tiers 1–2 are spent. */
  readonly fallbackModels?: readonly ModelClient[];
  readonly tools: ToolExecutor;
  readonly prompt: PromptSource;
  readonly clock: Clock;
  /**
   * Writes the log's unflushed events to the store. Rejects on failure — this
   * write's, or an earlier one's that had not been reported yet. `durability` says
   * what the loop is about to do next (see `Durability`); a host that stores every
   * write before resolving may ignore it. Returning `WRITTEN` says the write is
   * done (synchronously): the loop then goes on without waiting for it.
   */
  readonly persist: (durability?: Durability) => Promise<void>;
  readonly tracing: TurnTracing;
  /** Applied to everything the loop stores (the log's own redactor when it has none), returns and traces. */
  readonly redact: Redactor;
  /** How a streamed text is redacted across its deltas. Default: `streamRedactor` (held back until a secret can be redacted whole). */
  readonly streamRedaction?: StreamRedaction;
  readonly config: LoopConfig;
  readonly compactor?: Compactor;
  readonly claim?: ClaimPolicy;
  readonly checkpoints?: readonly CheckpointHook[];
  /** Consulted before the built-in handlers. */
  readonly errorHandlers?: readonly ModelErrorHandler[];
  /** Source of randomness for backoff jitter (the harness seeds it). */
  readonly random?: () => number;
  /** New inbox ids. */
  readonly newId: () => string;
  /** External cancellation sources merged into every turn's scope. */
  readonly signals?: { readonly parent?: AbortSignal; readonly shutdown?: AbortSignal };
  /**
   * The conversation this loop serves, as its host names it. Tool calls carry it:
   * idempotency keys are unique across conversations, and a tool pipeline shared
   * by many conversations keeps their call ids apart.
   */
  readonly conversation?: string;
}

export interface TurnResult {
  readonly turn: number;
  readonly outcome: Outcome;
  /** The final reply text, for `replied`. */
  readonly reply?: string;
  readonly steps: number;
  readonly toolCalls: number;
  /** Tokens of the turn's model results; cache and reasoning tokens where the provider reported them. */
  readonly usage: Usage;
  /** Inbox messages taken by this turn that never reached the model, returned in order. */
  readonly returnedToInbox: readonly string[];
  readonly trace: TraceRecord;
}

export interface SendOptions {
  readonly intent?: Intent;
  readonly source?: string;
  readonly id?: string;
}
