import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { StoreConflictError, StoreCorruptionError, StoreError } from './event-store.ts';
import { SqliteEventStore } from './sqlite-store.ts';
import { describeEventStoreContract, describeSnapshotStoreContract, records, sampleRecord } from './store-conformance.ts';

const dir = mkdtempSync(join(tmpdir(), 'loopgate-sqlite-'));
let files = 0;
const freshPath = () => join(dir, `store-${files++}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeEventStoreContract('sqlite', () => new SqliteEventStore(freshPath()));
describeSnapshotStoreContract('sqlite', () => new SqliteEventStore(freshPath()));

describe('SqliteEventStore', () => {
  it('keeps what it stored across close and reopen', async () => {
    const path = freshPath();
    const first = new SqliteEventStore(path);
    await first.append('c', records(0, 3));
    await first.append('d', [sampleRecord(0, { sources: [] })]);
    await first.close();
    const second = new SqliteEventStore(path);
    expect(await second.read('c')).toStrictEqual(records(0, 3));
    expect(await second.read('d')).toStrictEqual([sampleRecord(0, { sources: [] })]);
    expect(await second.listConversations()).toEqual(['c', 'd']);
    await second.append('c', records(3, 1));
    expect((await second.read('c')).length).toBe(4);
    await second.close();
  });

  it('runs in WAL mode', async () => {
    const path = freshPath();
    const store = new SqliteEventStore(path);
    await store.append('c', records(0, 1));
    const probe = new DatabaseSync(path);
    expect(probe.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    probe.close();
    await store.close();
  });

  it('reports a row with torn JSON as corruption naming the store, conversation and seq, and deletes nothing', async () => {
    const path = freshPath();
    const store = new SqliteEventStore(path);
    await store.append('c', records(0, 4));
    const raw = new DatabaseSync(path);
    raw.prepare('UPDATE events SET payload = ? WHERE conversation = ? AND seq = ?').run('{"turn": 2, "te', 'c', 2);
    const error = await store.read('c').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreCorruptionError);
    expect(error).toMatchObject({ conversationId: 'c', seq: 2 });
    expect((error as Error).message).toContain(`sqlite:${path}`);
    expect((error as Error).message).toMatch(/seq 2 is corrupt: payload is not valid JSON/);
    // Reading around it still works, and the bad row is still there for a person to inspect.
    expect((await store.read('c', 3)).map((r) => r.seq)).toEqual([3]);
    expect(raw.prepare('SELECT COUNT(*) AS n FROM events').get()).toEqual({ n: 4 });
    raw.close();
    await store.close();
  });

  it('keeps a torn last record isolated: the next append does not fuse onto it', async () => {
    const path = freshPath();
    const store = new SqliteEventStore(path);
    await store.append('c', records(0, 3));
    const raw = new DatabaseSync(path);
    raw.prepare('UPDATE events SET payload = ? WHERE conversation = ? AND seq = ?').run('{"turn": 2, "n": 2, "li', 'c', 2);
    raw.close();
    await store.append('c', records(3, 1));
    await expect(store.read('c')).rejects.toMatchObject({ name: 'StoreCorruptionError', seq: 2 });
    expect(await store.read('c', 3)).toStrictEqual(records(3, 1));
    await store.close();
  });

  it('reports a missing row (a gap) as corruption at the missing seq', async () => {
    const path = freshPath();
    const store = new SqliteEventStore(path);
    await store.append('c', records(0, 4));
    const raw = new DatabaseSync(path);
    raw.prepare('DELETE FROM events WHERE conversation = ? AND seq = ?').run('c', 1);
    raw.close();
    await expect(store.read('c')).rejects.toMatchObject({ name: 'StoreCorruptionError', seq: 1 });
    await store.close();
  });

  it('reports bad sources and a non-text payload as corruption', async () => {
    const path = freshPath();
    const store = new SqliteEventStore(path);
    await store.append('c', records(0, 3));
    const raw = new DatabaseSync(path);
    raw.prepare('UPDATE events SET sources = ? WHERE seq = 1').run('[5]');
    raw.prepare('UPDATE events SET payload = ? WHERE seq = 2').run(new Uint8Array([1, 2, 3]));
    raw.close();
    await expect(store.read('c', 1)).rejects.toMatchObject({ seq: 1, message: expect.stringMatching(/sources/) });
    await expect(store.read('c', 2)).rejects.toMatchObject({ seq: 2, message: expect.stringMatching(/payload is not text/) });
    await store.close();
  });

  it('refuses a second writer on the same file with a conflict, not a gap or a duplicate', async () => {
    const path = freshPath();
    const one = new SqliteEventStore(path);
    const two = new SqliteEventStore(path);
    await one.append('c', records(0, 2));
    await expect(two.append('c', records(0, 2))).rejects.toThrow(StoreConflictError);
    await two.append('c', records(2, 1));
    await expect(one.append('c', records(2, 1))).rejects.toThrow(StoreConflictError);
    expect((await one.read('c')).map((r) => r.seq)).toEqual([0, 1, 2]);
    await one.close();
    await two.close();
  });

  it('names the path when the directory does not exist', () => {
    const path = join(dir, 'missing-dir', 'x.db');
    expect(() => new SqliteEventStore(path)).toThrow(StoreError);
    expect(() => new SqliteEventStore(path)).toThrow(`sqlite:${path}`);
  });

  it('names the path when the file is not a database', () => {
    const path = join(dir, 'not-a-db.db');
    writeFileSync(path, 'this is a text file, not a database, and it is long enough to have a header\n'.repeat(20));
    expect(() => new SqliteEventStore(path)).toThrow(
      new RegExp(`sqlite:${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: cannot use this file as an event store`),
    );
  });

  it('refuses a database written by a newer schema version', () => {
    const path = freshPath();
    const raw = new DatabaseSync(path);
    raw.exec('PRAGMA user_version = 99');
    raw.close();
    expect(() => new SqliteEventStore(path)).toThrow(/schema version is 99/);
  });

  it('surfaces a write failure instead of swallowing it', async () => {
    const path = freshPath();
    const store = new SqliteEventStore(path, { busyTimeoutMs: 0 });
    const blocker = new DatabaseSync(path);
    blocker.exec('BEGIN IMMEDIATE');
    await expect(store.append('c', records(0, 1))).rejects.toThrow(/append failed, could not start the write transaction: database is locked/);
    blocker.exec('ROLLBACK');
    blocker.close();
    await store.append('c', records(0, 1));
    expect(await store.read('c')).toHaveLength(1);
    await store.close();
  });

  it('writes batches appended together in one transaction: when it cannot start, every batch of the group fails', async () => {
    const path = freshPath();
    const store = new SqliteEventStore(path, { busyTimeoutMs: 0 });
    await store.append('a', records(0, 1));
    const blocker = new DatabaseSync(path);
    blocker.exec('BEGIN IMMEDIATE');
    const results = await Promise.allSettled([store.append('a', records(1, 2)), store.append('b', records(0, 1)), store.append('c', records(0, 3))]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const r of results) expect(String((r as PromiseRejectedResult).reason.message)).toMatch(/could not start the write transaction/);
    blocker.exec('ROLLBACK');
    blocker.close();
    expect((await store.read('a')).length).toBe(1);
    expect(await store.listConversations()).toEqual(['a']);
    await Promise.all([store.append('a', records(1, 2)), store.append('b', records(0, 1))]);
    expect((await store.read('a')).length).toBe(3);
    await store.close();
  });

  it('commits the batches appended together, of many conversations, in one transaction', async () => {
    const store = new SqliteEventStore(freshPath());
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.append(`c${i}`, records(0, 3))));
    expect(store.commits).toEqual({ groups: 1, batches: 20 });
    await Promise.all([store.append('c0', records(3, 1)), store.append('c0', records(4, 2)), store.append('c1', records(3, 1))]);
    expect(store.commits).toEqual({ groups: 2, batches: 23 });
    await store.close();
  });

  it('rolls back only the batch whose rows SQLite refuses; the rest of its group commits', async () => {
    const path = freshPath();
    const store = new SqliteEventStore(path);
    await store.append('warm', records(0, 1)); // creates the table
    const setup = new DatabaseSync(path);
    setup.exec("CREATE TRIGGER refuse_boom BEFORE INSERT ON events WHEN NEW.type = 'boom' BEGIN SELECT RAISE(ABORT, 'boom refused'); END");
    setup.close();
    const boom = [sampleRecord(0), sampleRecord(1, { type: 'boom' })];
    const results = await Promise.allSettled([store.append('a', records(0, 2)), store.append('b', boom), store.append('c', records(0, 1))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason.message)).toMatch(/boom refused.*|rolled back, nothing was stored/);
    expect((await store.read('a')).length).toBe(2);
    expect(await store.read('b')).toEqual([]); // not even its first record
    expect((await store.read('c')).length).toBe(1);
    await store.close();
  });

  it('refuses a row SQLite refuses and a batch off its seqs each alone; the rest of the group commits once', async () => {
    const path = freshPath();
    const store = new SqliteEventStore(path);
    await store.append('warm', records(0, 1));
    const setup = new DatabaseSync(path);
    setup.exec("CREATE TRIGGER refuse_boom BEFORE INSERT ON events WHEN NEW.type = 'boom' BEGIN SELECT RAISE(ABORT, 'boom refused'); END");
    setup.close();
    const before = store.commits;
    const results = await Promise.allSettled([
      store.append('a', records(0, 2)),
      store.append('b', records(0, 1)),
      store.append('a', [sampleRecord(2), sampleRecord(3, { type: 'boom' })]), // its rows are refused by SQLite
      store.append('c', records(5, 1)), // does not start at c's next seq (0)
      store.append('b', records(1, 2)),
      store.append('a', records(2, 1)), // continues a after the refused batch: seq 2 is free again
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected', 'fulfilled', 'fulfilled']);
    expect(String((results[2] as PromiseRejectedResult).reason.message)).toMatch(/boom refused/);
    expect((results[3] as PromiseRejectedResult).reason).toBeInstanceOf(StoreConflictError);
    expect((await store.read('a')).map((r) => r.seq)).toEqual([0, 1, 2]);
    expect((await store.read('a'))[2]!.type).not.toBe('boom');
    expect((await store.read('b')).map((r) => r.seq)).toEqual([0, 1, 2]);
    expect(await store.read('c')).toEqual([]);
    expect(store.commits).toEqual({ groups: before.groups + 1, batches: before.batches + 4 });
    await store.close();
  });

  it('commits what was queued when it closes', async () => {
    const path = freshPath();
    const store = new SqliteEventStore(path);
    const pending = store.append('c', records(0, 3));
    await store.close();
    await pending;
    const reopened = new SqliteEventStore(path);
    expect((await reopened.read('c')).length).toBe(3);
    await reopened.close();
  });

  it('accepts synchronous FULL and refuses an unknown level', async () => {
    const store = new SqliteEventStore(freshPath(), { synchronous: 'FULL' });
    await store.append('c', records(0, 1));
    await store.close();
    expect(() => new SqliteEventStore(freshPath(), { synchronous: 'OFF' as 'FULL' })).toThrow(/synchronous/);
  });
});
