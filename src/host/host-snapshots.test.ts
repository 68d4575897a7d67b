/**
 * Snapshots through the production host on SQLite: written with the events every
 * `snapshots.every` events, a reopened conversation resumes from the latest one
 * and the tail — and a damaged, mismatched or foreign snapshot is refused and the
 * conversation read whole, answering exactly as it would have.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reply } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { SNAPSHOT_FORMAT } from '../kernel/index.ts';
import { SqliteEventStore } from '../stores/sqlite-store.ts';
import { defaultHostConfig } from './config.ts';
import { AgentHost, type HostObserver } from './host.ts';
import { decodeSnapshot, encodeSnapshot } from './snapshots.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loopgate-snapshots-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

type Seen = Parameters<NonNullable<HostObserver['snapshot']>>[1];

function host(path: string, every = 20, busyTimeoutMs = 5_000) {
  const seen: Seen[] = [];
  let ids = 0;
  const store = new SqliteEventStore(path, { busyTimeoutMs });
  const model = new ScriptedModelClient(Array.from({ length: 100 }, (_, i) => reply(`Answer ${i}.`)));
  const agent = new AgentHost({
    config: { ...defaultHostConfig(), snapshots: { every } },
    store,
    model,
    newId: () => `m${ids++}-${Math.random().toString(36).slice(2, 8)}`,
    observer: { snapshot: (_id, what) => seen.push(what) },
  });
  return { agent, store, model, seen };
}

/** A conversation of `turns` answered turns, then the host closed. */
async function conversation(path: string, turns: number): Promise<void> {
  const first = host(path);
  for (let i = 0; i < turns; i++) expect((await first.agent.handle('c1', `Question ${i}?`)).status).toBe(200);
  expect(first.seen.some((s) => 'written' in s)).toBe(true);
  await first.agent.close();
}

/** Rewrites the stored snapshot row behind the store's back. */
function tamper(path: string, change: (row: { up_to: number; digest: string; body: string }) => Partial<{ up_to: number; digest: string; body: string }>) {
  const db = new DatabaseSync(path);
  const row = db.prepare("SELECT up_to, digest, body FROM snapshots WHERE conversation = 'c1'").get() as { up_to: number; digest: string; body: string };
  const next = { ...row, ...change(row) };
  db.prepare("UPDATE snapshots SET up_to = ?, digest = ?, body = ? WHERE conversation = 'c1'").run(next.up_to, next.digest, next.body);
  db.close();
}

async function answersAfterReopen(path: string) {
  const again = host(path);
  const envelope = await again.agent.handle('c1', 'And now?');
  const events = await again.agent.events('c1');
  await again.agent.close();
  return { envelope, seen: again.seen, events };
}

describe('snapshots through the production host', () => {
  it('resumes a reopened conversation from its latest snapshot and the tail, and answers from the whole history', async () => {
    const path = join(dir, 'agent.db');
    await conversation(path, 12);
    const stored = await new SqliteEventStore(path, { readOnly: true }).readSnapshot('c1');
    expect(stored!.upTo).toBeGreaterThan(60);
    const { envelope, seen, events } = await answersAfterReopen(path);
    expect(envelope).toMatchObject({ status: 200, reply: 'Answer 0.' });
    expect(seen[0]).toEqual({ restored: stored!.upTo });
    // The request sent after the reopen holds all twelve earlier exchanges.
    const request = events.filter((e) => e.type === 'model.request').at(-1)!;
    expect(request.seq).toBeGreaterThan(stored!.upTo);
  });

  it('sends the same request after a reopen from a snapshot as after a whole read', async () => {
    const a = join(dir, 'a.db');
    const b = join(dir, 'b.db');
    await conversation(a, 9);
    await conversation(b, 9);
    tamper(b, () => ({ up_to: 0 })); // b: no usable snapshot, read whole
    const requests: unknown[] = [];
    for (const path of [a, b]) {
      const again = host(path);
      await again.agent.handle('c1', 'And now?');
      requests.push(again.model.requests.at(-1)?.messages);
      await again.agent.close();
    }
    expect(requests[0]).toEqual(requests[1]);
    expect((requests[0] as unknown[]).length).toBe(19);
  });

  for (const [what, change, reason] of [
    ['a damaged body', (r: { body: string }) => ({ body: r.body.replace('"toolExecutions":', '"toolExecutions": ') }), /does not match its digest/],
    [
      'another format',
      (r: { body: string }) => {
        const body = JSON.stringify({ ...JSON.parse(r.body), format: SNAPSHOT_FORMAT + 1 });
        return { body, digest: encodeSnapshot(JSON.parse(body)).digest };
      },
      /snapshot format/,
    ],
    [
      'a snapshot of another log',
      (r: { body: string; up_to: number }) => {
        const snapshot = JSON.parse(r.body);
        const body = JSON.stringify({ ...snapshot, last: { ...snapshot.last, at: snapshot.last.at - 1 } });
        return { body, digest: encodeSnapshot(JSON.parse(body)).digest };
      },
      /not the one the snapshot was taken after/,
    ],
    ['a snapshot past the stored events', (r: { up_to: number }) => ({ up_to: r.up_to + 1_000 }), /says upTo/],
  ] as const) {
    it(`refuses ${what}, reads the conversation whole, answers, and writes a fresh snapshot`, async () => {
      const path = join(dir, 'agent.db');
      await conversation(path, 6);
      tamper(path, change as never);
      const { envelope, seen } = await answersAfterReopen(path);
      expect(envelope).toMatchObject({ status: 200, reply: 'Answer 0.' });
      expect(seen[0]).toMatchObject({ rejected: expect.stringMatching(reason) });
      expect(seen.some((s) => 'written' in s)).toBe(true); // due at once: the log is longer than `every`
      const stored = await new SqliteEventStore(path, { readOnly: true }).readSnapshot('c1');
      expect(() => decodeSnapshot(stored!)).not.toThrow();
    });
  }

  it('encodes a snapshot as the JSON of its parts, whatever the messages hold', async () => {
    const path = join(dir, 'agent.db');
    const first = host(path, 1);
    await first.agent.handle('c1', '\u0000messages\u0000'); // the encoder's own stand-in, as a message
    await first.agent.handle('c1', '"}}]');
    const stored = (await first.store.readSnapshot('c1'))!;
    const snapshot = decodeSnapshot(stored);
    expect(JSON.parse(encodeSnapshot(snapshot).body)).toEqual(JSON.parse(JSON.stringify(snapshot)));
    expect(JSON.stringify(snapshot.projection.messages)).toContain('\\u0000messages\\u0000');
    await first.agent.close();
  });

  it('writes no snapshot with a batch the store refuses', async () => {
    const path = join(dir, 'agent.db');
    const first = host(path, 1, 0);
    await first.agent.handle('c1', 'Hello');
    const before = await first.store.readSnapshot('c1');
    const blocker = new DatabaseSync(path, { timeout: 0 });
    blocker.exec('BEGIN IMMEDIATE');
    const failed = await first.agent.handle('c1', 'Again');
    blocker.exec('ROLLBACK');
    blocker.close();
    expect(failed.status).toBe(503);
    expect(await first.store.readSnapshot('c1')).toEqual(before);
    await first.agent.close();
  });
});
