import { describe, expect, it } from 'vitest';
import { CancelScope, raceAbort } from './cancellation.ts';

describe('CancelScope: several sources, the first reason kept', () => {
  it('keeps the first source and reason; later cancels change nothing', () => {
    const scope = new CancelScope();
    expect(scope.cancel('user', 'pressed stop')).toBe(true);
    expect(scope.cancel('shutdown', 'deploying')).toBe(false);
    expect(scope.cancelled).toEqual({ by: 'user', reason: 'pressed stop' });
    expect(scope.signal.aborted).toBe(true);
  });

  it('merges linked signals, naming which source fired', () => {
    const parent = new AbortController();
    const shutdown = new AbortController();
    const scope = new CancelScope([
      { signal: parent.signal, by: 'parent' },
      { signal: shutdown.signal, by: 'shutdown' },
    ]);
    shutdown.abort('SIGTERM');
    parent.abort('parent done');
    expect(scope.cancelled).toEqual({ by: 'shutdown', reason: 'SIGTERM' });
  });

  it('an already-aborted link cancels at once', () => {
    const parent = new AbortController();
    parent.abort(new Error('gone'));
    expect(new CancelScope([{ signal: parent.signal, by: 'parent' }]).cancelled).toEqual({ by: 'parent', reason: 'gone' });
  });

  it('dispose detaches from linked signals', () => {
    const parent = new AbortController();
    const scope = new CancelScope([{ signal: parent.signal, by: 'parent' }]);
    scope.dispose();
    parent.abort();
    expect(scope.cancelled).toBeUndefined();
  });
});

describe('raceAbort', () => {
  it('settles with the abort value as soon as the signal aborts, and never rejects', async () => {
    const controller = new AbortController();
    const pending = raceAbort(
      new Promise<string>(() => {}),
      controller.signal,
      () => 'aborted',
      () => 'rejected',
    );
    controller.abort();
    expect(await pending).toBe('aborted');
    expect(
      await raceAbort(
        Promise.reject(new Error('x')),
        new AbortController().signal,
        () => 'aborted',
        (e) => `rejected: ${(e as Error).message}`,
      ),
    ).toBe('rejected: x');
  });
});
