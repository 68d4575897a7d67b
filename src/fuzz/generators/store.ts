/**
 * Store faults: which batch appends fail (1-based, over the whole scenario), and
 * where the process crashes — an event index; the crash property keeps what the
 * store had committed before that event, reopens it (SQLite) and recovers.
 */
import fc from 'fast-check';

export const failAppendsArb: fc.Arbitrary<number[]> = fc
  .uniqueArray(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 3 })
  .map((a) => a.sort((x, y) => x - y));

/**
 * Which write-aheads the store refuses (the append holding the n-th start record
 * of a STATEFUL or CRITICAL call): a fault that lands on the record the loop
 * waits for before it runs a call, which an append number finds only by chance.
 */
export const failWriteAheadsArb: fc.Arbitrary<number[]> = fc.oneof(
  { withCrossShrink: true },
  { weight: 3, arbitrary: fc.constant<number[]>([1]) },
  { weight: 1, arbitrary: fc.uniqueArray(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 2 }).map((a) => a.sort((x, y) => x - y)) },
);

/**
 * Which receipts the store refuses (the append holding the n-th client message's `inbox.received`): mostly a
 * message after the first, one posted while a turn runs — a steer a running turn may take before its write fails.
 */
export const failReceiptsArb: fc.Arbitrary<number[]> = fc.oneof(
  { withCrossShrink: true },
  { weight: 3, arbitrary: fc.integer({ min: 2, max: 3 }).map((n) => [n]) },
  { weight: 1, arbitrary: fc.uniqueArray(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 2 }).map((a) => a.sort((x, y) => x - y)) },
);

/** An event index; reduced modulo the run's length + 1 (the last value: after everything). */
export const crashAtArb: fc.Arbitrary<number> = fc.nat({ max: 400 });

/**
 * A crash through the production host, then a new host over the same store and
 * a message to it — and what the crash did to the store: nothing, a record lost
 * (a gap), a record garbled, or the stored snapshot garbled (bit rot). The new
 * host must refuse a store with a lost or garbled record (its recovery sweep,
 * a 500 for the next message) and read the conversation whole past a garbled
 * snapshot — never resume from it.
 *
 * A lost or garbled record lands on one of the first events, with the crash
 * inside the append of event `event` (3–7, fewer events than the harness's
 * snapshot interval): a snapshot stands for the events it covers, and a reopen
 * reads only those after it, so damage under a snapshot is read by nobody (and
 * a lost last record is no gap at all: the store just looks as if the crash came
 * earlier — the world's store does not lose it).
 */
export type StoreCrash =
  | { readonly damage: 'none'; readonly at: CrashTrigger; readonly position: number }
  | { readonly damage: 'snapshot'; readonly at: CrashTrigger; readonly position: number }
  | { readonly damage: 'lose' | 'corrupt'; readonly at: { readonly event: number }; readonly seqs: readonly number[] };

/**
 * When the crash comes: once the host is idle (at that point of the inbox), or mid-turn — at a request, an event, a
 * time, or as a tool's body starts (aimed cases only: scenario.ts's `aimedRepeat`).
 */
export type CrashTrigger = undefined | { readonly request: number } | { readonly event: number } | { readonly time: number } | { readonly toolStart: string };

const crashTriggerArb: fc.Arbitrary<CrashTrigger> = fc.oneof(
  { withCrossShrink: true },
  { weight: 3, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 6 }).map((request) => ({ request })) },
  { weight: 1, arbitrary: fc.integer({ min: 2, max: 60 }).map((event) => ({ event })) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 60_000 }).map((time) => ({ time })) },
);

/** A few seqs among the first `event - 2` (so each lies before the last record stored at the crash, when it is stored). */
const earlyDamageArb = (damage: 'lose' | 'corrupt'): fc.Arbitrary<StoreCrash> =>
  fc.integer({ min: 3, max: 7 }).chain((event) =>
    fc.uniqueArray(fc.integer({ min: 0, max: event - 3 }), { minLength: 1, maxLength: 2 }).map((seqs) => ({
      damage,
      at: { event },
      seqs: seqs.sort((x, y) => x - y),
    })),
  );

export const storeCrashArb: fc.Arbitrary<StoreCrash> = fc.oneof(
  { withCrossShrink: true },
  { weight: 1, arbitrary: fc.record({ damage: fc.constant('none' as const), at: crashTriggerArb, position: fc.nat({ max: 12 }) }) },
  { weight: 2, arbitrary: fc.record({ damage: fc.constant('snapshot' as const), at: crashTriggerArb, position: fc.nat({ max: 12 }) }) },
  { weight: 1, arbitrary: earlyDamageArb('lose') },
  { weight: 1, arbitrary: earlyDamageArb('corrupt') },
);
