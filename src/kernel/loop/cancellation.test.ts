import { describe, expect, it } from 'vitest';
import { systemClock } from '../clock.ts';
import { answerAfterAbort, CancelScope, raceAbort } from './cancellation.ts';

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

describe('answerAfterAbort', () => {
  const keep = (answer: { usage?: number }) => ({ usage: answer.usage, kept: true });
  const aborted = { usage: undefined, kept: false };

  it("takes from the client's own answer when it settles at once on the abort (the usage its stream reported)", async () => {
    const controller = new AbortController();
    const call = new Promise<{ usage?: number }>((resolve) => controller.signal.addEventListener('abort', () => queueMicrotask(() => resolve({ usage: 250 }))));
    const answer = raceAbort(
      call,
      controller.signal,
      () => answerAfterAbort(call, systemClock, aborted, keep),
      () => aborted,
    );
    controller.abort();
    expect(await answer).toEqual({ usage: 250, kept: true });
  });

  it('gives the aborted value to a client that hangs, and to one that rejects, at the next timer turn', async () => {
    const hangs = new Promise<{ usage?: number }>(() => {});
    expect(await answerAfterAbort(hangs, systemClock, aborted, keep)).toBe(aborted);
    expect(await answerAfterAbort(Promise.reject(new Error('broke')), systemClock, aborted, keep)).toBe(aborted);
  });

  it('falls back to sleep(0) on a clock without setTimer', async () => {
    const clock = { now: () => 0, sleep: () => Promise.resolve() };
    expect(await answerAfterAbort(new Promise<{ usage?: number }>(() => {}), clock, aborted, keep)).toBe(aborted);
  });
});
