/**
 * The PostgreSQL store against a real server (LOOPGATE_TEST_POSTGRES_URL; see
 * postgres-store-testing.ts for what happens without one). Every store gets a
 * schema of its own, dropped at the end, so runs never collide.
 */
import { createServer, type Server } from 'node:net';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { StoreConflictError, StoreCorruptionError, StoreError, StoreLockAbortedError } from './event-store.ts';
import { PostgresEventStore, type PostgresEventStoreOptions } from './postgres-store.ts';
import { advisoryKey, pgLocksIds } from './postgres-store-lock.ts';
import { describeWithPostgres, dropSchemas, freshSchemaName } from './postgres-store-testing.ts';
import { describeEventStoreContract, records, sampleRecord, settle } from './store-conformance.ts';

describeWithPostgres('PostgresEventStore', (url) => {
  const schemas: string[] = [];
  const fresh = (label: string): string => {
    const schema = freshSchemaName(label);
    schemas.push(schema);
    return schema;
  };
  const open = (schema = fresh('store'), options: PostgresEventStoreOptions = {}) => PostgresEventStore.open(url, { schema, ...options });
  afterAll(() => dropSchemas(url, schemas));

  /** A plain connection for looking at (and damaging) the tables behind the store's back. */
  async function raw<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  }

  describeEventStoreContract('postgres', () => open());

  it('keeps what it stored across close and reopen, and two stores on one schema see the same events', async () => {
    const schema = fresh('reopen');
    const first = await open(schema);
    await first.append('c', records(0, 3));
    await first.append('d', [sampleRecord(0, { sources: [] })]);
    await first.close();
    const second = await open(schema);
    const third = await open(schema);
    expect(await second.read('c')).toStrictEqual(records(0, 3));
    expect(await third.read('d')).toStrictEqual([sampleRecord(0, { sources: [] })]);
    expect(await second.listConversations()).toEqual(['c', 'd']);
    await third.append('c', records(3, 1));
    expect((await second.read('c')).length).toBe(4);
    await second.close();
    await third.close();
  });

  it('stores payloads as the exact JSON text it wrote (key order, numbers, \\u0000)', async () => {
    const schema = fresh('text');
    const store = await open(schema);
    const payload = { z: 1, a: 2, m: { y: 0.1, b: [5e-324, 9_007_199_254_740_991] }, nul: 'a\u0000b' };
    await store.append('c', [sampleRecord(0, { payload })]);
    const [back] = await store.read('c');
    expect(JSON.stringify(back!.payload)).toBe(JSON.stringify(payload));
    const stored = await raw((c) => c.query(`SELECT payload FROM "${schema}".loopgate_events`));
    expect(stored.rows[0].payload).toBe(JSON.stringify(payload));
    await store.close();
  });

  it('refuses two writers racing on one conversation through separate stores: one wins, seqs stay gapless', async () => {
    const schema = fresh('race');
    const stores = await Promise.all([open(schema), open(schema), open(schema)]);
    await stores[0]!.append('c', records(0, 2));
    const results = await Promise.allSettled(stores.map((s, i) => s.append('c', records(2, i + 1))));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(StoreConflictError);
    const seqs = (await stores[1]!.read('c')).map((r) => r.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i));
    for (const s of stores) await s.close();
  });

  it('gives each batch of a group its own answer when the database refuses a row of the group', async () => {
    const schema = fresh('group');
    const store = await open(schema);
    await store.append('warm', records(0, 1));
    // As a writer that skipped the append lock would: a key violation in the middle of the group's INSERT.
    await raw((c) =>
      c.query(`
        CREATE FUNCTION "${schema}".refuse_boom() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.type = 'boom' THEN RAISE EXCEPTION 'boom collides' USING ERRCODE = 'unique_violation'; END IF; RETURN NEW; END $$;
        CREATE TRIGGER refuse_boom BEFORE INSERT ON "${schema}".loopgate_events FOR EACH ROW EXECUTE FUNCTION "${schema}".refuse_boom();`),
    );
    const boom = [sampleRecord(0), sampleRecord(1, { type: 'boom' })];
    const results = await Promise.allSettled([store.append('a', records(0, 2)), store.append('b', boom), store.append('c', records(0, 1))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(StoreConflictError);
    expect((await store.read('a')).length).toBe(2);
    expect(await store.read('b')).toEqual([]);
    expect((await store.read('c')).length).toBe(1);
    await store.close();
  });

  it('enforces gapless seqs in the database itself, for any writer', async () => {
    const schema = fresh('rules');
    const store = await open(schema);
    await store.append('c', records(0, 2));
    const insert = (seq: number) =>
      raw((c) =>
        c.query(`INSERT INTO "${schema}".loopgate_events (conversation, seq, type, v, at, ignorable, payload) VALUES ('c', $1, 'x', 1, 0, false, '{}')`, [seq]),
      );
    await expect(insert(3)).rejects.toMatchObject({ code: '23503' }); // no row 2 before it
    await expect(insert(1)).rejects.toMatchObject({ code: '23505' }); // row 1 exists
    await expect(raw((c) => c.query(`DELETE FROM "${schema}".loopgate_events WHERE conversation = 'c' AND seq = 0`))).rejects.toMatchObject({ code: '23503' });
    await expect(insert(-1)).rejects.toMatchObject({ code: '23514' });
    expect((await store.read('c')).map((r) => r.seq)).toEqual([0, 1]);
    await store.close();
  });

  it('reports a row with torn JSON as corruption naming the store, conversation and seq, and deletes nothing', async () => {
    const schema = fresh('torn');
    const store = await open(schema);
    await store.append('c', records(0, 4));
    await raw((c) => c.query(`UPDATE "${schema}".loopgate_events SET payload = $1 WHERE conversation = 'c' AND seq = 2`, ['{"turn": 2, "te']));
    const error = await store.read('c').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreCorruptionError);
    expect(error).toMatchObject({ conversationId: 'c', seq: 2 });
    expect((error as Error).message).toContain(store.describe);
    expect((error as Error).message).toMatch(/seq 2 is corrupt: payload is not valid JSON/);
    expect((await store.read('c', 3)).map((r) => r.seq)).toEqual([3]);
    // The next append does not fuse onto the torn record.
    await store.append('c', records(4, 1));
    expect(await store.read('c', 4)).toStrictEqual(records(4, 1));
    expect(await raw((c) => c.query(`SELECT count(*)::int AS n FROM "${schema}".loopgate_events`))).toMatchObject({ rows: [{ n: 5 }] });
    await store.close();
  });

  it('reports bad sources as corruption', async () => {
    const schema = fresh('sources');
    const store = await open(schema);
    await store.append('c', records(0, 2));
    await raw((c) => c.query(`UPDATE "${schema}".loopgate_events SET sources = '[5]' WHERE seq = 1`));
    await expect(store.read('c', 1)).rejects.toMatchObject({ name: 'StoreCorruptionError', seq: 1, message: expect.stringMatching(/sources/) });
    await store.close();
  });

  it('refuses conversation ids PostgreSQL text cannot hold, naming the problem', async () => {
    const store = await open();
    await expect(store.append('a\u0000b', records(0, 1))).rejects.toThrow(/NUL character/);
    await expect(store.read('\ud800x')).rejects.toThrow(/lone surrogate/);
    await store.close();
  });

  it('refuses a schema written by a newer loopgate', async () => {
    const schema = fresh('newer');
    await (await open(schema)).close();
    await raw((c) => c.query(`UPDATE "${schema}".loopgate_meta SET value = '99' WHERE key = 'schema_version'`));
    await expect(open(schema)).rejects.toThrow(/schema version 99, newer than this loopgate understands/);
  });

  // Outside probe 51, LOW-3: a table of another shape was blamed on the role's rights, and one with loopgate's columns
  // but none of its keys (the gapless rule's primary and foreign key) was taken and written to.
  it("refuses a loopgate_events table that is not loopgate's, naming what it lacks", async () => {
    const other = fresh('other');
    await raw((c) => c.query(`CREATE SCHEMA "${other}"; CREATE TABLE "${other}".loopgate_events (id int PRIMARY KEY, note text)`));
    await expect(open(other)).rejects.toThrow(
      /schema "[^"]+" holds a table loopgate_events that is not loopgate's \(it has no columns conversation, seq, prev_seq, type, v, at, ignorable, sources, payload\): drop it/,
    );
    const keyless = fresh('keyless');
    await raw((c) =>
      c.query(
        `CREATE SCHEMA "${keyless}"; CREATE TABLE "${keyless}".loopgate_events (conversation text NOT NULL, seq bigint NOT NULL, prev_seq bigint, type text NOT NULL, v integer NOT NULL, at double precision NOT NULL, ignorable boolean NOT NULL, sources text NULL, payload text NOT NULL)`,
      ),
    );
    await expect(open(keyless)).rejects.toThrow(
      /holds a table loopgate_events that is not loopgate's \(no primary key on \(conversation, seq\); no foreign key from \(conversation, prev_seq\)\)/,
    );
  });

  it('sets up the same schema from many stores at once', async () => {
    const schema = fresh('setup');
    const stores = await Promise.all(Array.from({ length: 5 }, () => open(schema)));
    await stores[0]!.append('c', records(0, 1));
    expect(await stores[4]!.read('c')).toHaveLength(1);
    for (const s of stores) await s.close();
  });

  it('refuses a bad schema name and bad options before connecting', () => {
    expect(() => new PostgresEventStore(url, { schema: 'Robert"); DROP' })).toThrow(/option schema/);
    expect(() => new PostgresEventStore(url, { connectTimeoutMs: 0 })).toThrow(/connectTimeoutMs must be a positive integer/);
  });

  describe('the conversation lock across stores (as across host processes)', () => {
    it('excludes a second store until the first releases, then grants it', async () => {
      const schema = fresh('lock');
      const [a, b] = await Promise.all([open(schema), open(schema)]);
      const releaseA = await a.lock('c');
      let granted = false;
      const waiting = b.lock('c').then((release) => {
        granted = true;
        return release;
      });
      await waitUntil(() => waitersFor(url, schema, 'c').then((n) => n === 1));
      expect(granted).toBe(false);
      await releaseA();
      const releaseB = await waiting;
      expect(granted).toBe(true);
      await releaseB();
      // Free again for anyone.
      await (await a.lock('c'))();
      await a.close();
      await b.close();
    });

    it('never lets critical sections of several stores overlap', async () => {
      const schema = fresh('mutex');
      const stores = await Promise.all([open(schema), open(schema), open(schema)]);
      let inside = 0;
      let maxInside = 0;
      let entered = 0;
      const worker = async (store: PostgresEventStore) => {
        const release = await store.lock('c');
        try {
          inside++;
          entered++;
          maxInside = Math.max(maxInside, inside);
          // Real I/O while holding the lock, so the others get every chance to barge in.
          await store.read('c');
          await settle();
          inside--;
        } finally {
          await release();
        }
      };
      await Promise.all(stores.flatMap((s) => Array.from({ length: 6 }, () => worker(s))));
      expect(entered).toBe(18);
      expect(maxInside).toBe(1);
      for (const s of stores) await s.close();
    });

    it('gives a waiting process its turn instead of handing the lock over locally forever', async () => {
      const schema = fresh('fair');
      const [a, b] = await Promise.all([open(schema), open(schema)]);
      const order: string[] = [];
      const releaseA1 = await a.lock('c');
      const a2 = a.lock('c').then((r) => (order.push('a2'), r));
      const b1 = b.lock('c').then((r) => (order.push('b1'), r));
      await waitUntil(() => waitersFor(url, schema, 'c').then((n) => n === 1)); // b waits in PostgreSQL
      await releaseA1(); // a2 waits locally, b1 in PostgreSQL: b1 goes first
      await (await b1)();
      await (await a2)();
      expect(order).toEqual(['b1', 'a2']);
      await a.close();
      await b.close();
    });

    it('cancels a waiting lock statement when the signal aborts, leaving nothing behind', async () => {
      const schema = fresh('abort');
      const [a, b] = await Promise.all([open(schema), open(schema)]);
      const releaseA = await a.lock('c');
      const controller = new AbortController();
      const waiting = b.lock('c', controller.signal).catch((e: unknown) => e);
      await waitUntil(() => waitersFor(url, schema, 'c').then((n) => n === 1));
      controller.abort();
      expect(await waiting).toBeInstanceOf(StoreLockAbortedError);
      expect(await waitersFor(url, schema, 'c')).toBe(0);
      await releaseA();
      // b can still lock, and nobody holds a stale lock.
      await (await b.lock('c'))();
      await (await a.lock('c'))();
      await a.close();
      await b.close();
    });

    it('frees the lock for other stores when the holder closes, and fails its waiters', async () => {
      const schema = fresh('closeheld');
      const [a, b] = await Promise.all([open(schema), open(schema)]);
      const releaseA = await a.lock('c');
      const localWaiter = a.lock('c').catch((e: unknown) => e);
      const remote = b.lock('c');
      await waitUntil(() => waitersFor(url, schema, 'c').then((n) => n === 1));
      await a.close();
      expect(await localWaiter).toBeInstanceOf(StoreError);
      await (await remote)();
      await releaseA(); // after close: harmless
      await b.close();
    });

    it('frees the lock when the holding connection dies (as when a host is killed)', async () => {
      const schema = fresh('killed');
      const [a, b] = await Promise.all([open(schema), open(schema)]);
      await a.lock('c');
      const remote = b.lock('c');
      await waitUntil(() => waitersFor(url, schema, 'c').then((n) => n === 1));
      // Kill a's lock session from the server side (what PostgreSQL does when a's process dies).
      const { classid, objid } = pgLocksIds(advisoryKey(schema, 'turn', 'c'));
      await raw((c) =>
        c.query(`SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1::oid AND objid = $2::oid`, [
          classid,
          objid,
        ]),
      );
      await (await remote)();
      // a reconnects for its next lock.
      await (await a.lock('d'))();
      await a.close();
      await b.close();
    });

    it('tells the holder at once when the server lets go of its lock, on the shared connection and on one of its own (outside probe 51, HIGH-1)', async () => {
      const schema = fresh('lost');
      const [a, b] = await Promise.all([open(schema), open(schema)]);
      const terminate = (id: string) => {
        const { classid, objid } = pgLocksIds(advisoryKey(schema, 'turn', id));
        return raw((c) =>
          c.query(`SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1::oid AND objid = $2::oid`, [
            classid,
            objid,
          ]),
        );
      };
      // Uncontended: held on a's shared connection.
      const shared = await a.lock('c');
      expect(shared.lost?.aborted).toBe(false);
      await terminate('c');
      await waitUntil(async () => shared.lost?.aborted === true);
      await shared();
      // Contended: b waits for (and then holds) the lock on a connection of its own.
      const first = await a.lock('d');
      const waiting = b.lock('d');
      await waitUntil(() => waitersFor(url, schema, 'd').then((n) => n === 1));
      await first();
      const dedicated = await waiting;
      expect(dedicated.lost?.aborted).toBe(false);
      await terminate('d');
      await waitUntil(async () => dedicated.lost?.aborted === true);
      await dedicated();
      // A lock released as usual is never said to be lost; the store goes on.
      const fine = await b.lock('e');
      await fine();
      expect(fine.lost?.aborted).toBe(false);
      await a.close();
      await b.close();
    });

    it("grants the lock only once no append of the conversation is still in flight (a killed host's last COMMIT)", async () => {
      const schema = fresh('barrier');
      const store = await open(schema);
      const appendKey = advisoryKey(schema, 'append', 'c').toString();
      const inFlight = new pg.Client({ connectionString: url });
      await inFlight.connect();
      // What a host's append transaction holds until it ends.
      await inFlight.query('BEGIN');
      await inFlight.query('SELECT pg_advisory_xact_lock($1::bigint)', [appendKey]);
      let granted = false;
      const locking = store.lock('c').then((release) => {
        granted = true;
        return release;
      });
      await waitUntil(() => waitersFor(url, schema, 'c', 'append').then((n) => n === 1));
      expect(granted).toBe(false);
      await inFlight.query('COMMIT');
      await (await locking)();
      expect(granted).toBe(true);
      await inFlight.end();
      await store.close();
    });

    it('holds uncontended locks on one shared connection, and a contended one on a connection of its own', async () => {
      const schema = fresh('share');
      const app = `lg_share_${process.pid}`;
      const [a, b] = await Promise.all([open(schema, { applicationName: app }), open(schema)]);
      const lockConnections = () =>
        raw((c) => c.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1`, [`${app}-lock`])).then(
          (r) => r.rows[0]!.n,
        );
      const releases = await Promise.all(Array.from({ length: 20 }, (_, i) => a.lock(`quiet-${i}`)));
      expect(await lockConnections()).toBe(1);
      const releaseB = await b.lock('busy');
      const waiting = a.lock('busy');
      await waitUntil(() => waitersFor(url, schema, 'busy').then((n) => n === 1));
      expect(await lockConnections()).toBe(2);
      await releaseB();
      await (await waiting)();
      for (const release of releases) await release();
      await a.close();
      await b.close();
    });
  });

  it('says the pool is busy (not that the server is unreachable) when no pooled connection frees up in time', async () => {
    const schema = fresh('busy');
    const store = await open(schema, { poolSize: 1, connectTimeoutMs: 300 });
    const blocker = new pg.Client({ connectionString: url });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('SELECT pg_advisory_xact_lock($1::bigint)', [advisoryKey(schema, 'append', 'c').toString()]);
    const append = store.append('c', records(0, 1)); // takes the only connection, then waits for the blocker
    await waitUntil(() => waitersFor(url, schema, 'c', 'append').then((n) => n === 1));
    await expect(store.read('c')).rejects.toThrow(
      `${store.describe}: conversation "c": read failed: no free connection within 300 ms: all 1 are busy (raise poolSize?)`,
    );
    await blocker.query('COMMIT');
    await append;
    expect(await store.read('c')).toHaveLength(1);
    await blocker.end();
    await store.close();
  });

  describe('connection failures', () => {
    let silent: Server | undefined;
    afterAll(() => silent?.close());

    it('names the target with the password masked when the server refuses the connection', async () => {
      const port = await closedPort();
      const error = await PostgresEventStore.open(`postgres://loopgate:s3cret-pw@127.0.0.1:${port}/loopgate`).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreError);
      expect((error as Error).message).toBe(
        `postgres://loopgate:****@127.0.0.1:${port}/loopgate: connection refused (is a PostgreSQL server running and listening there?)`,
      );
    });

    it('gives up after the connect timeout when the server never answers', async () => {
      silent = createServer(() => undefined); // accepts, then says nothing
      await new Promise<void>((resolve) => silent!.listen(0, '127.0.0.1', resolve));
      const port = (silent.address() as { port: number }).port;
      const error = await PostgresEventStore.open(`postgres://loopgate:s3cret-pw@127.0.0.1:${port}/loopgate`, { connectTimeoutMs: 300 }).catch(
        (e: unknown) => e,
      );
      expect((error as Error).message).toBe(`postgres://loopgate:****@127.0.0.1:${port}/loopgate: no answer within 300 ms (connect timeout)`);
    });

    it('reports a wrong password and a missing database without showing the password', async () => {
      const target = new URL(url);
      target.password = 'definitely-wrong-pw';
      const wrong = await PostgresEventStore.open(target.toString()).catch((e: unknown) => e);
      expect((wrong as Error).message).toMatch(/:\*\*\*\*@.*: authentication failed: password authentication failed/);
      expect((wrong as Error).message).not.toContain('definitely-wrong-pw');
      const missing = new URL(url);
      missing.pathname = '/no_such_database_here';
      const none = await PostgresEventStore.open(missing.toString()).catch((e: unknown) => e);
      expect((none as Error).message).toMatch(/no_such_database_here: database "no_such_database_here" does not exist$/);
    });

    it('refuses what is not a PostgreSQL URL, masking a password even then', () => {
      expect(() => new PostgresEventStore('mysql://u:pw@h/db')).toThrow('mysql://u:****@h/db: not a PostgreSQL URL');
      expect(() => new PostgresEventStore('postgres://u:pw@h:5432')).toThrow(/names no database/);
      expect(() => new PostgresEventStore('postgres://u:pw@h:notaport/db')).toThrow('postgres://u:****@h:notaport/db: not a valid URL');
    });
  });
});

/** How many sessions wait for one of the conversation's advisory locks in PostgreSQL. */
async function waitersFor(url: string, schema: string, conversationId: string, lock: 'turn' | 'append' = 'turn'): Promise<number> {
  const { classid, objid } = pgLocksIds(advisoryKey(schema, lock, conversationId));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND classid = $1::oid AND objid = $2::oid AND objsubid = 1`,
      [classid, objid],
    );
    return result.rows[0]!.n;
  } finally {
    await client.end();
  }
}

/** Polls a condition about another process's state (never a timed assertion: it only waits). */
async function waitUntil(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the condition never held');
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
