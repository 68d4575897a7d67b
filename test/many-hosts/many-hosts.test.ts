/**
 * Many hosts, one store: several host processes (host-process.ts: the production
 * AgentHost on the PostgreSQL store) serve the same ten conversations at once, and
 * one of them is killed with SIGKILL in the middle of a turn.
 *
 * Traffic, all sent at once:
 * - 200 messages to 10 conversations, spread over the three surviving hosts so
 *   every conversation gets messages from every host;
 * - 10 messages to the victim host: `msg-kill` (conversation conv-3), on which its
 *   model hangs — the parent then SIGKILLs it, mid-turn, holding conv-3's lock —
 *   and 9 more to the other conversations, in whatever state they are when it dies.
 * Then one more message per conversation to a survivor (the sweep), so every turn
 * the victim left open has been met by another host.
 *
 * What must hold (checked from the store, plus the answers the clients got):
 * - seqs gapless; within a conversation turns never interleave: turn.opened and
 *   turn.closed alternate, and every event that names a turn belongs to the open one
 *   (a message may arrive while a turn runs: the host running it posts its own
 *   requests' messages straight in; another host's messages wait for the lock,
 *   which the "answered by the host it was sent to" checks below would catch);
 * - each of the 200 (and the sweep) answered exactly once: HTTP 200 with
 *   `answer to <its token>`, one inbox record, one replied turn that took it;
 * - `msg-kill` failed at its client (the host died), but it is not lost: it is in
 *   the store once, the victim's turn was closed by another host's recovery as
 *   `interrupted` (recovered), the message went back to the inbox (the model had
 *   not seen it) and a surviving host answered it in a later turn;
 * - every other message sent to the victim is, if its request succeeded, answered
 *   by the victim; if its request failed (the client saw the failure), exactly one of:
 *   absent from the store (the host died before storing it); answered once (by the
 *   victim before it died — the response died with it — or by a survivor after
 *   recovery gave it back); or in a turn recovered as `interrupted` after the model
 *   had seen it, never delivered again (with at most the one reply the victim stored
 *   before it could close the turn). Never duplicated, never left waiting in an inbox.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { decodeRecords } from '../../src/kernel/log/decode.ts';
import { isKnown, type AnyEvent, type LogEvent } from '../../src/kernel/log/envelope.ts';
import { PostgresEventStore } from '../../src/stores/postgres-store.ts';
import { describeWithPostgres, dropSchemas, freshSchemaName } from '../../src/stores/postgres-store-testing.ts';

const SURVIVORS = 3;
const CONVERSATIONS = 10;
const MESSAGES = 200;
const KILL_TOKEN = 'msg-kill';
const KILL_CONVERSATION = 'conv-3';
const script = fileURLToPath(new URL('./host-process.ts', import.meta.url));

interface Host {
  readonly name: string;
  readonly child: ChildProcess;
  readonly port: number;
  readonly stderr: () => string;
}

interface Sent {
  readonly token: string;
  readonly conversationId: string;
  readonly host: string;
  /** The HTTP answer, or the error when the request failed (the host died). */
  readonly answer?: { host: string; envelope: { status: number; reply?: string; error?: string; turns: unknown[] } };
  readonly failure?: string;
}

describeWithPostgres('many hosts, one PostgreSQL store', (url) => {
  const schema = freshSchemaName('many_hosts');
  const hosts: Host[] = [];
  afterAll(async () => {
    for (const host of hosts) if (host.child.exitCode === null && host.child.signalCode === null) host.child.kill('SIGKILL');
    await dropSchemas(url, [schema]);
  });

  function start(name: string, env: Record<string, string> = {}): Promise<Host> {
    const child = fork(script, [], {
      execArgv: [],
      env: { ...process.env, LOOPGATE_TEST_POSTGRES_URL: url, MANY_HOSTS_SCHEMA: schema, MANY_HOSTS_NAME: name, ...env },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    return new Promise((resolve, reject) => {
      child.once('exit', (code, signal) => reject(new Error(`host ${name} exited before it was ready (${code ?? signal}):\n${stderr}`)));
      child.on('message', (message: { type?: string; port?: number }) => {
        if (message.type === 'ready') {
          const host = { name, child, port: message.port!, stderr: () => stderr };
          hosts.push(host);
          resolve(host);
        }
      });
    });
  }

  async function send(host: Host, conversationId: string, token: string): Promise<Sent> {
    try {
      const response = await fetch(`http://127.0.0.1:${host.port}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ conversationId, text: `${token}: where is my order ORD-1002?` }),
      });
      return { token, conversationId, host: host.name, answer: (await response.json()) as Sent['answer'] };
    } catch (error) {
      return { token, conversationId, host: host.name, failure: String((error as Error).cause ?? error) };
    }
  }

  it('serializes turns per conversation across hosts, answers every message once, and loses nothing when a host is killed mid-turn', async () => {
    // Set the schema up once, so the hosts start against existing tables.
    await (await PostgresEventStore.open(url, { schema })).close();
    const survivors = await Promise.all(Array.from({ length: SURVIVORS }, (_, i) => start(`h${i}`)));
    const victim = await start('victim', { MANY_HOSTS_HANG_ON: KILL_TOKEN });

    let killed = false;
    const victimDied = new Promise<void>((resolve) => victim.child.once('exit', () => resolve()));
    victim.child.on('message', (message: { type?: string; token?: string }) => {
      if (message.type === 'hanging' && message.token === KILL_TOKEN) {
        killed = victim.child.kill('SIGKILL');
      }
    });

    // Everything at once: the storm to the survivors, and the victim's share.
    const storm = Array.from({ length: MESSAGES }, (_, i) => send(survivors[i % SURVIVORS]!, `conv-${i % CONVERSATIONS}`, `msg-${String(i).padStart(3, '0')}`));
    const toVictim = [
      send(victim, KILL_CONVERSATION, KILL_TOKEN),
      ...Array.from({ length: CONVERSATIONS }, (_, c) => c)
        .filter((c) => `conv-${c}` !== KILL_CONVERSATION)
        .map((c) => send(victim, `conv-${c}`, `msg-v${c}`)),
    ];
    const stormResults = await Promise.all(storm);
    const victimResults = await Promise.all(toVictim);
    // Had the victim never reached msg-kill's model call, its requests would all have been answered.
    expect(killed, `the victim was never asked about ${KILL_TOKEN}: ${JSON.stringify(victimResults[0])}`).toBe(true);
    await victimDied;
    expect(victim.child.signalCode).toBe('SIGKILL');

    // The sweep: one more message per conversation, to a survivor.
    const sweep = await Promise.all(Array.from({ length: CONVERSATIONS }, (_, c) => send(survivors[c % SURVIVORS]!, `conv-${c}`, `msg-sweep-${c}`)));

    for (const host of survivors) host.child.send({ type: 'shutdown' });

    // ---- what the clients got ----
    const diagnostics = () => hosts.map((h) => `--- ${h.name} stderr ---\n${h.stderr().slice(-2000)}`).join('\n');
    for (const sent of [...stormResults, ...sweep]) {
      expect(sent.failure, `${sent.token} to ${sent.host}: ${sent.failure}\n${diagnostics()}`).toBeUndefined();
      expect(sent.answer!.envelope.status, `${sent.token}: ${JSON.stringify(sent.answer)}`).toBe(200);
      expect(sent.answer!.envelope.reply).toBe(`answer to ${sent.token} from ${sent.host}`);
    }
    const killMessage = victimResults[0]!;
    expect(killMessage.failure, 'the request to the killed host fails visibly').toBeDefined();

    // ---- what the store holds ----
    const store = await PostgresEventStore.open(url, { schema, create: false });
    const conversations = await store.listConversations();
    expect(conversations).toEqual(Array.from({ length: CONVERSATIONS }, (_, c) => `conv-${c}`).sort());
    const fates = new Map<string, Fate>();
    let recoveredTurns = 0;
    for (const id of conversations) {
      const records = await store.read(id);
      expect(records.map((r) => r.seq)).toEqual(records.map((_, i) => i)); // gapless from 0
      const events = decodeRecords(records, `${store.describe} ${id}`);
      checkTurnsSerialized(id, events);
      const conversation = messageFates(id, events);
      recoveredTurns += conversation.recoveredTurns;
      for (const [token, fate] of conversation.fates) {
        expect(fates.has(token), `${token} stored in two conversations`).toBe(false);
        fates.set(token, fate);
      }
    }
    await store.close();

    // Each of the 200 and of the sweep: answered exactly once, by the host it was sent to.
    for (const sent of [...stormResults, ...sweep]) {
      expect(fates.get(sent.token), sent.token).toEqual({
        conversationId: sent.conversationId,
        received: 1,
        takes: 1,
        end: 'answered',
        answers: [`answer to ${sent.token} from ${sent.host}`],
      });
    }

    // msg-kill: stored once, returned by another host's recovery, answered by a survivor.
    const kill = fates.get(KILL_TOKEN);
    expect(kill).toMatchObject({ conversationId: KILL_CONVERSATION, received: 1, takes: 2, returnedByRecovery: 1, end: 'answered' });
    expect(kill!.answers).toHaveLength(1);
    expect(kill!.answers[0]).toMatch(/^answer to msg-kill from h\d$/);
    expect(recoveredTurns).toBeGreaterThanOrEqual(1);

    // The victim's other messages: answered once, or visibly interrupted, or (request failed before storing) absent.
    for (const sent of victimResults.slice(1)) {
      const fate = fates.get(sent.token);
      if (sent.answer !== undefined) {
        expect(sent.answer.envelope.reply).toBe(`answer to ${sent.token} from victim`);
        expect(fate).toMatchObject({ received: 1, end: 'answered', answers: [`answer to ${sent.token} from victim`] });
        continue;
      }
      if (fate === undefined) continue; // never stored: only the client knows, and it saw the failure
      expect(fate.received, sent.token).toBe(1);
      // Answered: by the victim before it died (the response died with it) or by a survivor after recovery.
      // Interrupted: the victim died after its model saw the message; its reply may have been stored before the turn's close was.
      expect(['answered', 'interrupted'], `${sent.token}: ${JSON.stringify(fate)}`).toContain(fate.end);
      expect(fate.answers.length, `${sent.token}: ${JSON.stringify(fate)}`).toBeLessThanOrEqual(1);
      if (fate.end === 'answered') expect(fate.answers).toHaveLength(1);
      for (const answer of fate.answers) expect(answer).toMatch(new RegExp(`^answer to ${sent.token} from (victim|h\\d)$`));
    }

    // No stored message is outside the traffic above.
    const sentTokens = new Set([...stormResults, ...sweep, ...victimResults].map((s) => s.token));
    expect([...fates.keys()].filter((token) => !sentTokens.has(token))).toEqual([]);
  });
});

/** Turns within one conversation never interleave. */
function checkTurnsSerialized(conversationId: string, events: readonly AnyEvent[]): void {
  let open: number | undefined;
  let next = 0;
  for (const event of events) {
    if (!isKnown(event)) continue;
    const where = `${conversationId} seq ${event.seq} (${event.type})`;
    if (event.type === 'turn.opened') {
      expect(open, `${where}: a turn opened while turn ${open} was open`).toBeUndefined();
      expect(event.payload.turn, where).toBe(next);
      open = event.payload.turn;
      next++;
    } else if (event.type === 'turn.closed') {
      expect(event.payload.turn, `${where}: closes a turn that is not the open one`).toBe(open);
      open = undefined;
    } else if (event.type === 'inbox.received') {
      // A message may arrive while a turn runs: the host running it posts its own
      // requests' messages straight into the turn (steers join it, follow-ups become
      // the next turn). Another host's message cannot: it waits for the lock — and the
      // answers above show each message answered by the host it was sent to.
    } else {
      const turn = (event.payload as { turn?: unknown }).turn;
      if (typeof turn === 'number') expect(turn, `${where}: an event of turn ${turn} inside turn ${open}`).toBe(open);
    }
  }
  expect(open, `${conversationId}: turn ${open} was never closed`).toBeUndefined();
}

interface Fate {
  readonly conversationId: string;
  /** inbox.received records with this token. */
  readonly received: number;
  /** Turns that took it (user.message records). */
  readonly takes: number;
  readonly returnedByRecovery?: number;
  /** answered: its last take closed `replied`; interrupted: its last take was recovered after the model saw it. */
  readonly end: 'answered' | 'interrupted' | 'pending' | 'broken';
  /** Every reply in the conversation that answers this token. */
  readonly answers: readonly string[];
}

function messageFates(conversationId: string, all: readonly AnyEvent[]): { fates: Map<string, Fate>; recoveredTurns: number } {
  const events = all.filter(isKnown) as LogEvent[];
  const tokenOf = (text: string) => /^(msg-[\w-]+):/.exec(text)?.[1] ?? `unknown:${text}`;
  const closed = new Map<number, { outcome: string; recovered: boolean }>();
  const returned = new Map<number, Set<string>>();
  const replies = new Map<string, string[]>();
  for (const event of events) {
    if (event.type === 'turn.closed') closed.set(event.payload.turn, { outcome: event.payload.outcome.kind, recovered: event.payload.recovered === true });
    if (event.type === 'inbox.returned') returned.set(event.payload.turn, new Set(event.payload.ids));
    if (event.type === 'assistant.message') {
      for (const block of event.payload.content) {
        if (block.type !== 'text') continue;
        const answered = /^answer to (msg-[\w-]+) from /.exec(block.text);
        if (answered) replies.set(answered[1]!, [...(replies.get(answered[1]!) ?? []), block.text]);
      }
    }
  }

  const fates = new Map<string, Fate>();
  for (const event of events) {
    if (event.type !== 'inbox.received') continue;
    const token = tokenOf(event.payload.text);
    const id = event.payload.id;
    const received = events.filter((e) => e.type === 'inbox.received' && tokenOf(e.payload.text) === token).length;
    const takes = events.filter((e): e is LogEvent & { type: 'user.message' } => e.type === 'user.message' && e.payload.id === id).map((e) => e.payload.turn);
    const recoveredAndReturned = (turn: number) =>
      closed.get(turn)?.recovered === true && closed.get(turn)?.outcome === 'interrupted' && returned.get(turn)?.has(id) === true;
    const returnedByRecovery = takes.filter(recoveredAndReturned).length;
    let end: Fate['end'] = 'broken';
    if (takes.length === 0) end = 'pending';
    // Only a recovered turn that gave the message back may be followed by another take.
    else if (takes.slice(0, -1).every(recoveredAndReturned)) {
      const last = takes[takes.length - 1]!;
      const close = closed.get(last);
      if (close?.outcome === 'replied') end = 'answered';
      else if (close?.outcome === 'interrupted' && close.recovered && returned.get(last)?.has(id) !== true) end = 'interrupted';
    }
    fates.set(token, {
      conversationId,
      received,
      takes: takes.length,
      ...(returnedByRecovery > 0 ? { returnedByRecovery } : {}),
      end,
      answers: replies.get(token) ?? [],
    });
  }
  const recoveredTurns = [...closed.values()].filter((c) => c.recovered).length;
  return { fates, recoveredTurns };
}
