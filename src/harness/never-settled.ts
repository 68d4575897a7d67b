/**
 * A case that waits on a promise nothing will ever settle — a loop that awaits
 * a timer no clock fires, a hook that never answers — while nothing else is
 * left to run: the event loop empties and Node would end the process (exit 13,
 * no report, the case not named). The runner races each case against being
 * starved so; when the event loop empties (`process` 'beforeExit'), the CLI
 * calls `releaseStarved`, every case still waiting fails naming what happened,
 * and the run goes on to its report.
 */

export class NeverSettledError extends Error {
  constructor() {
    super(
      'the case never finished: it waits on a promise that never settles, and nothing is left to run (the loop, a tool, a hook or a client awaiting something no timer, I/O or other work will ever settle)',
    );
    this.name = 'NeverSettledError';
  }
}

const waiting = new Set<() => void>();

/** `work`, or a NeverSettledError once the process has nothing left to run while it waits. */
export function unlessStarved<T>(work: Promise<T>): Promise<T> {
  let release!: () => void;
  const starved = new Promise<never>((_, reject) => {
    release = () => reject(new NeverSettledError());
  });
  waiting.add(release);
  return Promise.race([work, starved]).finally(() => waiting.delete(release));
}

/** The event loop emptied: every case still waiting is told it never will finish. Whether there was one. */
export function releaseStarved(): boolean {
  if (waiting.size === 0) return false;
  const all = [...waiting];
  waiting.clear();
  for (const release of all) release();
  return true;
}
