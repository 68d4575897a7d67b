/**
 * Two hosts on one PostgreSQL database, and the conversation lock lost while a
 * turn runs (outside probe 51, HIGH-1): the server ends host A's lock session
 * (a failover, an idle_session_timeout, a DBA's pg_terminate_backend) while A's
 * CRITICAL call runs, and PostgreSQL lets go of the lock. A must stop at once —
 * the call's signal aborts, A writes nothing more of the conversation and answers
 * 503 — so host B, taking the lock, finds the turn open, closes it `interrupted`
 * with the call `unknown`, and answers on that. Before, A went on: B closed as
 * interrupted a call whose body still ran, and the two hosts ran turns of one
 * conversation side by side. (The gate's `persistence/lock-lost-mid-refund-stops-the-turn`
 * scenario shows the same on the in-memory store; this is the real lock.)
 */
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { z } from 'zod';
import { call, reply, toolUse } from '../../providers/fake/results.ts';
import { defaultHostConfig } from '../../src/host/config.ts';
import { AgentHost } from '../../src/host/host.ts';
import { decodeRecords } from '../../src/kernel/log/decode.ts';
import { isKnown, type LogEvent } from '../../src/kernel/log/envelope.ts';
import type { ModelClient, ModelRequest, ModelResult } from '../../src/kernel/model/client.ts';
import { defineTool } from '../../src/kernel/tools/define-tool.ts';
import { advisoryKey, pgLocksIds } from '../../src/stores/postgres-store-lock.ts';
import { PostgresEventStore } from '../../src/stores/postgres-store.ts';
import { describeWithPostgres, dropSchemas, freshSchemaName } from '../../src/stores/postgres-store-testing.ts';

/** The first step of a turn asked to charge calls `charge`; every other step replies. */
const model: ModelClient = {
  name: 'charges',
  call(request: ModelRequest): Promise<ModelResult> {
    const last = request.messages[request.messages.length - 1]!;
    const asked = last.role === 'user' && last.content.some((b) => b.type === 'text' && b.text.startsWith('Charge'));
    return Promise.resolve(asked ? toolUse([call('ch1', 'charge', { cents: 500 })]) : reply('Answered.'));
  },
};

describeWithPostgres('the conversation lock lost mid-turn, two hosts on one PostgreSQL', (url) => {
  const schema = freshSchemaName('lock_lost');
  afterAll(() => dropSchemas(url, [schema]));

  it('stops the turn of the host that lost it (its CRITICAL call told to stop, nothing more written) before the other takes over', async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const bodies: { aborted: boolean }[] = [];
    const charge = defineTool({
      name: 'charge',
      description: 'charges the card',
      input: z.object({ cents: z.number() }),
      sideEffect: 'CRITICAL',
      timeoutMs: 60_000,
      run: (_args, { signal }) => {
        const body = { aborted: false };
        bodies.push(body);
        started();
        // The gateway answers only when told to stop (or after a minute).
        return new Promise((resolve, reject) => {
          const timer = setTimeout(() => resolve({ charged: true }), 60_000);
          signal.addEventListener('abort', () => {
            body.aborted = true;
            clearTimeout(timer);
            reject(Object.assign(new Error('This operation was aborted'), { name: 'AbortError' }));
          });
        });
      },
    });
    const open = (app: string) => PostgresEventStore.open(url, { schema, applicationName: app });
    const [storeA, storeB] = await Promise.all([open('lg_lost_a'), open('lg_lost_b')]);
    const hostA = new AgentHost({ config: defaultHostConfig(), store: storeA, model, tools: [charge] });
    const hostB = new AgentHost({ config: defaultHostConfig(), store: storeB, model, tools: [charge] });
    try {
      const answerA = hostA.handle('c', 'Charge my card.');
      await running;
      // The server ends A's lock session: PostgreSQL lets go of the lock with it.
      const { classid, objid } = pgLocksIds(advisoryKey(schema, 'turn', 'c'));
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1::oid AND objid = $2::oid`, [
        classid,
        objid,
      ]);
      await admin.end();

      const a = await answerA;
      expect(a.status, JSON.stringify(a)).toBe(503);
      // The turn's detail says why: the lock, not a crash.
      expect(JSON.stringify(a.turns)).toMatch(/let go of the conversation lock/);
      expect(bodies).toEqual([{ aborted: true }]);

      const b = await hostB.handle('c', 'Did it go through?');
      expect(b.status, b.error).toBe(200);
      expect(b.reply).toBe('Answered.');
      const events = decodeRecords(await storeB.read('c'), 'c').filter((e): e is LogEvent => isKnown(e));
      const closes = events.flatMap((e) => (e.type === 'turn.closed' ? [e.payload.outcome.kind] : []));
      expect(closes).toEqual(['interrupted', 'replied']);
      const result = events.find((e) => e.type === 'tool.result');
      expect(result?.type === 'tool.result' && result.payload.status).toBe('unknown');
      // One body ever ran; B never ran it again.
      expect(bodies).toHaveLength(1);
    } finally {
      await Promise.allSettled([hostA.close(), hostB.close()]);
    }
  });
});
