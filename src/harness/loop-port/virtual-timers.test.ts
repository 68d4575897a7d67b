import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../virtual-clock.ts';
import { withVirtualTimers } from './virtual-timers.ts';

describe('the global timers on a case’s virtual clock', () => {
  it('a peer’s setTimeout waits in virtual time, clearTimeout cancels, and the real timers come back after', async () => {
    const real = globalThis.setTimeout;
    const clock = new VirtualClock();
    const fired: number[] = [];
    const started = performance.now();
    await withVirtualTimers(clock, () =>
      clock.run(
        (async () => {
          const never = setTimeout(() => fired.push(-1), 1_000);
          clearTimeout(never);
          await new Promise<void>((resolve) => setTimeout(resolve, 60_000).unref());
          fired.push(clock.now());
          const tick = setInterval(() => fired.push(clock.now()), 500);
          await new Promise<void>((resolve) => setTimeout(resolve, 1_200));
          clearInterval(tick);
        })(),
      ),
    );
    expect(fired).toEqual([60_000, 60_500, 61_000]);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(globalThis.setTimeout).toBe(real);
  });
});
