/**
 * Two host processes on one SQLite file: the second refuses (naming the first)
 * or waits for it, instead of recovering the first one's live turn as crashed —
 * and a host that was killed is taken over at once by the next, whose sweep at
 * start closes the turn it left open.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../src/stores/sqlite-store.ts';

const script = fileURLToPath(new URL('./sqlite-host-process.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'loopgate-two-hosts-'));
const db = join(dir, 'agent.db');
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

interface Message {
  type: string;
  pid?: number;
  error?: string;
  sweep?: { conversations: number; recovered: { conversationId: string; turn: number }[] };
  envelope?: { status: number; reply?: string };
}

class Host {
  readonly child: ChildProcess;
  readonly messages: Message[] = [];
  #stderr = '';
  #waiters: (() => void)[] = [];
  constructor(name: string, waitMs = 0) {
    this.child = fork(script, [], {
      execArgv: [],
      env: { ...process.env, SQLITE_HOST_DB: db, SQLITE_HOST_NAME: name, SQLITE_HOST_WAIT_MS: String(waitMs) },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    children.push(this.child);
    this.child.stderr!.on('data', (chunk: Buffer) => (this.#stderr += chunk.toString()));
    this.child.on('message', (m: Message) => {
      this.messages.push(m);
      for (const w of this.#waiters.splice(0)) w();
    });
    this.child.on('exit', () => {
      for (const w of this.#waiters.splice(0)) w();
    });
  }
  /** The first message of `type` (waits for it). */
  async next(type: string, timeoutMs = 20_000): Promise<Message> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find((m) => m.type === type);
      if (found) return found;
      if (this.child.exitCode !== null || this.child.signalCode !== null || Date.now() > deadline) {
        throw new Error(
          `no "${type}" from the host (exit ${this.child.exitCode ?? this.child.signalCode}); got ${JSON.stringify(this.messages)}\n${this.#stderr}`,
        );
      }
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }
  handle(conversationId: string, text: string): void {
    this.child.send({ type: 'handle', conversationId, text });
  }
  exited(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => this.child.once('exit', () => resolve()));
  }
}

async function storedOutcomes(): Promise<string[]> {
  const reader = new SqliteEventStore(db); // reads only: never claims the file
  const records = await reader.read('c');
  await reader.close();
  return records.flatMap((r) => (r.type === 'turn.closed' ? [(r.payload as { outcome: { kind: string } }).outcome.kind] : []));
}

describe('two host processes on one SQLite file', () => {
  it('the second refuses or waits while the first runs a turn; a killed host is taken over at once and its open turn recovered', {
    timeout: 120_000,
  }, async () => {
    const a = new Host('a');
    expect((await a.next('ready')).sweep).toMatchObject({ conversations: 0, recovered: [] });
    a.handle('c', 'please hang:a');
    await a.next('hanging');

    // B refuses at once, naming A, and touches nothing: A's turn stays open.
    const b = new Host('b');
    const refused = await b.next('refused');
    expect(refused.error).toMatch(new RegExp(`is in use by another loopgate host: process ${a.child.pid} on `));
    await b.exited();
    expect(b.child.exitCode).toBe(3);
    expect(await storedOutcomes()).toEqual([]);

    // C waits for A; A shuts down (closing its own turn as cancelled) and lets go; C takes over with nothing to recover.
    const c = new Host('c', 60_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(c.messages).toEqual([]);
    a.child.send({ type: 'shutdown' });
    await a.exited();
    expect((await c.next('ready')).sweep).toMatchObject({ conversations: 1, recovered: [] });
    expect(await storedOutcomes()).toEqual(['cancelled']);

    // C is killed mid-turn: D claims the file at once (C's pid is gone) and its sweep closes C's turn.
    // (C first answers A's message, which A's cancelled turn returned to the inbox: turn 1; C's own is turn 2.)
    c.handle('c', 'hang:c');
    await c.next('hanging');
    expect(await storedOutcomes()).toEqual(['cancelled', 'replied']);
    c.child.kill('SIGKILL');
    await c.exited();
    const d = new Host('d');
    expect((await d.next('ready')).sweep).toMatchObject({ conversations: 1, recovered: [{ conversationId: 'c', turn: 2 }] });
    expect(await storedOutcomes()).toEqual(['cancelled', 'replied', 'interrupted']);
    // The message C's crash interrupted went back to the inbox: D answers it, then the new one.
    d.handle('c', 'hello');
    expect((await d.next('answered')).envelope).toMatchObject({ status: 200, reply: 'answer from d' });
    expect(await storedOutcomes()).toEqual(['cancelled', 'replied', 'interrupted', 'replied', 'replied']);
    d.child.send({ type: 'shutdown' });
    await d.exited();
  });
});
