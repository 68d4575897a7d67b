import { afterEach, describe, expect, it, vi } from 'vitest';
import { TimerWheel } from './timer-wheel.ts';

describe('TimerWheel: many timeouts on one Node timer', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fires each timeout once, in deadline order, and never a cancelled one', () => {
    vi.useFakeTimers();
    let now = 0;
    const wheel = new TimerWheel(() => now);
    const fired: string[] = [];
    wheel.set(50, () => fired.push('a50'));
    const b = wheel.set(20, () => fired.push('b20'));
    wheel.set(20, () => fired.push('c20'));
    wheel.set(80, () => fired.push('d80'));
    b.cancel();
    b.cancel(); // harmless twice
    expect(wheel.pending).toBe(3);
    for (const t of [20, 50, 80]) {
      now = t;
      vi.advanceTimersByTime(t - (t === 20 ? 0 : t === 50 ? 20 : 50));
    }
    expect(fired).toEqual(['c20', 'a50', 'd80']);
    expect(wheel.pending).toBe(0);
  });

  it('arms one Node timer for many timeouts, re-armed only for an earlier deadline', () => {
    vi.useFakeTimers();
    const spy = vi.spyOn(globalThis, 'setTimeout');
    let now = 0;
    const wheel = new TimerWheel(() => now);
    const timers = [];
    for (let i = 0; i < 100; i++) timers.push(wheel.set(60_000, () => undefined));
    expect(spy).toHaveBeenCalledTimes(1);
    for (const t of timers) t.cancel();
    wheel.set(1_000, () => undefined); // earlier than the armed deadline
    expect(spy).toHaveBeenCalledTimes(2);
    spy.mockRestore();
  });

  it('keeps the process alive only while a timeout is pending', () => {
    let now = 0;
    const wheel = new TimerWheel(() => now);
    const t = wheel.set(60_000, () => undefined);
    const refs = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const with1 = refs();
    t.cancel();
    expect(refs()).toBe(with1 - 1); // unref'd: not counted as keeping the loop alive
    const t2 = wheel.set(60_000, () => undefined);
    expect(refs()).toBe(with1);
    t2.cancel();
    now += 1;
  });
});
