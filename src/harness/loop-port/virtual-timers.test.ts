import { AsyncResource } from 'node:async_hooks';
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

  it('AbortSignal.timeout aborts with a TimeoutError at its virtual time inside the case, and is real again after', async () => {
    const real = AbortSignal.timeout;
    const clock = new VirtualClock();
    const seen: [number, string][] = [];
    const started = performance.now();
    await withVirtualTimers(clock, () =>
      clock.run(
        (async () => {
          const signal = AbortSignal.timeout(30_000);
          signal.addEventListener('abort', () => seen.push([clock.now(), (signal.reason as Error).name]));
          await new Promise<void>((resolve) => setTimeout(resolve, 45_000));
        })(),
      ),
    );
    expect(seen).toEqual([[30_000, 'TimeoutError']]);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(AbortSignal.timeout).toBe(real);
  });

  it('a timer set outside the case (a fake service the config started) is real; an unref’d one inside holds no body', async () => {
    const clock = new VirtualClock();
    // Outside the case: a service whose reply comes after a timer of its own, in its own async context
    // (a server's request handler runs in the context the server was started in, as this bound function does).
    let resolveReply: (value: string) => void = () => undefined;
    const replyLater = AsyncResource.bind(() => void setTimeout(() => resolveReply('ok'), 20));
    let got = '';
    await withVirtualTimers(clock, () =>
      clock.run(
        (async () => {
          got = await clock.runBody(async () => {
            setTimeout(() => undefined, 499).unref(); // a library's housekeeping tick, in the body's context
            const reply = new Promise<string>((resolve) => (resolveReply = resolve));
            replyLater();
            return reply;
          });
        })(),
      ),
    );
    expect(got).toBe('ok');
    expect(clock.now()).toBe(0); // no virtual time passed for the service's timer or the tick
  });
});
