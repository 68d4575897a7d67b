/**
 * When the case is over, the world reads back what a SQLite store holds, every
 * conversation it lists. A store that lists a conversation twice breaks its
 * contract (listConversations names each once): the case fails saying so, not
 * with a seq conflict of the harness's own copy (outside probe 67,
 * sqlite-list-dup: `fuzz` died with exit 2 on "conversation "case": append at
 * seq 0, but the store holds 9 events", writing no results).
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/harness/virtual-clock.ts';
import { FaultLog } from '../../src/harness/world/fault-log.ts';
import { WorldStore } from '../../src/harness/world/faulty-store.ts';

const record = (seq: number) => ({ seq, type: 'turn.opened', v: 1, at: seq, payload: { turn: seq }, ignorable: false });

describe('the world read back when the case is over', () => {
  it('copies every conversation a SQLite store lists', async () => {
    const w = new WorldStore(undefined, new FaultLog(new VirtualClock()), { sqlite: true });
    await w.store.append('a', [record(0), record(1)]);
    await w.store.append('b', [record(0)]);
    const copy = await w.finish();
    expect((await copy.read('a')).map((r) => r.seq)).toEqual([0, 1]);
    expect((await copy.read('b')).map((r) => r.seq)).toEqual([0]);
  });

  it('refuses a store that lists a conversation twice, naming it', async () => {
    const w = new WorldStore(undefined, new FaultLog(new VirtualClock()), { sqlite: true });
    await w.store.append('a', [record(0), record(1)]);
    const listed = w.store.listConversations.bind(w.store);
    Object.assign(w.store, { listConversations: async () => [...(await listed()), ...(await listed())] });
    await expect(w.finish()).rejects.toThrow('the store listed conversation "a" 2 times: listConversations must name each conversation once');
  });
});
