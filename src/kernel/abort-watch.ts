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

const watchers = new WeakMap<AbortSignal, Set<Watcher>>();

/** Calls `watcher` once when `signal` aborts (unless unwatched first). */
export function watchAbort(signal: AbortSignal, watcher: Watcher): void {
  let set = watchers.get(signal);
  if (set === undefined) {
    const created = new Set<Watcher>();
    set = created;
    watchers.set(signal, created);
    signal.addEventListener(
      'abort',
      () => {
        // As EventTarget does: a watcher removed during the dispatch is not called, one added during it is not either.
        for (const w of [...created]) if (created.has(w)) w();
        created.clear();
        watchers.delete(signal);
      },
      { once: true },
    );
  }
  set.add(watcher);
}

/** Stops watching; harmless when the watcher already ran or was never added. */
export function unwatchAbort(signal: AbortSignal, watcher: Watcher): void {
  watchers.get(signal)?.delete(watcher);
}
