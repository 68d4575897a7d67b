/**
 * The production host where no scenario takes it: `contract:host/<id>`.
 *
 * Every scenario's production host is given its agent as a factory that builds,
 * and owns its SQLite file alone, so two things a deploy meets were never run
 * by the gate:
 *
 * - an agent factory (loopgate.config.ts) that throws for one conversation — a
 *   tenant it cannot find, a secret it cannot read — or returns no agent. The
 *   host builds the factory once at start with no conversation, then once per
 *   conversation it opens: the request must be answered 500 with what the
 *   factory said, nothing stored, and the next request must open the
 *   conversation again (a host that kept the failure would refuse it for good);
 * - a second host started on a SQLite file a live host writes: it must refuse
 *   every message 503 with the store's reason and store nothing (two hosts on
 *   one file would recover each other's live turns as crashed), and take the
 *   file once the first host has closed (a host that kept the refused claim
 *   would refuse for good).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { call, reply, toolUse } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { defaultHostConfig } from '../host/config.ts';
import { createHostFromConfig } from '../host/from-config.ts';
import type { ResponseEnvelope } from '../host/envelope.ts';
import { AgentHost } from '../host/host.ts';
import { eventsHandler } from '../host/sse.ts';
import { defineTool, type Agent, type AgentFactory } from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { StoreCorruptionError, StoreError } from '../stores/event-store.ts';
import { MemoryEventStore, type MemoryEventStoreOptions } from '../stores/memory-store.ts';
import { SqliteEventStore } from '../stores/sqlite-store.ts';
import { checksCase, type Case } from './cases.ts';
import { parseSse } from './world/follow-check.ts';

const FILE = 'src/harness/host-cases.ts';
const AGENT: Agent = { system: 'You help customers with their orders.' };

const model = () => new ScriptedModelClient(Array.from({ length: 4 }, () => reply('Your order ships today.')));

function answered(name: string, got: ResponseEnvelope, status: number, text: string | undefined): CheckResult {
  const shown = `${got.status} ${got.error ?? got.reply ?? ''}`;
  const passed = got.status === status && (text === undefined ? got.error === undefined : (got.error ?? '').includes(text));
  return {
    name,
    passed,
    message: passed ? shown : `expected ${status}${text ? ` with "${text}"` : ''}; got ${shown}`,
    expected: `${status} ${text ?? ''}`,
    actual: shown,
  };
}

function stored(name: string, got: number, want: number): CheckResult {
  return { name, passed: got === want, message: `${got} record(s) stored`, expected: String(want), actual: String(got) };
}

async function factoryFails(failure: 'throws' | 'returns null'): Promise<CheckResult[]> {
  const store = new MemoryEventStore();
  let builds = 0;
  // Built once at start with no conversation (accepted), then per conversation: the first build for acme-7 fails.
  const factory: AgentFactory = (context) => {
    if (context.conversationId === 'acme-7' && builds++ === 0) {
      if (failure === 'throws') throw new Error('no tenant "acme" in the directory');
      return null as unknown as Agent;
    }
    return AGENT;
  };
  const host = new AgentHost({ config: defaultHostConfig(), store, model: model(), agent: factory });
  try {
    const first = await host.handle('acme-7', 'Where is ORD-1001?');
    const kept = store.count('acme-7');
    const again = await host.handle('acme-7', 'Where is ORD-1001?');
    const said = failure === 'throws' ? 'the agent factory threw: no tenant "acme" in the directory' : 'the agent factory returned null, not an agent';
    return [
      answered('the failed build is answered 500 with what went wrong', first, 500, `${said}; the message was not stored`),
      stored('nothing stored for the failed build', kept, 0),
      answered('the next request builds the agent again and is answered', again, 200, undefined),
      { name: 'the turn replied', passed: again.reply === 'Your order ships today.', message: `reply ${JSON.stringify(again.reply)}` },
    ];
  } finally {
    await host.close();
  }
}

async function secondHostOnOneFile(): Promise<CheckResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'loopgate-host-case-'));
  const file = join(dir, 'conversations.db');
  const build = () => new AgentHost({ config: defaultHostConfig(), store: new SqliteEventStore(file), model: model(), agent: AGENT });
  const first = build();
  const second = build();
  try {
    const served = await first.handle('order-1', 'Where is ORD-1001?');
    const refused = await second.handle('order-2', 'Where is ORD-2002?');
    const refusedAgain = await second.handle('order-2', 'Where is ORD-2002?');
    const counted = new SqliteEventStore(file);
    const kept = (await counted.read('order-2')).length;
    await counted.close();
    await first.close();
    const taken = await second.handle('order-2', 'Where is ORD-2002?');
    const why = 'the store cannot be written by this host: sqlite:';
    return [
      answered('the first host serves', served, 200, undefined),
      answered('the second host refuses with the store’s reason', refused, 503, why),
      { name: '…naming the live host', passed: (refused.error ?? '').includes('is in use by another loopgate host'), message: refused.error ?? '' },
      answered('…and again on the next request while the first host runs', refusedAgain, 503, why),
      stored('the refused messages are not stored', kept, 0),
      answered('once the first host closed, the second takes the file', taken, 200, undefined),
    ];
  } finally {
    await Promise.allSettled([first.close(), second.close()]);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A memory store that records what it held for `watched` when the host closed it. */
class WatchedStore extends MemoryEventStore {
  heldAtClose: string[] | undefined;
  readonly #watched: string;
  constructor(watched: string, options?: MemoryEventStoreOptions) {
    super(options);
    this.#watched = watched;
  }
  override async close(): Promise<void> {
    this.heldAtClose = (await this.read(this.#watched)).map((r) => r.type);
    return super.close();
  }
}

/**
 * `close()`, what a deploy's graceful shutdown calls (the harness's hosts are
 * halted, as a crash): a turn running a tool is cancelled, its request answered
 * with the cancelled turn, the close stored, its trace exported before the
 * exporter is shut down, the store closed after that; a request after is
 * refused. And `events()`, the stored events read back decoded.
 */
async function closeWhileATurnRuns(): Promise<CheckResult[]> {
  const store = new WatchedStore('stock-1');
  let started: () => void = () => undefined;
  const toolStarted = new Promise<void>((resolve) => {
    started = resolve;
  });
  const exported: string[] = [];
  let exportedAtShutdown: number | undefined;
  const exporter = {
    export: (trace: { readonly traceId: string }) => {
      exported.push(trace.traceId);
    },
    shutdown: () => {
      exportedAtShutdown ??= exported.length; // the first call: an exporter shut down sends nothing more
    },
  };
  const agent: Agent = {
    ...AGENT,
    tools: [
      defineTool({
        name: 'check_stock',
        description: 'Check the stock of a product.',
        input: z.object({ sku: z.string() }),
        sideEffect: 'NONE',
        // The warehouse never answers: the tool ends only when its call is aborted, a little later (it hangs up).
        run: (_args, context) =>
          new Promise<never>((_resolve, reject) => {
            started();
            context.signal.addEventListener('abort', () => setTimeout(() => reject(new Error('aborted')), 30));
          }),
      }),
    ],
  };
  const script = new ScriptedModelClient([reply('Hello.'), toolUse([call('stock', 'check_stock', { sku: 'KETTLE-2' })]), reply('It is in stock.')]);
  const host = new AgentHost({ config: defaultHostConfig(), store, model: script, agent, exporter });
  const greeted = await host.handle('hello-1', 'Hello');
  const events = (await host.events('hello-1')).map((e) => e.type);
  const running = host.handle('stock-1', 'Is KETTLE-2 in stock?');
  await toolStarted;
  const closing = host.close();
  const answer = await running;
  await closing;
  const after = await host.handle('stock-1', 'Hello?');
  let storeClosed = false;
  try {
    await store.read('stock-1');
  } catch (error) {
    storeClosed = /the store is closed/.test((error as Error).message);
  }
  const held = store.heldAtClose ?? [];
  const turn = answer.turns[0];
  return [
    answered('a finished turn is answered', greeted, 200, undefined),
    {
      name: 'events() reads the stored turn back',
      passed:
        JSON.stringify(events) ===
        JSON.stringify([
          'inbox.received',
          'turn.opened',
          'user.message',
          'prompt.assembled',
          'tools.declared',
          'model.request',
          'model.delta',
          'model.result',
          'assistant.message',
          'turn.closed',
        ]),
      message: events.join(', '),
    },
    {
      name: 'the running turn is answered cancelled by the shutdown',
      passed: answer.status === 499 && turn?.outcome === 'cancelled{shutdown}' && answer.delivery === 'turn',
      message: `${answer.status} ${answer.delivery} ${turn?.outcome} ${answer.error ?? ''}`,
    },
    { name: 'the cancelled turn’s close is stored before the store closes', passed: held.at(-1) === 'turn.closed', message: held.join(', ') },
    {
      name: 'both turns’ traces are exported before the exporter shuts down',
      passed: exportedAtShutdown === 2,
      message: `${exportedAtShutdown ?? 'no shutdown'} of ${exported.length} exported at shutdown`,
    },
    { name: 'the store is closed', passed: storeClosed, message: storeClosed ? 'closed' : 'still open after close()' },
    answered('a request after close is refused', after, 503, 'the host is shutting down; the message was not stored'),
  ];
}

/**
 * A host whose turn's close is being written when a follow-up arrives and the deploy closes the host at once (the
 * two close cases below); `refuse`: the write of that message fails ("disk full").
 */
async function closeAsAMessageArrives(refuse: boolean) {
  let host: AgentHost | undefined;
  let waiting: Promise<ResponseEnvelope> | undefined;
  let closing: Promise<void> | undefined;
  let posted = false; // set before the post: its write may begin before handle() returns
  let refused = 0;
  const store = new WatchedStore('stock-1', {
    faults: {
      beforeAppend: (_id, records) => {
        if (host === undefined) return undefined;
        if (refuse && posted && records.some((r) => r.type === 'inbox.received')) {
          refused++;
          throw new Error('disk full');
        }
        if (posted || !records.some((r) => r.type === 'turn.closed')) return undefined;
        // While the turn's close is being written: a follow-up arrives, then the deploy shuts the host down.
        return new Promise<void>((resolve) =>
          setImmediate(() => {
            posted = true;
            waiting = host!.handle('stock-1', 'And TEAPOT-1?', { intent: 'follow_up' });
            closing = host!.close();
            setImmediate(resolve);
          }),
        );
      },
    },
  });
  const script = new ScriptedModelClient([reply('KETTLE-2 is in stock.'), reply('never sent')]);
  host = new AgentHost({ config: defaultHostConfig(), store, model: script, agent: AGENT });
  const first = await host.handle('stock-1', 'Is KETTLE-2 in stock?');
  const second = waiting ? await waiting : undefined;
  await closing;
  return { first, second, held: store.heldAtClose ?? [], calls: script.calls, refused };
}

/**
 * `close()` just as a turn's close is being written, with a message posted
 * behind it after that write took its batch: the loop is shut down, so the
 * message starts no turn in a process on its way out — but it must be stored
 * before the store closes (the next process's first turn takes it) and its
 * request answered saying so, 503 queued. Answered before it is stored, a
 * client is told a message was kept that a restart loses; never answered, the
 * host waits for a turn that never comes.
 */
/**
 * `close()` ends every follower: one following with `keepOpen` (a UI's event stream, which waits for later turns)
 * gets what was stored, then its iterable ends — it does not wait on a host that will never store anything again.
 * It waited forever, and a script that closed the host and then awaited its follower never ended (outside probe 63,
 * F5). Judged within 2 s of real time after the close. And a UI's kept-open event stream (`eventsHandler`) is cut
 * without `event: end`, which tells a UI the conversation is done: its EventSource reconnects, to the next process
 * (review of stop 65, MED-2).
 */
async function closeEndsFollowers(): Promise<CheckResult[]> {
  const host = new AgentHost({ config: defaultHostConfig(), store: new MemoryEventStore(), model: model(), agent: AGENT });
  const answer = await host.handle('follow-1', 'Hello');
  const server = createServer(eventsHandler(host, { heartbeatMs: 0, keepOpen: true }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  // The stream, read until it has replayed the stored turn (then the host closes), and then to its end.
  let text = '';
  let replayed!: () => void;
  const caughtUp = new Promise<void>((resolve) => (replayed = resolve));
  const streamed = (async () => {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/conversations/follow-1/events`, { signal: AbortSignal.timeout(5_000) });
      const decoder = new TextDecoder();
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
        text += decoder.decode(chunk, { stream: true });
        if (text.includes('event: turn.closed')) replayed();
      }
    } catch (error) {
      text += `\n(the stream broke: ${String(error)})`;
    }
    replayed();
    return text;
  })();
  await caughtUp;
  const stop = new AbortController();
  const events = await host.follow('follow-1', { keepOpen: true, signal: stop.signal });
  const seen: string[] = [];
  const followed = (async () => {
    for await (const event of events) seen.push(event.type);
    return 'ended' as const;
  })();
  await host.close();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const outcome = await Promise.race([followed, new Promise<'still open'>((resolve) => (timer = setTimeout(() => resolve('still open'), 2_000)))]);
  clearTimeout(timer);
  stop.abort(); // let go of a follower the close left open
  const sse = parseSse(await streamed);
  server.close();
  return [
    answered('the message is answered', answer, 200, undefined),
    {
      name: 'the kept-open event stream is cut without event: end (its EventSource reconnects to the next process)',
      passed: sse.some((m) => m.event === 'turn.closed') && !sse.some((m) => m.event === 'end'),
      message: sse.map((m) => m.event ?? '(comment)').join(', ') || 'nothing',
    },
    { name: 'the follower ended once the host closed', passed: outcome === 'ended', message: outcome },
    {
      name: 'the follower got every stored event first',
      passed: seen[0] === 'conversation.started' || seen[0] === 'inbox.received' ? seen.at(-1) === 'turn.closed' : false,
      message: seen.join(', ') || 'nothing',
    },
  ];
}

async function closeWithAMessageWaiting(): Promise<CheckResult[]> {
  const { first, second, held, calls } = await closeAsAMessageArrives(false);
  const messages = held.filter((type) => type === 'inbox.received').length;
  return [
    answered('the turn that was closing is answered', first, 200, undefined),
    second
      ? answered(
          'the message posted behind it is answered: stored, for the next turn',
          second,
          503,
          'the host is shutting down; the message is stored and the next turn takes it',
        )
      : { name: 'the message posted behind it is answered', passed: false, message: 'the close was never written (no message was posted)' },
    {
      name: 'the message started no turn',
      passed: second?.delivery === 'queued' && second.turns.length === 0 && calls === 1,
      message: `delivery ${second?.delivery}, ${second?.turns.length} turn(s), ${calls} model request(s)`,
    },
    {
      name: 'both messages are stored before the store closes, the second after the first turn’s close',
      passed: messages === 2 && held.at(-1) === 'inbox.received' && held.at(-2) === 'turn.closed',
      message: held.join(', '),
    },
  ];
}

/**
 * As above, and the write of the message posted behind the closing turn fails: it is answered 503 saying it was not
 * stored — never "stored, for the next turn" — and no turn starts (the host's shutdown drain drops the session on a
 * refused write; gate coverage found no case reaching it).
 */
async function closeWithAMessageWaitingWhoseWriteFails(): Promise<CheckResult[]> {
  const { first, second, held, calls, refused } = await closeAsAMessageArrives(true);
  return [
    answered('the turn that was closing is answered', first, 200, undefined),
    second
      ? answered('the message whose write failed is answered: not stored', second, 503, 'the message was not stored')
      : { name: 'the message whose write failed is answered', passed: false, message: 'the close was never written (no message was posted)' },
    {
      name: 'the write was refused (and the answer says why), nothing of the message is stored, and no turn started',
      passed:
        refused >= 1 &&
        (second?.error ?? '').includes('disk full') &&
        held.filter((type) => type === 'inbox.received').length === 1 &&
        calls === 1 &&
        (second?.turns.length ?? 0) === 0,
      message: `${refused} refused write(s), said: ${second?.error ?? '-'}; stored: ${held.join(', ')}; ${calls} model request(s)`,
    },
  ];
}

/**
 * The SSE handler (`eventsHandler`, what a deploy mounts for its UI) asked what
 * a client gets wrong: another method, an id that is not percent-encoding or not
 * a conversation id, a `from` that is not a seq or past the end. Each is
 * answered at once with its status and line; a `from` inside the conversation
 * streams from exactly there. Over a real HTTP server on a free local port.
 */
/** The secret the SSE handler's host is given: declared on its case too, so no report shows it. */
const SSE_SECRET = 'sse-secret-7f3a9c2e5b1d4f60';

async function eventsRequests(): Promise<CheckResult[]> {
  const secret = SSE_SECRET;
  const host = new AgentHost({ config: defaultHostConfig(), store: new MemoryEventStore(), model: model(), agent: AGENT, secrets: [secret] });
  const server = createServer(eventsHandler(host, { heartbeatMs: 0 }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const ask = async (path: string, method = 'GET', headers: Record<string, string> = {}) => {
    const response = await fetch(`${base}${path}`, { method, headers, signal: AbortSignal.timeout(5_000) });
    return { status: response.status, allow: response.headers.get('allow'), body: await response.text() };
  };
  const got = (name: string, answer: { status: number; body: string }, status: number, body: string): CheckResult => {
    const passed = answer.status === status && answer.body.includes(body);
    return {
      name,
      passed,
      message: `${answer.status} ${answer.body.slice(0, 200)}`,
      expected: `${status} ${body}`,
      actual: `${answer.status} ${answer.body.slice(0, 200)}`,
    };
  };
  try {
    await host.handle('order-9', 'Where is ORD-1001?');
    const stored = (await host.events('order-9')).length;
    const posted = await ask('/conversations/order-9/events', 'POST');
    const from3 = await ask('/conversations/order-9/events?from=3');
    const ids = parseSse(from3.body).flatMap((m) => (m.id !== undefined ? [Number(m.id)] : []));
    const ended = parseSse(from3.body).at(-1);
    return [
      got('another method: 405', posted, 405, 'POST is not allowed: GET /conversations/{id}/events'),
      { name: '…with Allow: GET', passed: posted.allow === 'GET', message: `allow ${posted.allow}` },
      got(
        'an id that is not percent-encoding: 400',
        await ask('/conversations/order%E0%A4%A/events'),
        400,
        'the conversation id is not valid percent-encoding',
      ),
      got('an id outside the syntax: 400', await ask('/conversations/orders%2F9/events'), 400, 'invalid conversation id "orders/9"'),
      got('a from that is not a seq: 400', await ask('/conversations/order-9/events?from=3x'), 400, 'from "3x" is not a seq (a non-negative integer)'),
      // What a client sent is echoed in the answer, which proxies and UIs log: a secret in it is redacted there as in an id
      // (outside probe 37, F5: `from` and `Last-Event-ID` were echoed whole).
      got(
        'a from holding a secret: 400, the secret redacted',
        await ask(`/conversations/order-9/events?from=${secret}`),
        400,
        'from "[REDACTED]" is not a seq',
      ),
      got(
        'a Last-Event-ID holding a secret: 400, the secret redacted',
        await ask('/conversations/order-9/events', 'GET', { 'last-event-id': secret }),
        400,
        'Last-Event-ID "[REDACTED]" is not a seq',
      ),
      // An answer quotes at most the first 64 characters of an id and 40 of a Last-Event-ID (mutation seed 52: both
      // echoed whole; every id and header the gate sent was shorter).
      got(
        'an id outside the syntax of 71 characters: 400, shown cut to 64 and its length',
        await ask(`/conversations/${'x'.repeat(70)}!/events`),
        400,
        `invalid conversation id "${'x'.repeat(64)}… (71 characters)"`,
      ),
      got(
        'a Last-Event-ID of 50 characters: 400, quoted cut to 40',
        await ask('/conversations/order-9/events', 'GET', { 'last-event-id': 'n'.repeat(50) }),
        400,
        `Last-Event-ID "${'n'.repeat(40)}" is not a seq`,
      ),
      got(
        'a from past the end: 400',
        await ask(`/conversations/order-9/events?from=${stored + 5}`),
        400,
        `from ${stored + 5}: conversation "order-9" has fewer events (seq ${stored + 4} is not stored)`,
      ),
      {
        name: 'a from inside the conversation streams from exactly there',
        passed: from3.status === 200 && ids[0] === 3 && ids.length === stored - 3 && ended?.event === 'end' && ended.data === JSON.stringify({ next: stored }),
        message: `${from3.status}: seqs ${ids.join(',')} of ${stored}, last ${JSON.stringify(ended)}`,
      },
    ];
  } finally {
    await new Promise((resolve) => server.close(resolve));
    await host.close();
  }
}

/**
 * A host built in plain JavaScript (no types hold it to `HostOptions`) without its config or store, or with no
 * options at all: refused at construction, one line naming what is missing and how to get it — never a TypeError
 * from deep inside building its tools (outside probe 70: `new AgentHost({ model, store })` threw "Cannot read
 * properties of undefined (reading 'tools')").
 */
async function builtWithoutConfigOrStore(): Promise<CheckResult[]> {
  const store = new MemoryEventStore();
  const rows: [string, () => unknown, RegExp][] = [
    ['no config', () => new AgentHost({ store, model: model() } as never), /^config: the host needs its config \(defaultHostConfig\(\) .*\); got undefined$/],
    [
      'a config that is text',
      () => new AgentHost({ config: 'host.yaml', store, model: model() } as never),
      /^config: the host needs its config .*; got a string$/,
    ],
    ['no store', () => new AgentHost({ config: defaultHostConfig(), model: model() } as never), /^store: the host needs an event store \(.*\); got undefined$/],
    [
      'a store with no append',
      () => new AgentHost({ config: defaultHostConfig(), store: {}, model: model() } as never),
      /^store: the host needs an event store .*; got an object without append\(\)$/,
    ],
    // A store's opening not awaited (`store: openStore(config)`): the promise named, and what to do (review of stop 71).
    [
      'a store not yet opened (a promise)',
      () => new AgentHost({ config: defaultHostConfig(), store: Promise.resolve(store), model: model() } as never),
      /^store: the host needs an event store .*; got a promise: await the store's opening first$/,
    ],
    ['a store that is a list', () => new AgentHost({ config: defaultHostConfig(), store: [], model: model() } as never), /^store: .*; got a list$/],
    ['no options', () => new (AgentHost as unknown as new () => AgentHost)(), /^AgentHost: expected options \{ config, store, model \}, got undefined$/],
  ];
  const checks: CheckResult[] = [];
  for (const [what, build, expected] of rows) {
    let said = 'accepted';
    try {
      const host = build() as AgentHost;
      await host.close();
    } catch (error) {
      said = `${(error as Error).name}: ${(error as Error).message}`;
    }
    const message = said.replace(/^\w+: /, '');
    checks.push({ name: `${what}: refused in one line`, passed: expected.test(message), message: said, expected: String(expected), actual: said });
  }
  return checks;
}

/** A secret the agent declares, and one the host's `secrets` option adds: declared on the case too, so no report shows them. */
const AGENT_SECRET = 'agent-db-pass-4c91e7a2b58d';
const HOST_SECRET = 'host-side-token-9b2f61d8e0a3';

/**
 * A host given `secrets` serving an agent that declares its own redacts both: the host's add to the agent's, never
 * replace them (outside probe 70, host-secrets-replace: the agent's database password was stored and sent to the
 * model). The customer pastes both, and a tool hands both back: the stored records, the model's requests and the
 * answer hold neither.
 */
async function agentAndHostSecrets(): Promise<CheckResult[]> {
  const agent: Agent = {
    ...AGENT,
    secrets: [AGENT_SECRET],
    tools: [
      defineTool({
        name: 'read_settings',
        description: 'Read the settings in use.',
        input: z.object({}),
        sideEffect: 'NONE',
        run: async () => `db password ${AGENT_SECRET}, api token ${HOST_SECRET}`,
      }),
    ],
  };
  const script = new ScriptedModelClient([toolUse([call('s1', 'read_settings', {})]), reply('Settings read.')]);
  const host = new AgentHost({ config: defaultHostConfig(), store: new MemoryEventStore(), model: script, agent, secrets: [HOST_SECRET] });
  try {
    const answer = await host.handle('order-9', `My password is ${AGENT_SECRET} and the token ${HOST_SECRET}.`);
    const places = {
      'the stored records': JSON.stringify(await host.events('order-9')),
      "the model's requests": JSON.stringify(script.requests),
      'the answer': JSON.stringify(answer),
    };
    return [
      answered('the turn replies', answer, 200, undefined),
      ...Object.entries(places).flatMap(([where, text]) =>
        (
          [
            ["the agent's own secret", AGENT_SECRET],
            ["the host's secret", HOST_SECRET],
          ] as const
        ).map(([which, secret]): CheckResult => {
          const passed = !text.includes(secret);
          return { name: `${where} hold not ${which}`, passed, message: passed ? 'redacted' : `${where} hold ${which} unredacted` };
        }),
      ),
      {
        name: 'the tool ran and its output was stored',
        passed: places['the stored records'].includes('db password [REDACTED]'),
        message: places['the stored records'].includes('db password [REDACTED]')
          ? 'stored, redacted'
          : places['the stored records'].includes('db password')
            ? 'stored, but its secret not redacted'
            : 'no tool output stored',
      },
    ];
  } finally {
    await host.close();
  }
}

/** Ways a store fails to read a conversation back, each with what an answer must name and its status (a POST's and a follower's alike). */
const READ_DAMAGE = [
  {
    what: 'a record the store calls corrupt',
    said: 'record seq 1 is corrupt: not JSON',
    status: 500,
    damage: (store: MemoryEventStore) => {
      throw new StoreCorruptionError(store.describe, 'order-9', 1, 'not JSON');
    },
  },
  {
    what: 'a record that does not decode as an event',
    said: 'no.such.event',
    status: 500,
    damage: async (store: MemoryEventStore, id: string, from?: number) =>
      (await MemoryEventStore.prototype.read.call(store, id, from)).map((r) => (r.seq === 1 ? { ...r, type: 'no.such.event' } : r)),
  },
  {
    what: 'a store that failed (its connection lost)',
    said: 'connection to the database lost',
    status: 503,
    damage: () => {
      throw new StoreError('connection to the database lost');
    },
  },
] as const;

/**
 * A host over a store that held one turn of `order-9` and now fails to read it back with `damage`, as after a restart
 * (review of stop 69: with the first host closed, the store was closed too, and every read answered "the store is
 * closed"; the first host is halted instead, as a process that died).
 */
async function hostOverADamagedStore(damage: (typeof READ_DAMAGE)[number]['damage']): Promise<AgentHost> {
  const store = new MemoryEventStore();
  const host = new AgentHost({ config: defaultHostConfig(), store, model: model(), agent: AGENT });
  try {
    await host.handle('order-9', 'Where is ORD-1001?');
  } finally {
    host.halt();
  }
  store.read = ((id: string, from?: number) => Promise.resolve().then(() => damage(store, id, from))) as typeof store.read;
  return new AgentHost({ config: defaultHostConfig(), store, model: model(), agent: AGENT });
}

/**
 * A follower of a conversation the store cannot read back is answered as a POST is, the server's fault: 500 for a
 * record the store calls corrupt or one it hands back that does not decode as an event, 503 for a store that failed
 * (outside probe 68: with the store's errors answered 400, "your request was wrong", every case passed; review of
 * stop 70: a failed store was answered 500 here and 503 to a POST).
 */
async function eventsStoreUnreadable(): Promise<CheckResult[]> {
  const checks: CheckResult[] = [];
  for (const { what, said, status, damage } of READ_DAMAGE) {
    const reader = await hostOverADamagedStore(damage);
    const server = createServer(eventsHandler(reader, { heartbeatMs: 0 }));
    try {
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/conversations/order-9/events`, {
        signal: AbortSignal.timeout(5_000),
      });
      const body = await response.text();
      checks.push({
        name: `${what}: ${status}`,
        passed: response.status === status && body.includes(said),
        message: `${response.status} ${body.slice(0, 200)}`,
        expected: `${status} …${said}…`,
        actual: `${response.status} ${body.slice(0, 200)}`,
      });
    } finally {
      if (server.listening) await new Promise((resolve) => server.close(resolve));
      await reader.close();
    }
  }
  return checks;
}

/**
 * A message to a conversation the store cannot read back is answered as the failure is: 500 for a damaged store (a
 * corrupt record, one that is no event: retrying cannot help), 503 for a store that failed (retry later), each naming
 * it, the message not stored (outside probe 69, host-open-corrupt-503: a corrupt store answered "retry later" passed
 * every case; only a unit test sent a message to one).
 */
async function messageToAnUnreadableConversation(): Promise<CheckResult[]> {
  const checks: CheckResult[] = [];
  for (const { what, said, status, damage } of READ_DAMAGE) {
    const reader = await hostOverADamagedStore(damage);
    try {
      const answer = await reader.handle('order-9', 'Any news on ORD-1001?');
      const error = answer.error ?? '';
      checks.push({
        name: `${what}: ${status}, naming it`,
        passed: answer.status === status && error.includes(said) && answer.turns.length === 0,
        message: `${answer.status} ${error.slice(0, 200)}`,
        expected: `${status} …${said}…`,
        actual: `${answer.status} ${error.slice(0, 200)}`,
      });
    } finally {
      await reader.close();
    }
  }
  return checks;
}

/**
 * A host config with `prices` (HostConfig.prices): each turn in the answer
 * carries its cost — what a deploy bills or meters by. Built as a deploy builds
 * it (`createHostFromConfig`); the model is the config's `default`. Three
 * turns: priced (10 input and 5 output tokens at 3 and 15 per million), a
 * token count of 2^53 − 1 (cost unknown, never a price for it), and a host whose
 * table does not name the model (unpriced, never free).
 */
async function costInTheAnswer(): Promise<CheckResult[]> {
  const config = (models: Record<string, { input: number; output: number }>) => ({ ...defaultHostConfig(), prices: { currency: 'EUR', models } });
  const turnsOf = async (models: Record<string, { input: number; output: number }>, results: ReturnType<typeof reply>[]) => {
    const host = await createHostFromConfig(config(models), {
      store: new MemoryEventStore(),
      agent: AGENT,
      modelClient: () => new ScriptedModelClient(results),
      env: {},
      recover: false,
    });
    try {
      const turns = [];
      for (let i = 0; i < results.length; i++) turns.push((await host.handle('billing-1', `Question ${i + 1}`)).turns[0]?.cost);
      return turns;
    } finally {
      await host.close();
    }
  };
  const [priced, uncounted] = await turnsOf({ default: { input: 3, output: 15 } }, [
    reply('Yes.', { inputTokens: 10, outputTokens: 5 }),
    reply('No.', { inputTokens: Number.MAX_SAFE_INTEGER, outputTokens: 5 }),
  ]);
  const [unpriced] = await turnsOf({ 'claude-sonnet-4-5': { input: 3, output: 15 } }, [reply('Maybe.', { inputTokens: 10, outputTokens: 5 })]);
  const is = (name: string, got: unknown, want: unknown): CheckResult => {
    const passed = JSON.stringify(got) === JSON.stringify(want);
    return { name, passed, message: JSON.stringify(got) ?? 'no cost', expected: JSON.stringify(want), actual: JSON.stringify(got) ?? 'no cost' };
  };
  return [
    is('a priced turn carries its cost', priced, { currency: 'EUR', amount: 0.000105, unpricedCalls: 0 }),
    is('a turn whose token count is 2^53 − 1 says its cost is unknown', uncounted, { currency: 'EUR', amount: 0, unpricedCalls: 0, uncountedCalls: 1 }),
    is('a turn on a model the table does not name is unpriced, not free', unpriced, {
      currency: 'EUR',
      amount: 0,
      unpricedCalls: 1,
      unpricedModels: ['default'],
    }),
  ];
}

/** A team's store whose `append` throws instead of rejecting (EventStore is public): the `failAt`-th append (0-based) throws. */
class ThrowingStore extends MemoryEventStore {
  #left: number;
  constructor(failAt: number) {
    super();
    this.#left = failAt;
  }
  override append(...args: Parameters<MemoryEventStore['append']>): ReturnType<MemoryEventStore['append']> {
    if (this.#left-- === 0) throw new Error('disk full (thrown, not rejected)');
    return super.append(...args);
  }
}

/**
 * A store whose append throws synchronously must be read as a refused write:
 * the message's own write (flush.ts) answers 503 with nothing stored; a turn's
 * closing write (conversation-writer.ts) answers the turn failed{persistence};
 * either way the next request is served from what the store holds.
 */
async function storeThatThrows(failAt: number): Promise<CheckResult[]> {
  const store = new ThrowingStore(failAt);
  const host = new AgentHost({ config: defaultHostConfig(), store, model: model(), agent: AGENT });
  try {
    const first = await host.handle('order-5', 'Where is ORD-1001?');
    const kept = store.count('order-5');
    const next = await host.handle('order-5', 'And ORD-1002?');
    const checks: CheckResult[] =
      failAt === 0
        ? [
            answered(
              'the message’s write threw: 503, not stored',
              first,
              503,
              'could not store the message: disk full (thrown, not rejected); the message was not stored',
            ),
            stored('nothing stored', kept, 0),
          ]
        : [
            {
              name: 'the turn’s closing write threw: the turn failed{persistence}',
              passed:
                first.status === 503 &&
                first.turns[0]?.outcome === 'failed{persistence}' &&
                (first.turns[0]?.detail ?? '').includes('the close was not persisted: the event store refused a write: disk full (thrown, not rejected)'),
              message: `${first.status} ${first.turns[0]?.outcome} ${first.turns[0]?.detail ?? ''}`,
            },
          ];
    return [
      ...checks,
      answered('the next request is served', next, 200, undefined),
      {
        name: '…by a turn of its own',
        passed: next.reply === 'Your order ships today.' && (next.turns[0]?.turn ?? -1) === (failAt === 0 ? 0 : 1),
        message: `turn ${next.turns[0]?.turn}`,
      },
    ];
  } finally {
    await host.close();
  }
}

/**
 * A store whose lock fails — the database connection lost as a turn would start
 * (PostgreSQL's advisory lock needs one): the message must be refused 503 naming
 * the lock, nothing stored, and the next request, the connection back, served.
 * The recovery sweep counts such a conversation failed, with the store's reason
 * (never recovered, never "busy": nobody else holds it). A host that ran the turn
 * without the lock would let two hosts run one conversation's turns at once.
 */
async function lockThatFails(): Promise<CheckResult[]> {
  let failures = 0;
  class LosingStore extends MemoryEventStore {
    override lock(conversationId: string, signal?: AbortSignal) {
      if (failures > 0) {
        failures--;
        return Promise.reject(new Error('connection to the database was lost'));
      }
      return super.lock(conversationId, signal);
    }
  }
  const store = new LosingStore();
  const host = new AgentHost({ config: defaultHostConfig(), store, model: model(), agent: AGENT });
  try {
    failures = 1;
    const refused = await host.handle('order-4', 'Where is ORD-1004?');
    const kept = store.count('order-4');
    const served = await host.handle('order-4', 'Where is ORD-1004?');
    failures = 1;
    const sweep = await host.recoverAll();
    return [
      answered(
        'a lock that fails is answered 503 naming it',
        refused,
        503,
        'could not take the conversation lock: connection to the database was lost; the message was not stored',
      ),
      stored('nothing stored while the lock failed', kept, 0),
      answered('the next request, the lock back, is served', served, 200, undefined),
      {
        name: 'the recovery sweep counts the conversation failed with the store’s reason',
        passed:
          sweep.failed.length === 1 &&
          sweep.failed[0]!.conversationId === 'order-4' &&
          sweep.failed[0]!.error === 'connection to the database was lost' &&
          sweep.busy.length === 0 &&
          sweep.recovered.length === 0,
        message: JSON.stringify(sweep),
      },
    ];
  } finally {
    await host.close();
  }
}

/**
 * A host built from its YAML file (`createHostFromConfig`, what `loopgate
 * serve`-style deploys and check-host read), started from another working
 * directory than the file's, as a service manager starts it: the relative
 * `store.path` and `trace.export.jsonl` are the file's folder's, and each
 * finished turn's trace is one JSON line there. Resolved against the working
 * directory instead, a host restarted from elsewhere would open an empty store
 * and recover nothing (probe 21, F6); a trace file without its line breaks is
 * one unreadable line (F3).
 */
async function hostFromItsConfigFile(): Promise<CheckResult[]> {
  const folder = mkdtempSync(join(tmpdir(), 'loopgate-host-config-'));
  const name = `contract-${folder.slice(-6)}`;
  // Where a host that resolved the paths against the working directory would write: removed after, if the case made them.
  const strays = [resolve('data'), resolve('traces')];
  const before = strays.map((path) => existsSync(path));
  const file = join(folder, 'agent.yaml');
  writeFileSync(
    file,
    [
      'model: {provider: fake, name: support-model}',
      `store: {kind: sqlite, path: data/${name}.db}`,
      'trace:',
      '  export:',
      `    jsonl: traces/${name}.jsonl`,
      '',
    ].join('\n'),
  );
  const modelClient = () => new ScriptedModelClient([reply('ORD-1001 ships today.'), reply('ORD-1002 shipped yesterday.')]);
  try {
    const host = await createHostFromConfig(file, { modelClient });
    let answers: ResponseEnvelope[];
    try {
      answers = [await host.handle('orders-1', 'Where is ORD-1001?'), await host.handle('orders-2', 'Where is ORD-1002?')];
    } finally {
      await host.close();
    }
    const storePath = join(folder, 'data', `${name}.db`);
    const tracePath = join(folder, 'traces', `${name}.jsonl`);
    const again = await createHostFromConfig(file, { modelClient });
    let reopened: number;
    try {
      reopened = (await again.events('orders-1')).length;
    } finally {
      await again.close();
    }
    const lines = existsSync(tracePath) ? readFileSync(tracePath, 'utf8').split('\n') : [];
    const traces = lines
      .filter((line) => line !== '')
      .flatMap((line) => {
        try {
          const trace = JSON.parse(line) as { traceId?: unknown; spans?: unknown };
          return typeof trace.traceId === 'string' && Array.isArray(trace.spans) ? [trace.traceId] : [];
        } catch {
          return [];
        }
      });
    return [
      answered('the first conversation is answered', answers[0]!, 200, undefined),
      answered('the second conversation is answered', answers[1]!, 200, undefined),
      {
        name: "store.path is the config file's folder's",
        passed: existsSync(storePath) && reopened > 0,
        message: existsSync(storePath)
          ? `${storePath} holds the conversation (${reopened} events read back by a host started again)`
          : `no store at ${storePath}`,
      },
      {
        name: "trace.export.jsonl holds one JSON line per finished turn, in the config file's folder",
        passed: lines.length === 3 && lines[2] === '' && traces.length === 2,
        message: existsSync(tracePath)
          ? `${lines.filter((l) => l !== '').length} line(s), ${traces.length} of them a trace, ${lines[lines.length - 1] === '' ? 'ending in a line break' : 'no line break at the end'}`
          : `no trace file at ${tracePath}`,
        expected: '2 lines, each a trace',
        actual: `${traces.length} trace line(s) of ${lines.filter((l) => l !== '').length}`,
      },
    ];
  } finally {
    rmSync(folder, { recursive: true, force: true });
    strays.forEach((path, i) => {
      if (!before[i]) rmSync(path, { recursive: true, force: true }); // a folder that was not there before the case: only the case wrote it
    });
  }
}

/**
 * An id that holds a long piece of a secret: the conversation id is the store's
 * key and every span's, the message id is stored with its message, so either
 * would be stored and exported as it is — half a password is as good as a
 * hint. The host refuses an id holding the whole secret (in any form); one
 * holding half of it (at least 8 characters: what secret-fragments-never-leave
 * counts as a leak) must be refused too, 400 naming no piece, nothing stored.
 * An id sharing only a short run with the secret (a word) is served (probe 21, F2).
 */
async function idsHoldingAPieceOfASecret(): Promise<CheckResult[]> {
  const secret = 'pay-secret-Q7vLm2Xc9RtB4nZp';
  const piece = secret.slice(0, 16);
  const store = new MemoryEventStore();
  const host = new AgentHost({ config: defaultHostConfig(), store, model: model(), agent: AGENT, secrets: [secret] });
  try {
    const byConversation = await host.handle(`orders-${piece}`, 'Where is ORD-1001?');
    const byMessage = await host.handle('orders-1', 'Where is ORD-1001?', { messageId: `m-${secret.slice(9, 25)}` });
    const ordinary = await host.handle('pay-orders', 'Where is ORD-1001?', { messageId: 'm-pay-1' });
    const conversations = await store.listConversations();
    const shown = JSON.stringify([byConversation, byMessage]);
    const shortest = Math.max(8, Math.ceil(secret.length / 2));
    let echoed = false;
    for (let start = 0; start + shortest <= secret.length; start++) if (shown.includes(secret.slice(start, start + shortest))) echoed = true;
    return [
      answered('a conversation id holding 16 of the secret’s 27 characters is refused', byConversation, 400, 'holds a secret or part of one'),
      answered('a message id holding 16 of them is refused', byMessage, 400, 'holds a secret or part of one'),
      answered('ids sharing only a word with the secret are served', ordinary, 200, undefined),
      {
        name: 'the refusals name no piece of the secret',
        passed: !echoed,
        message: echoed ? 'an answer holds a piece of the secret' : 'no piece in either answer',
      },
      {
        name: 'only the served conversation is stored',
        passed: conversations.length === 1,
        message: `${conversations.length} conversation(s) stored`,
        expected: '1',
        actual: String(conversations.length),
      },
    ];
  } finally {
    await host.close();
  }
}

export function hostCases(): Case[] {
  return [
    checksCase(
      { id: 'contract:host/store-append-throws-on-the-message', title: 'host: a store whose append throws on the message: 503, nothing stored', file: FILE },
      () => storeThatThrows(0),
    ),
    checksCase(
      { id: 'contract:host/store-append-throws-on-the-close', title: 'host: a store whose append throws on a turn’s close: failed{persistence}', file: FILE },
      () => storeThatThrows(3),
    ),
    checksCase(
      {
        id: 'contract:host/agent-factory-throws-for-a-conversation',
        title: 'host: an agent factory that throws for a conversation: 500, nothing stored, built again',
        file: FILE,
      },
      () => factoryFails('throws'),
    ),
    checksCase(
      { id: 'contract:host/agent-factory-returns-null', title: 'host: an agent factory that returns null: 500, nothing stored, built again', file: FILE },
      () => factoryFails('returns null'),
    ),
    checksCase(
      { id: 'contract:host/second-host-on-one-sqlite-file', title: 'host: a second host on a SQLite file a live host writes: 503 until it closes', file: FILE },
      secondHostOnOneFile,
    ),
    checksCase(
      { id: 'contract:host/store-lock-fails', title: 'host: a store whose lock fails: 503 naming it, nothing stored, served after', file: FILE },
      lockThatFails,
    ),
    checksCase(
      { id: 'contract:host/close-while-a-turn-runs', title: 'host: close() cancels a running turn, stores and exports it, then closes the store', file: FILE },
      closeWhileATurnRuns,
    ),
    checksCase(
      { id: 'contract:host/close-ends-followers', title: 'host: close() ends a follower kept open for later turns, after what was stored', file: FILE },
      closeEndsFollowers,
    ),
    checksCase(
      {
        id: 'contract:host/close-with-a-message-waiting-stores-it',
        title: 'host: close() as a turn closes, with a message posted behind it: stored, answered 503 queued, no turn started',
        file: FILE,
      },
      closeWithAMessageWaiting,
    ),
    checksCase(
      {
        id: 'contract:host/close-with-a-message-waiting-whose-write-fails',
        title: 'host: close() as a turn closes, with a message posted behind it whose write fails: answered 503 not stored, no turn started',
        file: FILE,
      },
      closeWithAMessageWaitingWhoseWriteFails,
    ),
    checksCase(
      {
        id: 'contract:host/events-stream-bad-requests',
        title: 'host: the SSE handler answers a bad method, id or from at once; a from streams from there',
        file: FILE,
        secrets: [SSE_SECRET],
      },
      eventsRequests,
    ),
    checksCase(
      {
        id: 'contract:host/events-stream-store-unreadable',
        title:
          'host: the SSE handler answers as a POST when the store cannot read the conversation back: 500 for a corrupt record or one that is no event, 503 for a failed store',
        file: FILE,
      },
      eventsStoreUnreadable,
    ),
    checksCase(
      {
        id: 'contract:host/message-to-an-unreadable-conversation',
        title: 'host: a message to a conversation the store cannot read back is answered 500 for a damaged store, 503 for a failed one, naming it',
        file: FILE,
      },
      messageToAnUnreadableConversation,
    ),
    checksCase(
      { id: 'contract:host/turn-cost-in-the-answer', title: 'host: with prices in its config, each turn in the answer carries its cost', file: FILE },
      costInTheAnswer,
    ),
    checksCase(
      {
        id: 'contract:host/paths-of-its-config-file-and-one-trace-per-line',
        title: "host: built from its YAML elsewhere, its store and trace file are the file's folder's, one JSON line per turn",
        file: FILE,
      },
      hostFromItsConfigFile,
    ),
    checksCase(
      {
        id: 'contract:host/built-without-config-or-store-refused',
        title: 'host: built without its config or store (plain JavaScript), or with no options: refused in one line naming what is missing',
        file: FILE,
      },
      builtWithoutConfigOrStore,
    ),
    checksCase(
      {
        id: 'contract:host/agent-and-host-secrets-both-redacted',
        title: "host: the host's secrets add to the agent's own: both redacted in what is stored, sent to the model and answered",
        file: FILE,
        secrets: [AGENT_SECRET, HOST_SECRET],
      },
      agentAndHostSecrets,
    ),
    checksCase(
      {
        id: 'contract:host/ids-holding-a-piece-of-a-secret-refused',
        title: 'host: a conversation or message id holding half of a secret is refused 400, naming no piece, nothing stored',
        file: FILE,
      },
      idsHoldingAPieceOfASecret,
    ),
  ];
}
