import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../model/client.ts';
import { MessageList } from './message-list.ts';

const msg = (n: number): Message => Object.freeze({ role: n % 2 ? 'assistant' : 'user', content: Object.freeze([{ type: 'text', text: `m${n}` }]) }) as Message;

type Op = { push: number } | { set: [number, number] } | { pop: true } | { truncate: number };

describe('MessageList: a persistent list of messages', () => {
  it('behaves as an array under push, set, pop and truncate, and every earlier version stays as it was', () => {
    const op = fc.oneof(
      { weight: 6, arbitrary: fc.nat(1_000_000).map((n): Op => ({ push: n })) },
      { weight: 2, arbitrary: fc.tuple(fc.nat(5_000), fc.nat(1_000_000)).map((t): Op => ({ set: t })) },
      { weight: 1, arbitrary: fc.constant<Op>({ pop: true }) },
      { weight: 1, arbitrary: fc.nat(5_000).map((n): Op => ({ truncate: n })) },
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), fc.nat(3_000), fc.boolean(), (ops, prefill, bulk) => {
        let list = MessageList.EMPTY;
        let model: Message[] = [];
        for (let i = 0; i < prefill; i++) {
          const m = msg(i);
          if (!bulk) list = list.push(m);
          model.push(m);
        }
        // Prefilled one push at a time, or built at once (`from`, as a restored snapshot is): the same list either way.
        if (bulk) list = MessageList.from(model);
        const versions: [MessageList, Message[]][] = [];
        for (const o of ops) {
          if ('push' in o) {
            const m = msg(o.push);
            list = list.push(m);
            model = [...model, m];
          } else if ('set' in o) {
            if (model.length === 0) continue;
            const i = o.set[0] % model.length;
            const m = msg(o.set[1]);
            list = list.set(i, m);
            model = model.slice();
            model[i] = m;
          } else if ('pop' in o) {
            if (model.length === 0) continue;
            list = list.pop();
            model = model.slice(0, -1);
          } else {
            list = list.truncate(o.truncate % (model.length + 1));
            model = model.slice(0, o.truncate % (model.length + 1));
          }
          versions.push([list, model]);
        }
        for (const [l, m] of versions) {
          expect(l.length).toBe(m.length);
          expect(l.toArray()).toEqual(m);
          if (m.length > 0) expect(l.at(-1)).toBe(m[m.length - 1]);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('gives a frozen array, the same one each time it is asked', () => {
    let list = MessageList.EMPTY;
    for (let i = 0; i < 100; i++) list = list.push(msg(i));
    const a = list.toArray();
    expect(Object.isFrozen(a)).toBe(true);
    expect(list.toArray()).toBe(a);
    expect(a).toHaveLength(100);
    expect(MessageList.from(a).toArray()).toEqual(a);
    expect(list.at(100)).toBeUndefined();
    expect(() => list.set(100, msg(0))).toThrow(RangeError);
  });

  it('a list held in its tail hands over a frozen array that later changes leave as it was', () => {
    for (const size of [0, 1, 5, 31, 32, 33, 64, 65]) {
      let list = MessageList.EMPTY;
      for (let i = 0; i < size; i++) list = list.push(msg(i));
      const before = list.toArray();
      const copy = [...before];
      expect(Object.isFrozen(before)).toBe(true);
      // Every way to make a new list from this one: the array handed out does not move.
      const pushed = list.push(msg(1_000));
      if (size > 0) {
        list.set(size - 1, msg(2_000)).toArray();
        list.pop().toArray();
        list.truncate(size >> 1).toArray();
      }
      expect(pushed.toArray()).toEqual([...copy, msg(1_000)].map((_, i) => pushed.at(i)));
      expect(pushed.at(size)?.content).toEqual(msg(1_000).content);
      expect(before).toEqual(copy);
      expect(list.toArray()).toBe(before);
      for (let i = 0; i < size; i++) expect(before[i]).toBe(list.at(i));
    }
  });

  it('crosses the trie levels both ways (1,024 and 32,768 messages)', () => {
    let list = MessageList.EMPTY;
    for (let i = 0; i < 33_000; i++) list = list.push(msg(i));
    expect(list.at(32_767)).toBe(list.toArray()[32_767]);
    expect(list.truncate(1_056).length).toBe(1_056);
    const bulk = MessageList.from(list.toArray());
    expect(bulk.toArray()).toEqual(list.toArray());
    for (const i of [0, 31, 32, 1_023, 1_024, 1_055, 32_767, 32_768, 32_999]) expect(bulk.at(i)).toBe(list.at(i));
    expect(bulk.push(msg(1)).pop().truncate(32_768).push(msg(2)).toArray()).toEqual([...list.toArray().slice(0, 32_768), msg(2)]);
    const back = list.truncate(1_000);
    expect(back.toArray().map((m) => (m.content[0] as { text: string }).text)).toEqual(Array.from({ length: 1_000 }, (_, i) => `m${i}`));
  });
});
