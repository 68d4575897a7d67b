import { afterEach, describe, expect, it } from 'vitest';
import { STORE_CONTRACT } from '../stores/contract/cases.ts';
import { describeWithPostgres } from '../stores/postgres-store-testing.ts';
import { POSTGRES_URL_ENV, storeCases } from './store-cases.ts';

const NAMES = [POSTGRES_URL_ENV, 'LOOPGATE_TEST_POSTGRES_URL'] as const;
const saved = Object.fromEntries(NAMES.map((name) => [name, process.env[name]]));
afterEach(() => {
  for (const name of NAMES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

const postgresCase = () => storeCases().find((c) => c.id === 'contract:store/postgres/store-contract')!;

describe('contract:store/postgres/store-contract', () => {
  it('is skipped, naming the variable to set, when no server is named', async () => {
    for (const name of NAMES) delete process.env[name];
    const outcome = await postgresCase().run({ seed: 1 });
    expect(outcome.status).toBe('skipped');
    expect(outcome.skipReason).toContain(POSTGRES_URL_ENV);
  });
});

describeWithPostgres('contract:store/postgres/store-contract on a server', (url) => {
  it('runs every contract case that needs no snapshots on PostgreSQL, and the lock across processes, each passing', async () => {
    process.env[POSTGRES_URL_ENV] = url;
    const outcome = await postgresCase().run({ seed: 1 });
    const failed = outcome.checks.filter((c) => !c.passed).map((c) => `${c.name}: ${c.message}`);
    expect(failed).toEqual([]);
    expect(outcome.status).toBe('passed');
    // The contract cases, the schema and lock as the server sees them, then the conversation lock across processes (postgres-lock-cases.ts).
    expect(outcome.checks).toHaveLength(STORE_CONTRACT.filter((c) => c.needs === undefined).length + 8);
    expect(outcome.checks.slice(-6).map((c) => c.name)).toEqual([
      'while another process holds a conversation lock, this process waits for it',
      'once the other process releases it — still running, its connections open — this process is granted it',
      'a lock held uncontended (on the connection shared by such locks): when PostgreSQL ends the session holding it, its holder is told the lock is lost',
      'a lock granted after a wait (on a connection of its own): when PostgreSQL ends the session holding it, its holder is told the lock is lost',
      'released while another process waits for it in PostgreSQL and a turn of this process queues for it, the lock goes to the other process first',
      'a lock whose caller gave up while it was being taken is left free: another process is granted it',
    ]);
  });
});
