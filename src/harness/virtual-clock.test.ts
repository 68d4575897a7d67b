import { setTimeout as realWait } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { VirtualClock, VirtualClockStallError } from './virtual-clock.ts';

describe('VirtualClock', () => {
  it("holds virtual time while a body waits on real work of its own, then lets it pass (a tool's timeout)", async () => {
    const clock = new VirtualClock();
    const timeout = clock.sleep(5_000).then(() => 'timed out');
    const body = clock.runBody(() => realWait(20).then(() => `answered at ${clock.now()}`));
    expect(await clock.run(Promise.race([body, timeout]))).toBe('answered at 0');
  });

  it('holds for real work the body did not start: an answer over a connection opened before it (probe 23, F2)', async () => {
    const clock = new VirtualClock();
    const pooled = realWait(30); // a kept-alive connection's answer, its socket opened outside the body
    const timeout = clock.sleep(5_000).then(() => 'timed out');
    const body = clock.runBody(() => pooled.then(() => `answered at ${clock.now()}`));
    expect(await clock.run(Promise.race([body, timeout]))).toBe('answered at 0');
  });

  it('a body waiting on real work longer than the stall limit is no stall (probe 23, F1: fuzz stops at 250 ms)', async () => {
    const clock = new VirtualClock();
    const timeout = clock.sleep(5_000).then(() => 'timed out');
    const body = clock.runBody(() => realWait(300).then(() => `answered at ${clock.now()}`));
    expect(await clock.run(Promise.race([body, timeout]), { realWaitLimitMs: 100 })).toBe('answered at 0');
  });

  it('a body hanging on real work holds virtual time only for its grace: then its timeout fires', async () => {
    const clock = new VirtualClock();
    const controller = new AbortController();
    const timeout = clock.sleep(5_000).then(() => {
      controller.abort();
      return `timed out at ${clock.now()}`;
    });
    const body = clock.runBody(() => realWait(60_000, undefined, { signal: controller.signal }).catch(() => 'aborted'), 50);
    expect(await clock.run(Promise.race([body, timeout]))).toBe('timed out at 5000');
  });

  it("a body waiting on the virtual clock alone holds nothing: another body's real timer ended does not count", async () => {
    const clock = new VirtualClock();
    await clock.run(clock.runBody(() => realWait(5)));
    const body = clock.runBody(() => clock.sleep(1_000).then(() => clock.now()));
    expect(await clock.run(body)).toBe(1_000);
  });

  it('advances only when everything waits, firing timers in time order', async () => {
    const clock = new VirtualClock();
    const seen: string[] = [];
    const work = (async () => {
      await Promise.all([
        clock.sleep(8_000).then(() => seen.push(`8s@${clock.now()}`)),
        clock.sleep(2_000).then(() => seen.push(`2s@${clock.now()}`)),
        clock.sleep(4_000).then(() => seen.push(`4s@${clock.now()}`)),
      ]);
      return clock.now();
    })();
    expect(await clock.run(work)).toBe(8_000);
    expect(seen).toEqual(['2s@2000', '4s@4000', '8s@8000']);
  });

  it('an hour-long backoff completes (within the test timeout) at virtual time 1 h', async () => {
    const clock = new VirtualClock();
    await clock.run(clock.sleep(3_600_000));
    expect(clock.now()).toBe(3_600_000);
  });

  it('an aborted sleep resolves at once and its timer is dropped', async () => {
    const clock = new VirtualClock();
    const controller = new AbortController();
    const sleeping = clock.sleep(1_000, controller.signal);
    controller.abort();
    await sleeping;
    expect(clock.pendingTimers).toBe(0);
    expect(clock.now()).toBe(0);
  });

  it('reports work that waits on something that never comes', async () => {
    const clock = new VirtualClock();
    await expect(clock.run(new Promise(() => {}), { realWaitLimitMs: 50 })).rejects.toBeInstanceOf(VirtualClockStallError);
  });

  it('does not count a pause of the event loop held by other work as waiting (another case’s long synchronous checks)', async () => {
    const clock = new VirtualClock();
    // Real I/O that answers after ~40 ms; meanwhile other work holds the event loop for 300 ms.
    const io = new Promise<string>((resolve) => setTimeout(() => resolve('answered'), 40));
    setTimeout(() => {
      const until = Date.now() + 300;
      while (Date.now() < until) {
        // another case's synchronous invariant checks
      }
    }, 5);
    await expect(clock.run(io, { realWaitLimitMs: 200 })).resolves.toBe('answered');
  });

  it('counts each tracked piece of real I/O that settles as progress: many short writes are not a stall', async () => {
    const clock = new VirtualClock();
    // 40 writes of ~10 ms each, one after another, with no virtual timer: 400 ms in all, past the 100 ms limit.
    const writes = (async () => {
      for (let i = 0; i < 40; i++) await clock.track(new Promise((resolve) => setTimeout(resolve, 10)));
      return 'written';
    })();
    await expect(clock.run(writes, { realWaitLimitMs: 100 })).resolves.toBe('written');
    // One that never settles still stalls.
    await expect(clock.run(clock.track(new Promise(() => {})), { realWaitLimitMs: 50 })).rejects.toBeInstanceOf(VirtualClockStallError);
  });

  it('elapse: time passes during real I/O, firing the timers due on the way, in order', async () => {
    const clock = new VirtualClock();
    const seen: string[] = [];
    void clock.sleep(150).then(() => seen.push(`150@${clock.now()}`));
    void clock.sleep(50).then(() => seen.push(`50@${clock.now()}`));
    void clock.sleep(500).then(() => seen.push('500'));
    clock.elapse(100);
    clock.elapse(100);
    expect(clock.now()).toBe(200);
    await Promise.resolve();
    expect(seen).toEqual(['50@200', '150@200']);
    expect(clock.pendingTimers).toBe(1);
  });
});
