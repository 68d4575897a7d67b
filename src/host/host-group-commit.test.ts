/**
 * The production host over SQLite's group commit: many conversations' steps share
 * transactions, each conversation writes at most one batch per step, a request is
 * answered only once its turn is stored, and when a group's transaction fails
 * every conversation in it ends its turn `failed{persistence}` — and resumes from
 * what the store holds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, reply, toolUse } from '../../providers/fake/results.ts';
import { decodeRecords } from '../kernel/log/decode.ts';
import type { EventRecord } from '../kernel/log/envelope.ts';
import type { ModelClient, ModelRequest, ModelResult } from '../kernel/model/client.ts';
import { defineTool } from '../kernel/tools/define-tool.ts';
import { SqliteEventStore } from '../stores/sqlite-store.ts';
import { defaultHostConfig } from './config.ts';
import { AgentHost } from './host.ts';
import { z } from 'zod';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loopgate-group-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Calls `step` ROUNDS times (one call per step, ids unique per conversation and turn), then replies. */
const ROUNDS = 3;
class RoundsModel implements ModelClient {
  readonly name = 'rounds';
  call(request: ModelRequest): Promise<ModelResult> {
    const results = request.messages.flatMap((m) => (m.role === 'user' ? m.content.filter((b) => b.type === 'tool_result') : []));
    const asked = request.messages.filter((m) => m.role === 'user' && m.content.some((b) => b.type === 'text')).length;
    const done = results.length - (asked - 1) * ROUNDS;
    if (done >= ROUNDS) return Promise.resolve(reply(`done after ${done}`));
    return Promise.resolve(toolUse([call(`t${asked}-c${done}`, 'step', { n: done })]));
  }
}

function counting(store: SqliteEventStore) {
  const appends = new Map<string, number>();
  const append = store.append.bind(store);
  store.append = (id: string, records: readonly EventRecord[]) => {
    appends.set(id, (appends.get(id) ?? 0) + 1);
    return append(id, records);
  };
  return appends;
}

function host(store: SqliteEventStore, run: (n: number) => Promise<{ n: number }> = async (n) => ({ n })) {
  let ids = 0;
  return new AgentHost({
    config: defaultHostConfig(),
    store,
    model: new RoundsModel(),
    tools: [
      defineTool({
        name: 'step',
        description: 'one step',
        input: z.object({ n: z.number() }),
        output: z.object({ n: z.number() }),
        sideEffect: 'NONE',
        run: (args) => run(args.n),
      }),
    ],
    newId: () => `m${ids++}`,
  });
}

describe('AgentHost on SQLite with group commit', () => {
  it('writes the steps of many conversations in shared transactions, and answers only once the turn is stored', async () => {
    const path = join(dir, 'agent.db');
    const store = new SqliteEventStore(path);
    const appends = counting(store);
    const agent = host(store);
    const ids = Array.from({ length: 16 }, (_, i) => `conv-${i}`);
    const envelopes = await Promise.all(
      ids.map(async (id) => {
        const envelope = await agent.handle(id, 'go');
        // Answered: the whole turn is in the file, read through another connection.
        const reader = new DatabaseSync(path, { readOnly: true });
        const rows = reader.prepare('SELECT type FROM events WHERE conversation = ? ORDER BY seq').all(id) as { type: string }[];
        reader.close();
        return { envelope, types: rows.map((r) => r.type) };
      }),
    );
    for (const { envelope, types } of envelopes) {
      expect(envelope).toMatchObject({ status: 200, turns: [{ outcome: 'replied', steps: ROUNDS + 1 }] });
      expect(types.at(-1)).toBe('turn.closed');
    }
    // Batches of a conversation share transactions with each other and with the other conversations':
    // fewer transactions than the steps of one turn, for all sixteen turns together.
    expect(store.commits.groups).toBeLessThanOrEqual(ROUNDS + 1);
    expect(store.commits.batches).toBe([...appends.values()].reduce((a, b) => a + b, 0));
    await agent.close();
  });

  it('fails the turn of every conversation in a group whose transaction fails, and each resumes from the store', async () => {
    const path = join(dir, 'agent.db');
    const store = new SqliteEventStore(path, { busyTimeoutMs: 0 });
    const conversations = 6;
    let running = 0;
    let blocker: DatabaseSync | undefined;
    // The last tool of the first round takes the write lock away: the group carrying the tools' results cannot start.
    const agent = host(store, async (n) => {
      if (n === 0 && ++running === conversations) {
        blocker = new DatabaseSync(path);
        blocker.exec('BEGIN IMMEDIATE');
      }
      return { n };
    });
    const ids = Array.from({ length: conversations }, (_, i) => `conv-${i}`);
    const first = await Promise.all(ids.map((id) => agent.handle(id, 'go')));
    blocker?.exec('ROLLBACK');
    blocker?.close();
    expect(blocker).toBeDefined();
    for (const envelope of first) {
      expect(envelope.status).toBe(503);
      expect(envelope.turns[0]).toMatchObject({ outcome: 'failed{persistence}' });
      expect(envelope.turns[0]?.detail).toMatch(/could not start the write transaction: database is locked/);
    }
    // Each conversation reopens from the store: the turn left open there closes interrupted, and the next one answers.
    const second = await Promise.all(ids.map((id) => agent.handle(id, 'again')));
    for (const envelope of second) expect(envelope).toMatchObject({ status: 200, turns: [{ outcome: 'replied' }] });
    for (const id of ids) {
      const events = decodeRecords(await store.read(id), id);
      const outcomes = events.filter((e) => e.type === 'turn.closed').map((e) => (e.payload as { outcome: { kind: string } }).outcome.kind);
      expect(outcomes[0]).toBe('interrupted'); // the turn the failed group left open in the store
      expect(outcomes.slice(1).length).toBeGreaterThan(0);
      for (const later of outcomes.slice(1)) expect(later).toBe('replied');
    }
    await agent.close();
  });
});
