/**
 * Snapshots of a conversation's derived state, so a long conversation is reopened
 * from a snapshot and the tail instead of from seq 0 (docs/storage.md).
 *
 * Derived state is everything the kernel folds from the log and keeps: the
 * position index (calls, inbox, open turn, prompt and tools, compactions in
 * force), the incremental projection (the messages the next request sends), the
 * retry-after windows and the tokens spent by closed turns — each as it stood
 * after event `upTo - 1`. A resumed log holds the events from `upTo` on; the ones
 * before are read from the store on demand (`EventLog.resume`). Nothing here
 * decides anything the log could not: a snapshot is a cache of folding the prefix.
 *
 * A snapshot is only ever used when it is certainly the fold of the stored prefix:
 * `resumeFromSnapshot` throws `SnapshotMismatch` — and the caller reads the whole
 * log instead — when its format or event catalogue is not this code's, when any
 * part is malformed, or when the stored event at `upTo - 1` is not the one the
 * snapshot was taken after. (Damage to the stored text is the host's check: a
 * digest, host/snapshots.ts.) SNAPSHOT_FORMAT must change whenever what a fold
 * computes from the same events changes (snapshot.test.ts pins it).
 */
import { EVENT_VERSIONS } from '../log/catalogue.ts';
import type { AnyEvent } from '../log/envelope.ts';
import { EventLog, type EventLogOptions, type LogPrefix } from '../log/event-log.ts';
import { PositionIndex, type PositionsState } from '../log/positions.ts';
import type { Clock } from '../clock.ts';
import { seedProjection, type ProjectionState } from '../projection/projection.ts';
import { seedWindows, type WindowsState } from './retry-after-windows.ts';
import type { AgentLoop } from './runner.ts';
import { seedSessionTokens, type SessionTokensState } from './session-tokens.ts';

/** The version of what a snapshot holds and how each fold computes it. */
// 3: the projection leaves out assistant text that is only whitespace (a snapshot of format 2 may hold it).
export const SNAPSHOT_FORMAT = 3;

export interface LoopSnapshot {
  readonly format: number;
  /** The event catalogue (type → version) the state was folded under. */
  readonly catalogue: Readonly<Record<string, number>>;
  /** The state is the fold of events `[0, upTo)`. */
  readonly upTo: number;
  /** Type and time of event `upTo - 1`: ties the snapshot to the log it was taken of. */
  readonly last: { readonly type: string; readonly at: number } | null;
  readonly positions: PositionsState;
  readonly projection: ProjectionState;
  readonly windows: WindowsState;
  readonly sessionTokens: SessionTokensState;
}

/** Why a snapshot cannot be used: the caller reads the whole log instead. */
export class SnapshotMismatch extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SnapshotMismatch';
  }
}

/** The derived state of `loop` over `log`, at the log's current length. */
export function snapshotOf(loop: AgentLoop, log: EventLog): LoopSnapshot {
  const derived = loop.derivedState();
  const upTo = log.length;
  if (derived.projection.upTo !== upTo || derived.windows.upTo !== upTo || derived.sessionTokens.upTo !== upTo) {
    throw new Error(`snapshot: the loop's folds are not at the log's length ${upTo}`);
  }
  const last = upTo > 0 ? log.at(upTo - 1) : undefined;
  return {
    format: SNAPSHOT_FORMAT,
    catalogue: EVENT_VERSIONS,
    upTo,
    last: last ? { type: last.type, at: last.at } : null,
    positions: log.positions.state(),
    ...derived,
  };
}

/**
 * A log resumed from `snapshot`: the prefix `[0, snapshot.upTo)` read through
 * `prefix` on demand, `tail` (the stored events from `snapshot.upTo` on, decoded)
 * in memory, and the loop's folds seeded (the first loop built over the log starts
 * from them). Throws `SnapshotMismatch` when the snapshot cannot be trusted for
 * this log; nothing is seeded then.
 */
export function resumeFromSnapshot(
  clock: Pick<Clock, 'now'>,
  snapshot: LoopSnapshot,
  prefix: LogPrefix,
  tail: readonly AnyEvent[],
  options: EventLogOptions = {},
): EventLog {
  const s = snapshot as Partial<LoopSnapshot> | null;
  if (typeof s !== 'object' || s === null) throw new SnapshotMismatch('the snapshot is not an object');
  if (s.format !== SNAPSHOT_FORMAT) throw new SnapshotMismatch(`snapshot format ${String(s.format)}, this code reads ${SNAPSHOT_FORMAT}`);
  if (!sameCatalogue(s.catalogue)) throw new SnapshotMismatch('the snapshot was folded under another event catalogue');
  if (!Number.isSafeInteger(s.upTo) || s.upTo! < 0 || s.upTo !== prefix.upTo)
    throw new SnapshotMismatch(`snapshot upTo ${String(s.upTo)} is not the prefix's ${prefix.upTo}`);
  try {
    const positions = PositionIndex.restore(s.positions!);
    const log = EventLog.resume(clock, prefix, positions, tail, options);
    const upTo = s.upTo!;
    if (upTo > 0) {
      const last = log.at(upTo - 1);
      if (!last || s.last === null || last.type !== s.last?.type || last.at !== s.last.at) {
        throw new SnapshotMismatch(`the stored event ${upTo - 1} is not the one the snapshot was taken after`);
      }
    } else if (s.last !== null) throw new SnapshotMismatch('an empty snapshot names a last event');
    seedProjection(log, s.projection!);
    seedWindows(log, s.windows!);
    seedSessionTokens(log, s.sessionTokens!);
    return log;
  } catch (error) {
    if (error instanceof SnapshotMismatch) throw error;
    throw new SnapshotMismatch(`the snapshot cannot be restored: ${(error as Error).message}`, { cause: error });
  }
}

function sameCatalogue(catalogue: unknown): boolean {
  if (typeof catalogue !== 'object' || catalogue === null) return false;
  const theirs = catalogue as Record<string, unknown>;
  const ours = EVENT_VERSIONS as Readonly<Record<string, number>>;
  const keys = Object.keys(ours);
  return Object.keys(theirs).length === keys.length && keys.every((k) => theirs[k] === ours[k]);
}
