/**
 * A bystander for some fuzz cases: a second conversation on the same host and
 * store (the scenario's `bystander`), one or two questions the model answers
 * after a while, posted at a time drawn to overlap the case's own turns — and,
 * through the production host, half the time under the client message ids the
 * case's clients give (the case's first message is then given one, if no retry
 * gave it one already). Nothing about it is
 * predicted beyond what holds whatever the case does: its run is judged by the
 * invariants, and `conversations-kept-apart` judges the two together (a turn of
 * a conversation nobody cancelled closes cancelled, an id refused as another
 * conversation's message, anything of one found in the other).
 */
import fc from 'fast-check';
import type { Bystander, InboxEntry } from '../../harness/scenario/schema.ts';
import type { CrashTrigger } from './store.ts';

export interface BystanderParts {
  /** When its first question is posted (virtual ms). */
  readonly startMs: number;
  /** How long the model takes over each answer. */
  readonly latencyMs: number;
  /** Questions it asks (each after the last answer came). */
  readonly questions: number;
  /** Through the production host: its clients give the case's clients' message ids. */
  readonly sameIds: boolean;
}

export const bystanderArb: fc.Arbitrary<BystanderParts> = fc.record({
  startMs: fc.integer({ min: 0, max: 2_000 }),
  latencyMs: fc.integer({ min: 0, max: 3_000 }),
  questions: fc.integer({ min: 1, max: 2 }),
  sameIds: fc.boolean(),
});

/**
 * The bystander the parts stand for. `ids`: the message ids the case's clients give (through the production host,
 * with `sameIds`), which its questions take in order; undefined: its clients give none.
 */
export function toBystander(parts: BystanderParts, ids: readonly string[] | undefined): Bystander {
  const inbox: InboxEntry[] = [];
  for (let i = 0; i < parts.questions; i++) {
    inbox.push({
      say: `bystander question ${i + 1}: where is job ${2001 + i}?`,
      // Each after the last answer: the model answers after latencyMs (a margin for the turn's close).
      at: { time: parts.startMs + i * (parts.latencyMs + 1_000) },
      ...(ids ? { messageId: ids[i] ?? `bystander-msg-${i + 1}` } : {}),
    });
  }
  return {
    provider: Array.from({ length: parts.questions }, (_, i) => ({
      reply: `bystander answer ${i + 1}: job ${2001 + i} starts at noon.`,
      latencyMs: parts.latencyMs,
      usage: { input: 1, output: 1 },
    })),
    inbox,
    expect: {},
  };
}

/**
 * A crash of the one host process both conversations live in (a bystander and the case's own): mid-turn, at a
 * virtual time, a model request or an event of the case's, drawn to land while the bystander's turn may run too.
 * The new host's recovery sweep must close every turn the crash left open, each in its own conversation. Half the
 * time the case's customer writes nothing after the reopen, so only the sweep closes the case's turn.
 */
export interface BystanderCrash {
  readonly bystander: BystanderParts;
  readonly at: Exclude<CrashTrigger, undefined>;
  /** The case's customer writes again after the reopen. */
  readonly writesAgain: boolean;
}

export const bystanderCrashArb: fc.Arbitrary<BystanderCrash> = fc.record({
  bystander: bystanderArb,
  at: fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: 0, max: 5_000 }).map((time) => ({ time })) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 4 }).map((request) => ({ request })) },
    { weight: 1, arbitrary: fc.integer({ min: 2, max: 40 }).map((event) => ({ event })) },
  ),
  writesAgain: fc.boolean(),
});
