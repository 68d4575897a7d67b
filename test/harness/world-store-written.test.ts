/**
 * The case's memory store answers a write it did at once with `WRITTEN`, as a
 * deploy's `MemoryEventStore` does. The loop takes another path then (it goes on
 * without waiting a turn: runner.ts `#toolUse`'s synchronous branch), and the
 * gate must run that path too: while every write of the world was a promise of
 * its own, a budget check dropped from that branch passed `loopgate run` and
 * `loopgate fuzz` (0 failed; with this, 6 cases and invariant 04 fail).
 * A write the scenario faults, delays or tears, and a SQLite file's write, stay
 * promises, counted as before.
 */
import { describe, expect, it } from 'vitest';
import { WRITTEN } from '../../src/kernel/index.ts';
import { VirtualClock } from '../../src/harness/virtual-clock.ts';
import { FaultLog } from '../../src/harness/world/fault-log.ts';
import { WorldStore } from '../../src/harness/world/faulty-store.ts';

const record = (seq: number) => ({ seq, type: 'turn.opened', v: 1, at: seq, payload: { turn: seq }, ignorable: false });

function world(spec: ConstructorParameters<typeof WorldStore>[0]) {
  const clock = new VirtualClock();
  return new WorldStore(spec, new FaultLog(clock), { sleep: (ms) => clock.sleep(ms) });
}

describe("the case's memory store", () => {
  it('answers a write done at once with WRITTEN, and stores it', async () => {
    const w = world(undefined);
    const store = w.connect();
    expect(store.append('c', [record(0)])).toBe(WRITTEN);
    expect(store.append('c', [record(1), record(2)])).toBe(WRITTEN);
    expect((await store.read('c')).map((r) => r.seq)).toEqual([0, 1, 2]);
    expect(w.writes()).toMatchObject({ attempts: 2, failed: [] });
  });

  it('answers a faulted write with a rejection, counting it as before', async () => {
    const w = world({ failAppends: [2] });
    const store = w.connect();
    expect(store.append('c', [record(0)])).toBe(WRITTEN);
    const second = store.append('c', [record(1)]);
    expect(second).not.toBe(WRITTEN);
    await expect(second).rejects.toThrow('injected store failure on append 2');
    expect(store.append('c', [record(1)])).toBe(WRITTEN);
    expect(w.writes()).toMatchObject({ attempts: 3, failed: [2] });
  });

  it('answers a write refused by the store itself with a rejection, listed behind the injected failure', async () => {
    const w = world({ failAppends: [1] });
    const store = w.connect();
    await expect(store.append('c', [record(0)])).rejects.toThrow('injected');
    const behind = store.append('c', [record(1)]); // a gap: seq 1 with nothing stored before it
    expect(behind).not.toBe(WRITTEN);
    await expect(behind).rejects.toThrow();
    expect(w.writes().refusedBehind).toEqual([2]);
  });

  it('keeps a slow write a promise, and a dead process writes nothing', async () => {
    const w = world({ failAppends: [], slowAppends: [{ append: 1, ms: 5 }] });
    const store = w.connect();
    expect(store.append('c', [record(0)])).not.toBe(WRITTEN);
    store.sever();
    await expect(store.append('c', [record(1)])).rejects.toThrow('the process is gone');
  });
});
