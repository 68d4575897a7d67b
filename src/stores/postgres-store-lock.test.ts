/**
 * The lock path sends one query at a time per connection. Many conversations
 * take their uncontended locks on one shared connection; pg would queue a query
 * sent while another runs, but that is deprecated (an error in pg 9). A fake
 * connection that counts queries in flight shows none ever overlap — without a
 * PostgreSQL server.
 */
import { EventEmitter } from 'node:events';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { AdvisoryLocks, advisoryKey } from './postgres-store-lock.ts';

class CountingClient extends EventEmitter {
  inFlight = 0;
  maxInFlight = 0;
  readonly sent: string[] = [];

  async connect(): Promise<void> {}
  async end(): Promise<void> {}

  async query(text: string): Promise<{ rows: Record<string, unknown>[] }> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    this.sent.push(text.trim().split(/\s+/).slice(0, 2).join(' '));
    await new Promise((resolve) => setTimeout(resolve, 1)); // a round trip
    this.inFlight--;
    if (text.includes('pg_try_advisory_lock') || text.includes('pg_advisory_unlock')) return { rows: [{ ok: true }] };
    if (text.includes('pg_locks')) return { rows: [{ waiting: false }] };
    return { rows: [] };
  }
}

function locks(client: CountingClient): AdvisoryLocks {
  return new AdvisoryLocks({
    describe: 'postgres://fake',
    newClient: () => client as unknown as pg.Client,
    lockPool: { connect: () => Promise.reject(new Error('no contended locks in this test')), totalCount: 0, options: {} } as unknown as pg.Pool,
    keyOf: (id) => advisoryKey('test', 'conversation', id),
    appendKeyOf: (id) => advisoryKey('test', 'append', id),
    cancelBackend: async () => {},
    describeError: (error) => String(error),
  });
}

describe('the PostgreSQL lock path', () => {
  it('never runs two queries at once on the shared connection, however many conversations lock at once', async () => {
    const client = new CountingClient();
    const advisory = locks(client);
    const turn = async (id: string) => {
      const release = await advisory.lock(id);
      await new Promise((resolve) => setTimeout(resolve, 2));
      await release();
    };
    // 20 conversations at once, and 3 turns queued on one of them (the hand-over asks who waits).
    await Promise.all([...Array.from({ length: 20 }, (_, i) => turn(`c${i}`)), turn('busy'), turn('busy'), turn('busy')]);
    await advisory.close('done');
    expect(client.sent.filter((q) => q.startsWith('SELECT pg_try_advisory_lock')).length).toBeGreaterThanOrEqual(21);
    expect(client.sent.some((q) => q.startsWith('SELECT EXISTS'))).toBe(true); // the waiters check ran too
    expect(client.maxInFlight).toBe(1);
  });
});
