/**
 * The seed of an incremental fold of the log, restored from a snapshot of
 * derived state: checked when it is put in (a snapshot is input from disk), held
 * beside the log until the fold is built, and taken by it once.
 */
import type { EventLog } from '../log/event-log.ts';

export interface FoldSeed<State extends { readonly upTo: number }> {
  /** Seeds the fold of a log resumed from a snapshot. Throws, naming the fold, when `state` is malformed. */
  put(log: EventLog, state: State): void;
  /** The seed of this log, once: the fold built over the log takes it. */
  take(log: EventLog): State | undefined;
}

/** `wellFormed` checks the fold's own fields; `upTo` (a position within the log) is checked here. */
export function foldSeed<State extends { readonly upTo: number }>(what: string, wellFormed: (state: State) => boolean): FoldSeed<State> {
  const seeds = new WeakMap<EventLog, State>();
  return {
    put(log, state) {
      const ok =
        typeof state === 'object' && state !== null && Number.isSafeInteger(state.upTo) && state.upTo >= 0 && state.upTo <= log.length && wellFormed(state);
      if (!ok) throw new Error(`the ${what} state is malformed`);
      seeds.set(log, state);
    },
    take(log) {
      const seed = seeds.get(log);
      seeds.delete(log);
      return seed;
    },
  };
}
