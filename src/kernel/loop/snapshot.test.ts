/**
 * A log resumed from a snapshot taken at any seq of a real conversation holds the
 * same derived state as the whole log folded from seq 0, and goes on the same way;
 * a snapshot that does not fit is refused (SnapshotMismatch), never used.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call, overflow, reply, toolUse, transportError } from '../../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../../providers/fake/scripted.ts';
import { SupportBackend } from '../../../scenarios/example-agent/backend.ts';
import { supportTools } from '../../../scenarios/example-agent/tools.ts';
import { createWorld } from '../../../test/support/world.ts';
import { decodeRecords } from '../log/decode.ts';
import type { AnyEvent, EventRecord } from '../log/envelope.ts';
import { EventLog, type LogPrefix } from '../log/event-log.ts';
import { project } from '../projection/projection.ts';
import { loopDeps } from './deps.ts';
import { AgentLoop } from './runner.ts';
import { resumeFromSnapshot, SNAPSHOT_FORMAT, snapshotOf, SnapshotMismatch, type LoopSnapshot } from './snapshot.ts';
import type { Compactor } from './types.ts';

const compactor: Compactor = { compact: async ({ candidate }) => (candidate ? { ...candidate, summary: 'Two orders were looked up.' } : null) };

/** A conversation with tool calls, a retry-after window, a failed turn, a compaction, an open turn and a pending inject. */
async function conversation(): Promise<readonly AnyEvent[]> {
  const world = createWorld({
    tools: supportTools(new SupportBackend()),
    compactor,
    config: { maxTokensPerSession: 1_000_000 },
    script: [
      toolUse([call('a', 'lookup_order', { order_id: 'ORD-1001' }), call('b', 'lookup_order', { order_id: 'ORD-1002' })]),
      reply('Delivered and shipped.'),
      transportError('rate_limited', { retryAfterMs: 2_000 }),
      reply('Still shipped.'),
      { type: 'refusal', text: '', usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'refusal' },
      overflow('request'),
      reply('Your refund is being processed.'),
    ],
  });
  await world.turn('Where are ORD-1001 and ORD-1002?');
  await world.turn('And now?');
  await world.turn('Do something bad.');
  await world.turn('Refund ORD-1001 please');
  world.send('by the way', 'inject');
  // An open turn: opened and claimed, not closed (as a crash would leave it).
  world.log.append('turn.opened', { turn: 4, trigger: 'x' });
  return world.log.events.slice();
}

const clock = { now: () => 1_000_000, sleep: () => Promise.resolve() };
const model = () => new ScriptedModelClient([reply('Resumed.')], { clock });
const loopOver = (log: EventLog) =>
  new AgentLoop(loopDeps({ log, model: model(), agent: { tools: supportTools(new SupportBackend()), compactor }, clock, newId: () => 'n' }));
const prefixOf = (events: readonly AnyEvent[], upTo: number, reads?: number[]): LogPrefix => ({
  upTo,
  load: (from, to) => {
    reads?.push(to - from);
    return events.slice(from, Math.min(to, upTo));
  },
});

/** The snapshot a host would store at `k` (JSON round trip included). */
function snapshotAt(events: readonly AnyEvent[], k: number): LoopSnapshot {
  const log = new EventLog(clock, events.slice(0, k));
  return JSON.parse(JSON.stringify(snapshotOf(loopOver(log), log))) as LoopSnapshot;
}

const derived = (log: EventLog) => JSON.parse(JSON.stringify({ positions: log.positions.state(), ...loopOver(log).derivedState() })) as unknown;

describe('snapshots of derived state', () => {
  it('resumed at any seq, a log holds the same derived state as the whole log folded from 0', async () => {
    const events = await conversation();
    const whole = derived(new EventLog(clock, events));
    for (let k = 1; k <= events.length; k++) {
      const resumed = resumeFromSnapshot(clock, snapshotAt(events, k), prefixOf(events, k), events.slice(k));
      expect(derived(resumed), `resumed at ${k}`).toEqual(whole);
    }
  });

  it('lists only the calls its messages do not place (a call a failed turn took back), and restores them all', async () => {
    const world = createWorld({
      tools: supportTools(new SupportBackend()),
      script: [
        toolUse([call('gone', 'lookup_order', { order_id: 'ORD-1001' })]),
        { type: 'refusal', text: '', usage: { inputTokens: 1, outputTokens: 1 }, stopReason: 'refusal' },
        toolUse([call('kept', 'lookup_order', { order_id: 'ORD-1002' })]),
        reply('Shipped.'),
      ],
    });
    await world.turn('Where is ORD-1001?');
    await world.turn('And ORD-1002?');
    const events = world.log.events.slice();
    const whole = snapshotAt(events, events.length);
    expect(whole.projection.calls.map((c) => c[0])).toEqual(['gone']);
    expect(JSON.stringify(whole.projection.messages)).toContain('"kept"');
    const wholeState = derived(new EventLog(clock, events));
    for (let k = 1; k <= events.length; k++) {
      const resumed = resumeFromSnapshot(clock, snapshotAt(events, k), prefixOf(events, k), events.slice(k));
      expect(derived(resumed), `resumed at ${k}`).toEqual(wholeState);
    }
  });

  it('reads no more of the prefix than asked for, and all of it, in order, when the whole log is asked for', async () => {
    const world = createWorld({ script: Array.from({ length: 200 }, (_, i) => reply(`Answer ${i}.`)) });
    for (let i = 0; i < 200; i++) await world.turn(`Question ${i}?`);
    const events = world.log.events.slice();
    const k = events.length - 3;
    const reads: number[] = [];
    const resumed = resumeFromSnapshot(clock, snapshotAt(events, k), prefixOf(events, k, reads), events.slice(k));
    const loop = loopOver(resumed);
    expect(loop.projection.current()).toEqual(project(events));
    loop.send('One more', { id: 'more' });
    const [result] = await loop.drain();
    expect(result?.outcome.kind).toBe('replied');
    // The chunk holding the snapshot's last event, and the one holding the prompt the next request reuses.
    expect(reads.length).toBeLessThanOrEqual(2);
    expect(reads.reduce((a, b) => a + b, 0)).toBeLessThan(k);
    expect(resumed.events.slice(0, events.length)).toEqual(events); // asked for whole: all of the prefix, read once more in order
    expect(resumed.events.length).toBe(resumed.length);
  });

  it('goes on exactly as the whole log does', async () => {
    const events = await conversation();
    const k = events.length - 5;
    const whole = new EventLog(clock, events);
    const resumed = resumeFromSnapshot(clock, snapshotAt(events, k), prefixOf(events, k), events.slice(k));
    for (const log of [whole, resumed]) {
      // Close the open turn as recovery would, then a new turn.
      log.append('turn.closed', {
        turn: 4,
        outcome: { kind: 'interrupted' },
        steps: 0,
        usage: { inputTokens: 0, outputTokens: 0 },
        toolCalls: 0,
        recovered: true,
      });
      const loop = loopOver(log);
      loop.send('Hello again', { id: 'again' });
      const [result] = await loop.drain();
      expect(result?.outcome.kind).toBe('replied');
    }
    expect(resumed.events.map(({ at: _, ...e }) => e)).toEqual(whole.events.map(({ at: _, ...e }) => e));
  });

  it('keeps blocks a newer writer gave more fields exactly as a fold of the log does', async () => {
    const events = (await conversation()).map((e) => {
      if (e.type !== 'assistant.message') return e;
      const payload = e.payload as { content: readonly Record<string, unknown>[] };
      return { ...e, payload: { ...payload, content: payload.content.map((b) => ({ ...b, cache: { ttl: 5 } })) } } as unknown as AnyEvent;
    });
    const k = events.length - 2;
    const resumed = resumeFromSnapshot(clock, snapshotAt(events, k), prefixOf(events, k), events.slice(k));
    expect(loopOver(resumed).projection.current()).toEqual(project(events));
    expect(JSON.stringify(loopOver(resumed).projection.current())).toContain('"ttl":5');
  });

  it('refuses a snapshot that does not fit: another format, another catalogue, another log, malformed parts', async () => {
    const events = await conversation();
    const k = 20;
    const good = snapshotAt(events, k);
    const resume =
      (s: unknown, prefixUpTo = k, tail = events.slice(k)) =>
      () =>
        resumeFromSnapshot(clock, s as LoopSnapshot, prefixOf(events, prefixUpTo), tail);
    expect(resume(good)).not.toThrow();
    expect(resume({ ...good, format: SNAPSHOT_FORMAT + 1 })).toThrow(SnapshotMismatch);
    expect(resume({ ...good, catalogue: { ...good.catalogue, 'user.message': 99 } })).toThrow(/another event catalogue/);
    expect(resume({ ...good, last: { ...good.last!, at: good.last!.at + 1 } })).toThrow(/not the one the snapshot was taken after/);
    expect(resume(good, k + 1, events.slice(k + 1))).toThrow(SnapshotMismatch);
    expect(resume({ ...good, positions: { ...good.positions, pending: ['nobody'] } })).toThrow(/positions state is malformed/);
    expect(resume({ ...good, projection: { ...good.projection, messages: [{ role: 'robot', content: [] }] } })).toThrow(/projection state is malformed/);
    const stream = good.projection.messages;
    expect(stream.length).toBeGreaterThan(4);
    expect(resume({ ...good, projection: { ...good.projection, messages: stream.slice(0, -1) } })).toThrow(/projection state is malformed/); // a message cut short
    expect(resume({ ...good, projection: { ...good.projection, messages: [...stream, 7] } })).toThrow(/projection state is malformed/); // blocks missing
    expect(resume({ ...good, projection: { ...good.projection, messages: [...stream, 3, 0, 'id', 'name'] } })).toThrow(/projection state is malformed/);
    expect(resume({ ...good, projection: { ...good.projection, messages: [...stream, 2, 0, 'id', 'maybe', 'x'] } })).toThrow(/projection state is malformed/); // a result's status
    expect(resume({ ...good, projection: { ...good.projection, calls: [['x', -2, 0]] } })).toThrow(/projection state is malformed/);
    const columns = good.positions.calls;
    expect(resume({ ...good, positions: { ...good.positions, calls: [...columns.slice(0, 7), [...columns[7], true]] } })).toThrow(
      /positions state is malformed/,
    );
    expect(resume({ ...good, positions: { ...good.positions, calls: columns.slice(0, 7) } })).toThrow(/positions state is malformed/);
    expect(resume({ ...good, windows: { ...good.windows, until: [['x', 'soon']] } })).toThrow(/windows state is malformed/);
    expect(resume({ ...good, sessionTokens: { upTo: k, total: -1 } })).toThrow(/session tokens state is malformed/);
    expect(resume(null)).toThrow(SnapshotMismatch);
  });

  it(`pins what each fold computes to SNAPSHOT_FORMAT ${SNAPSHOT_FORMAT}: change the format when this digest changes`, () => {
    // The derived state of a fixed log (snapshot.fixture.json: the conversation above, as stored). If a
    // change to a fold (positions, projection, windows, tokens) changes this digest, snapshots written by
    // the old code would be restored as a state the new code does not compute: raise SNAPSHOT_FORMAT
    // (old snapshots are then refused and rewritten) and record the new digest here.
    const records = JSON.parse(readFileSync(join(import.meta.dirname, 'snapshot.fixture.json'), 'utf8')) as EventRecord[];
    const log = new EventLog(clock, decodeRecords(records, 'snapshot.fixture.json'));
    const digest = createHash('sha256')
      .update(JSON.stringify(snapshotOf(loopOver(log), log)))
      .digest('hex')
      .slice(0, 16);
    expect({ format: SNAPSHOT_FORMAT, digest }).toEqual({ format: 3, digest: 'dd2a3b59a10b35d7' });
  });
});
