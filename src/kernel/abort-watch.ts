/**
 * Cheap abort subscriptions. Every tool call and model call races the turn's
 * cancel signal; an `addEventListener` / `removeEventListener` pair on an
 * `AbortSignal` per race goes through Node's `EventTarget` (listener records,
 * option parsing, and an `Event` object per dispatch), a measurable share of a
 * step. Here a signal gets one real listener, the first time anything watches it,
 * and the watchers are kept in a Set: watching and unwatching cost a WeakMap
 * lookup and a Set operation.
 *
 * When the signal aborts, the watchers run in the order they were added, each
 * once, and are dropped; one removed meanwhile is not called. A watcher added
 * once the signal has aborted is never called: check `signal.aborted` first, as
 * with `addEventListener`.
 */
type Watcher = () => void;

/**
 * A signal's watchers, in the order added. The common case — one watcher at a
 * time (a turn's model call, then the next) — keeps it in `one` and never
 * touches the Set: adding to and deleting the last entry of a Set reallocates
 * its table (V8 shrinks an emptied Set), a runtime call per race. `one` is only
 * set while `rest` is empty, so `one`, then `rest`, is the order they were added.
 */
interface Watchers {
  one: Watcher | undefined;
  rest: Set<Watcher> | undefined;
}

const watchers = new WeakMap<AbortSignal, Watchers>();

/** Calls `watcher` once when `signal` aborts (unless unwatched first). */
export function watchAbort(signal: AbortSignal, watcher: Watcher): void {
  let set = watchers.get(signal);
  if (set === undefined) {
    const created: Watchers = { one: undefined, rest: undefined };
    set = created;
    watchers.set(signal, created);
    signal.addEventListener(
      'abort',
      () => {
        // As EventTarget does: a watcher removed during the dispatch is not called, one added during it is not either.
        const due = created.one !== undefined ? [created.one] : created.rest ? [...created.rest] : [];
        for (const w of due) if (created.one === w || created.rest?.has(w)) w();
        created.one = undefined;
        created.rest?.clear();
        watchers.delete(signal);
      },
      { once: true },
    );
  }
  if (set.one === watcher) return;
  if (set.rest === undefined || set.rest.size === 0) {
    if (set.one === undefined) {
      set.one = watcher;
      return;
    }
    // A second watcher: both go to the Set, in order.
    (set.rest ??= new Set()).add(set.one);
    set.one = undefined;
  }
  set.rest.add(watcher);
}

/** Stops watching; harmless when the watcher already ran or was never added. */
export function unwatchAbort(signal: AbortSignal, watcher: Watcher): void {
  const set = watchers.get(signal);
  if (set === undefined) return;
  if (set.one === watcher) set.one = undefined;
  else set.rest?.delete(watcher);
}
