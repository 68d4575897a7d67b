/**
 * The SQLite writer claim within one process (two store objects on one file stand
 * in for two processes; test/many-hosts/sqlite-two-processes.test.ts does it with
 * real ones).
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { StoreInUseError } from './event-store.ts';
import { SqliteEventStore } from './sqlite-store.ts';
import { records } from './store-conformance.ts';

const dir = mkdtempSync(join(tmpdir(), 'loopgate-claim-'));
let files = 0;
const freshPath = () => join(dir, `store-${files++}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function setOwner(path: string, owner: { pid: number; host: string; heartbeatAt: number; claimedAt?: number }): void {
  const raw = new DatabaseSync(path);
  raw
    .prepare('UPDATE writer_claim SET token = ?, pid = ?, host = ?, heartbeat_at = ?, claimed_at = ? WHERE id = 1')
    .run('someone-else', owner.pid, owner.host, owner.heartbeatAt, owner.claimedAt ?? owner.heartbeatAt);
  raw.close();
}

describe('SqliteEventStore.claimWriter', () => {
  it('a second claimant on the same file refuses, naming the owner; claiming again is harmless; close lets go', async () => {
    const path = freshPath();
    const first = new SqliteEventStore(path);
    await first.claimWriter();
    await first.claimWriter();
    const second = new SqliteEventStore(path);
    const refused = await second.claimWriter().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StoreInUseError);
    expect((refused as Error).message).toMatch(
      new RegExp(`sqlite:.*store-\\d+\\.db is in use by another loopgate host: process ${process.pid} on ${hostname()}`),
    );
    await first.close();
    await second.claimWriter();
    await second.append('c', records(0, 2));
    await second.close();
  });

  it('waits up to waitMs for the owner to let go', async () => {
    const path = freshPath();
    const first = new SqliteEventStore(path);
    await first.claimWriter();
    const second = new SqliteEventStore(path);
    setTimeout(() => void first.close(), 150);
    const started = Date.now();
    await second.claimWriter({ waitMs: 5_000 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    await second.close();

    const third = new SqliteEventStore(path);
    await third.claimWriter();
    const fourth = new SqliteEventStore(path);
    await expect(fourth.claimWriter({ waitMs: 150 })).rejects.toThrow(/still held after waiting 150 ms/);
    await third.close();
    await fourth.close();
  });

  it('takes over a claim whose process is gone (same machine) at once, and one whose heartbeat lapsed', async () => {
    const path = freshPath();
    const owner = new SqliteEventStore(path);
    await owner.claimWriter();
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!; // a pid that has exited
    setOwner(path, { pid: dead, host: hostname(), heartbeatAt: Date.now() });
    const next = new SqliteEventStore(path);
    await next.claimWriter();

    // Another machine's claim (a pid we cannot check) is stale only once its heartbeat is older than the time to live.
    setOwner(path, { pid: 1, host: 'elsewhere.example', heartbeatAt: Date.now() });
    const waiting = new SqliteEventStore(path, { writerClaim: { ttlMs: 300 } });
    await expect(waiting.claimWriter()).rejects.toThrow(/process 1 on elsewhere\.example/);
    setOwner(path, { pid: 1, host: 'elsewhere.example', heartbeatAt: Date.now() - 1_000 });
    await waiting.claimWriter();
    for (const store of [owner, next, waiting]) await store.close();
  });

  it('takes over at once a claim an earlier process with this same pid left (a container restarted after a crash: pid 1 again)', async () => {
    const path = freshPath();
    const owner = new SqliteEventStore(path);
    await owner.claimWriter();
    // The row a process killed a moment ago left: this machine, this pid (pid 1 in a container, again pid 1 after the
    // restart), a fresh heartbeat — but claimed before this process started, so it cannot be this process's.
    const started = performance.timeOrigin;
    setOwner(path, { pid: process.pid, host: hostname(), heartbeatAt: Date.now(), claimedAt: started - 2_000 });
    const restarted = new SqliteEventStore(path);
    await restarted.claimWriter();
    await restarted.append('c', records(0, 1));

    // A claim this process made (another store object on the file, claimed after the process started) still holds.
    const other = new SqliteEventStore(path);
    await expect(other.claimWriter()).rejects.toThrow(StoreInUseError);
    for (const store of [owner, restarted, other]) await store.close();
  });

  it.runIf(process.platform === 'linux')('takes over at once a claim whose process was killed and awaits reaping (a zombie)', async () => {
    // `sleep 0` exits at once; its parent execs into `sleep 5`, which never reaps it: a zombie for 5 s, as a killed
    // host stays while the process that should reap it (a container's or sandbox's pid 1) has not got to it yet.
    const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 5'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const [line] = (await once(parent.stdout!, 'data')) as [Buffer];
      const zombie = Number(line.toString().trim());
      for (let i = 0; i < 50 && !/\) Z /.test(readFileSync(`/proc/${zombie}/stat`, 'utf8')); i++) await new Promise((r) => setTimeout(r, 20));
      expect(readFileSync(`/proc/${zombie}/stat`, 'utf8')).toMatch(/\) Z /);
      const path = freshPath();
      const owner = new SqliteEventStore(path);
      await owner.claimWriter();
      setOwner(path, { pid: zombie, host: hostname(), heartbeatAt: Date.now() });
      const next = new SqliteEventStore(path);
      await next.claimWriter();
      for (const store of [owner, next]) await store.close();
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('the owner renews its heartbeat, so a live claim never goes stale', async () => {
    const path = freshPath();
    const owner = new SqliteEventStore(path, { writerClaim: { ttlMs: 200, heartbeatMs: 40 } });
    await owner.claimWriter();
    await new Promise((r) => setTimeout(r, 500));
    const other = new SqliteEventStore(path, { writerClaim: { ttlMs: 200 } });
    await expect(other.claimWriter()).rejects.toThrow(StoreInUseError);
    await owner.close();
    await other.close();
  });

  it('fencing: once another process has taken the claim over, the old owner cannot append', async () => {
    const path = freshPath();
    const owner = new SqliteEventStore(path);
    await owner.claimWriter();
    await owner.append('c', records(0, 2));
    setOwner(path, { pid: 1, host: 'elsewhere.example', heartbeatAt: Date.now() });
    const refused = await owner.append('c', records(2, 1)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StoreInUseError);
    expect((refused as Error).message).toMatch(/no longer holds the store's writer claim \(taken over by process 1 on elsewhere\.example/);
    expect((await owner.read('c')).length).toBe(2); // nothing written
    await owner.close();
  });

  it('a store that never claims (replay, tools) reads and writes as before, and creates no claim table', async () => {
    const path = freshPath();
    const plain = new SqliteEventStore(path);
    await plain.append('c', records(0, 1));
    await plain.close();
    const raw = new DatabaseSync(path);
    expect(raw.prepare("SELECT name FROM sqlite_master WHERE name = 'writer_claim'").get()).toBeUndefined();
    raw.close();
  });
});
