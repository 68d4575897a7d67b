/**
 * The loop-under-test port: what the second host needs from any agent loop to
 * drive a case and judge it from the outside — loopgate's own (the loop directly,
 * or through the production host), or another framework's (the Vercel AI SDK's
 * `generateText` loop, OpenAI Agents' `run`) behind an adapter.
 *
 * The inbox script talks only to this port (world/inbox-driver.ts): post a message
 * with an intent, cancel, and wait until everything posted has settled — one
 * report per turn, and the wait never rejects (a peer's throw is classified into
 * an outcome inside its adapter). What the loop persisted is read back as
 * loopgate messages, so one set of checks reads every loop's history.
 */
import type { CancelSource, Message, Outcome, TraceRecord, Usage } from '../../kernel/index.ts';
import type { Capabilities } from './capabilities.ts';

export type MessageIntent = 'follow_up' | 'steer' | 'inject';

/** How a peer's turn ended, verbatim — shown beside the outcome the adapter classified it as. */
export type PeerEnding =
  | { readonly kind: 'resolved'; readonly finishReason?: string; readonly raw?: string }
  | { readonly kind: 'threw'; readonly errorClass: string; readonly status?: number; readonly message: string }
  | { readonly kind: 'unsettled'; readonly waitingOn: string };

/** One turn, as the loop under test reported it. */
export interface TurnReport {
  /** 0-based, in the order the turns ran. */
  readonly turn: number;
  /** The outcome in loopgate's closed alphabet (for a peer: its adapter's documented classifier). */
  readonly outcome: Outcome;
  /** What the loop itself did to end the turn. */
  readonly ending: PeerEnding;
  readonly reply?: string;
  readonly steps: number;
  readonly usage: Usage;
}

export interface LoopUnderTest {
  readonly capabilities: Capabilities;
  /**
   * Posts a message as a client would; a follow-up queues a turn and wakes the loop. Steer and inject only where the capabilities have them.
   * `via` (here and in `cancel`): the host, 1-based, of a case that runs several (loopgate's production host; the others run one).
   * `messageId`: the client's id for the message, the same on a retry (loopgate's production host only).
   * `gone`: the client is gone before the host reads the post, its request's signal already aborted (production host only).
   */
  send(text: string, intent: MessageIntent, via?: number, messageId?: string, gone?: boolean): void;
  /** Cancels the running turn (the first source wins); ignored when idle. */
  cancel(by: CancelSource, via?: number): void;
  /** The process dies, with nothing written beyond what the store holds (loopgate's production host only). */
  crash(): void;
  /** A new process over the same store, after a crash. */
  reopen(): Promise<void>;
  /**
   * An operator undoes the compaction last applied, between turns (loopgate's loop driven directly only).
   * False when no compaction is in force: there is nothing to undo (the case names the entry; the script goes on).
   */
  undoCompaction?(): Promise<boolean>;
  /** The loop is shut down: a running turn is cancelled, no new turn starts (loopgate's loop driven directly only). */
  shutdown?(): void;
  /**
   * The client of the n-th message posted (1-based) goes away: its request's signal aborts (loopgate's production host only).
   * False when that message is not posted (yet): a message with a trigger is posted when it fires.
   */
  disconnect?(post: number): boolean;
  /**
   * The store lets go of the conversation lock a host holds while the host lives on (a dropped lock connection;
   * loopgate's production host only). False when no host held it: nothing was lost.
   */
  loseLock?(): boolean;
  /** Resolves when everything posted so far has settled: turns closed, requests answered. Never rejects. */
  settled(): Promise<void>;
  /** One report per turn that closed, in order. */
  reports(): readonly TurnReport[];
  /** The conversation as persisted: what the next turn would start from. */
  persistedHistory(): readonly Message[];
}

/** A turn's trace, recorded by the adapter with loopgate's span kinds (unmapped kinds kept as attributes). */
export type { TraceRecord };
