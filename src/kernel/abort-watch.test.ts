import { describe, expect, it, vi } from 'vitest';
import { unwatchAbort, watchAbort } from './abort-watch.ts';

describe('abort-watch: many watchers, one listener', () => {
  it('calls each watcher once, in the order added, and not one that was unwatched', () => {
    const controller = new AbortController();
    const seen: string[] = [];
    const a = () => seen.push('a');
    const b = () => seen.push('b');
    const c = () => seen.push('c');
    watchAbort(controller.signal, a);
    watchAbort(controller.signal, b);
    watchAbort(controller.signal, c);
    unwatchAbort(controller.signal, b);
    controller.abort();
    controller.abort();
    expect(seen).toEqual(['a', 'c']);
  });

  it('adds one listener to a signal however many watch it', () => {
    const controller = new AbortController();
    const spy = vi.spyOn(controller.signal, 'addEventListener');
    for (let i = 0; i < 50; i++) {
      const w = () => undefined;
      watchAbort(controller.signal, w);
      unwatchAbort(controller.signal, w);
    }
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it('a watcher that unwatches another during the abort stops it from running', () => {
    const controller = new AbortController();
    const seen: string[] = [];
    const second = () => seen.push('second');
    watchAbort(controller.signal, () => {
      seen.push('first');
      unwatchAbort(controller.signal, second);
    });
    watchAbort(controller.signal, second);
    controller.abort();
    expect(seen).toEqual(['first']);
  });

  it('keeps the order added through one watcher, then several, then one again; a watcher added twice runs once', () => {
    const controller = new AbortController();
    const seen: string[] = [];
    const w = (name: string) => () => seen.push(name);
    const a = w('a');
    const b = w('b');
    const c = w('c');
    const d = w('d');
    watchAbort(controller.signal, a); // alone
    watchAbort(controller.signal, a); // again: still once
    unwatchAbort(controller.signal, a);
    watchAbort(controller.signal, b); // alone again
    watchAbort(controller.signal, c); // now two, b first
    watchAbort(controller.signal, b);
    unwatchAbort(controller.signal, b);
    unwatchAbort(controller.signal, c); // none left
    watchAbort(controller.signal, d); // alone
    watchAbort(controller.signal, a);
    watchAbort(controller.signal, c);
    unwatchAbort(controller.signal, a);
    controller.abort();
    expect(seen).toEqual(['d', 'c']);
  });

  it('a watcher added during the abort does not run, nor a lone watcher unwatched before it', () => {
    const controller = new AbortController();
    const seen: string[] = [];
    const lone = () => {
      seen.push('lone');
      watchAbort(controller.signal, () => seen.push('late'));
    };
    watchAbort(controller.signal, lone);
    controller.abort();
    expect(seen).toEqual(['lone']);
    const other = new AbortController();
    const gone = () => seen.push('gone');
    watchAbort(other.signal, gone);
    unwatchAbort(other.signal, gone);
    other.abort();
    expect(seen).toEqual(['lone']);
  });
});
