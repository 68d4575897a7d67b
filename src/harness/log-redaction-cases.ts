/**
 * A log's own redactor as a case of `loopgate run`: `contract:log/<id>`.
 *
 * An `EventLog` given a `redact` keeps it (the loop's `redactWith` only fills
 * a log that has none): "no secret the redactor knows is stored, whoever
 * appends". The tool pipeline redacts a call's arguments and output with the
 * loop's redactor and hands the log that copy, which the log may keep as it is
 * only when its own redactor made it. Here the two differ — the log's knows a
 * secret the agent's does not, as when a team opens the log with its own
 * redactor, or the production host has learned another agent's secrets since
 * it built this conversation's tools — and the tool's arguments and output
 * hold both secrets. Neither may be stored.
 *
 * The stream redactor holds back the tail of a model's streamed text (a secret
 * may still be arriving); a tool call's start ends the text (loop/delta-streams.ts),
 * so what it held is stored then, before the call's start: a UI following the
 * log shows the model's words before the call, as the model streamed them.
 */
import { z } from 'zod';
import { call, reply, toolUse } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import {
  AgentLoop,
  createRedactor,
  decodeRecords,
  defineTool,
  EventLog,
  loopDeps,
  toRecord,
  type Agent,
  type AnyEvent,
  type EventRecord,
  type LogEvent,
} from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { checksCase, type Case } from './cases.ts';
import { VirtualClock } from './virtual-clock.ts';
import { refundThenCancel } from './world/refund-then-cancel.ts';

const LOG_SECRET = 'pk_team_LogOnly7Qx2Zr9Vb3NmK8';
const AGENT_SECRET = 'sk_live_AgentOnly4eC39HqLyjWD';

async function ownRedactorKeptForToolData(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const log = new EventLog(clock, [], { redact: createRedactor({ secrets: [LOG_SECRET, AGENT_SECRET] }) });
  const agent: Agent = {
    secrets: [AGENT_SECRET],
    tools: [
      defineTool({
        name: 'read_settings',
        description: 'Read a setting.',
        input: z.object({ key: z.string() }),
        sideEffect: 'NONE',
        run: ({ key }) => ({ setting: key, value: `team token ${LOG_SECRET}, payment key ${AGENT_SECRET}` }),
      }),
    ],
  };
  const model = new ScriptedModelClient([toolUse([call('read', 'read_settings', { key: `token ${LOG_SECRET}` })]), reply('The settings are read.')], { clock });
  const loop = new AgentLoop(loopDeps({ log, model, agent }));
  loop.send('Read my settings.', { id: 'ask' });
  const [result] = await loop.drain();
  const stored = JSON.stringify(log.events);
  const outputs = log.events.filter((e) => e.type === 'tool.result' || e.type === 'tool.call.started' || e.type === 'assistant.message');
  const checks: CheckResult[] = [];
  const kind = result?.outcome.kind;
  checks.push({ name: 'replied', passed: kind === 'replied', message: `outcome ${String(kind)}`, expected: 'replied', actual: String(kind) });
  const ran = stored.includes('read_settings') && stored.includes('team token [REDACTED]');
  checks.push({
    name: 'the tool ran and its output was stored',
    passed: ran,
    message: ran ? `${outputs.length} event(s) of the call` : 'no stored output of read_settings (the case would test nothing)',
  });
  const logOnly = stored.includes(LOG_SECRET);
  checks.push({
    name: "no secret only the log's redactor knows is stored",
    passed: !logOnly,
    message: logOnly
      ? "the log stored the tool's arguments or output with a secret its own redactor knows (shared as the agent's redactor left them)"
      : 'none stored',
  });
  const agentOnly = stored.includes(AGENT_SECRET);
  checks.push({ name: 'no agent secret is stored', passed: !agentOnly, message: agentOnly ? 'the log stored an agent secret' : 'none stored' });
  return checks;
}

/**
 * A log opened with its own redactor that changes a word the loop writes (a
 * team's redactor told "sideEffect" is a secret): every `tool.started` would be
 * stored with a "[REDACTED]" key, and readers of the history would find no side
 * effect level. The loop refuses the log before anything runs, as it refuses
 * such a redactor handed to `loopDeps` itself, with the line saying which word.
 */
async function garblingLogRedactorRefused(): Promise<CheckResult[]> {
  return garblingRedactorRefused('log');
}

/** The same redactor handed to `loopDeps` itself (`LoopDepsInput.redact`), on a log without one: refused the same way, the line without "the log's". */
async function garblingLoopRedactorRefused(): Promise<CheckResult[]> {
  return garblingRedactorRefused('loop');
}

/**
 * A redactor that changes many of the loop's words (a team told "message" is a secret: "assistant.message",
 * "user.message", "message"…) is refused naming the longest of them, the most telling one, as the loop's words are
 * asked longest first (mutation seed 41, vocabulary.ts: the words left in the order they were gathered, so the line
 * named another word; every case's redactor changed one word).
 */
async function garblingManyWordsNamesTheLongest(): Promise<CheckResult[]> {
  return garblingRedactorRefused('log', 'message', 'assistant.message');
}

async function garblingRedactorRefused(whose: 'log' | 'loop', secret = 'sideEffect', word = secret): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const garbling = createRedactor({ secrets: [secret] });
  const log = whose === 'log' ? new EventLog(clock, [], { redact: garbling }) : new EventLog(clock);
  const agent: Agent = {
    tools: [
      defineTool({ name: 'add_note', description: 'Add a note.', input: z.object({ text: z.string() }), sideEffect: 'IDEMPOTENT', run: () => ({ ok: true }) }),
    ],
  };
  const model = new ScriptedModelClient([toolUse([call('note', 'add_note', { text: 'call back' })]), reply('Noted.')], { clock });
  const expected = `${whose === 'log' ? "the log's " : ''}redact changes ${JSON.stringify(word)}, a word the loop writes into its records (a field name, status or event type): it would garble every record; redact credentials only`;
  let refused: string | undefined;
  try {
    const loop = new AgentLoop(loopDeps(whose === 'log' ? { log, model, agent } : { log, model, agent, redact: garbling }));
    loop.send('Note that the customer wants a call back.', { id: 'ask' });
    await loop.drain();
  } catch (error) {
    refused = error instanceof Error ? error.message : String(error);
  }
  const garbled = log.events.filter((e) => JSON.stringify(e.payload).includes('[REDACTED]')).map((e) => e.type);
  return [
    {
      name: 'refused with the word it garbles',
      passed: refused === expected,
      message: refused === undefined ? `accepted: ${log.events.length} event(s) stored, garbled: ${garbled.join(', ') || 'none'}` : `refused: ${refused}`,
      expected,
      actual: refused ?? 'accepted',
    },
    { name: 'nothing stored', passed: log.events.length === 0, message: `${log.events.length} event(s) stored` },
  ];
}

/**
 * A model streams a sentence, then a tool call. Everything the stream redactor
 * held of the sentence must be stored when the call starts: the stored deltas, in
 * order, are the whole sentence, then the call's start, then its arguments — not
 * the call first and the sentence's tail only when the model call ends.
 */
async function heldTextStoredBeforeTheCall(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const log = new EventLog(clock);
  const text = 'Let me look that order up for you.';
  const args = '{"order_id":"ORD-1002"}';
  const agent: Agent = {
    tools: [
      defineTool({
        name: 'lookup_order',
        description: 'Look an order up.',
        input: z.object({ order_id: z.string() }),
        sideEffect: 'NONE',
        run: ({ order_id }) => ({ id: order_id, status: 'shipped' }),
      }),
    ],
  };
  const streamed = {
    result: toolUse([call('look', 'lookup_order', { order_id: 'ORD-1002' })], text),
    deltas: [
      { kind: 'text' as const, text: 'Let me look ' },
      { kind: 'text' as const, text: 'that order up for you.' },
      { kind: 'tool_call_start' as const, index: 0, id: 'look', name: 'lookup_order' },
      { kind: 'tool_args' as const, index: 0, json: '{"order_id":' },
      { kind: 'tool_args' as const, index: 0, json: '"ORD-1002"}' },
    ],
  };
  const model = new ScriptedModelClient([streamed, reply('ORD-1002 has shipped.')], { clock });
  const loop = new AgentLoop(loopDeps({ log, model, agent }));
  loop.send('Where is ORD-1002?', { id: 'ask' });
  const [result] = await loop.drain();
  const deltas = log.events
    .filter((e): e is Extract<LogEvent, { type: 'model.delta' }> => !e.opaque && e.type === 'model.delta')
    .filter((e) => e.payload.step === 1)
    .map((e) => e.payload.delta as { kind: string; text?: string; json?: string; name?: string });
  const start = deltas.findIndex((d) => d.kind === 'tool_call_start');
  const join = (from: readonly (typeof deltas)[number][], kind: string) =>
    from
      .filter((d) => d.kind === kind)
      .map((d) => d.text ?? d.json ?? '')
      .join('');
  const before = start < 0 ? [] : deltas.slice(0, start);
  const after = start < 0 ? deltas : deltas.slice(start + 1);
  const order = deltas.map((d) => d.kind).join(', ');
  const kind = result?.outcome.kind;
  return [
    { name: 'replied', passed: kind === 'replied', message: `outcome ${String(kind)}`, expected: 'replied', actual: String(kind) },
    {
      name: "the call's start is stored",
      passed: start >= 0,
      message: start >= 0 ? `stored deltas: ${order}` : `no tool_call_start among the stored deltas (${order || 'none'})`,
    },
    {
      name: 'the whole sentence is stored before the call starts',
      passed: start >= 0 && join(before, 'text') === text && join(after, 'text') === '',
      message: `before the call's start: ${JSON.stringify(join(before, 'text'))}; after it: ${JSON.stringify(join(after, 'text'))} (stored deltas: ${order})`,
      expected: JSON.stringify(text),
      actual: JSON.stringify(join(before, 'text')),
    },
    {
      name: "the call's arguments are stored after its start, whole",
      passed: start >= 0 && join(after, 'tool_args') === args && join(before, 'tool_args') === '',
      message: `after the call's start: ${JSON.stringify(join(after, 'tool_args'))}`,
      expected: args,
      actual: join(after, 'tool_args'),
    },
  ];
}

/**
 * Two secrets whose encoded forms overlap: the hex digits of a password of
 * non-ASCII letters ("Ġ" is C4 A0 in UTF-8) hold the base64 of a shorter-looking
 * but longer token ("kG8…" encodes as "a0c4…"). The redactor replaces the forms
 * longest first; replacing the token's base64 first cuts the password's hex
 * apart, so the hex no longer matches and its ends are stored beside the
 * marks. A tool that dumps the password as hex (as a key store prints a
 * Buffer) must have it stored, and read by the model, as one mark.
 */
const HEX_PASSWORD = 'Ġ'.repeat(12);
const BASE64_TOKEN = 'kG8'.repeat(5);

async function overlappingEncodedFormsRedactedWhole(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const hex = Buffer.from(HEX_PASSWORD, 'utf8').toString('hex');
  const agent: Agent = {
    secrets: [HEX_PASSWORD, BASE64_TOKEN],
    tools: [
      defineTool({
        name: 'dump_key',
        description: 'Dump the stored key as hex.',
        input: z.object({ name: z.string() }),
        sideEffect: 'NONE',
        run: () => ({ key: hex }),
      }),
    ],
  };
  const model = new ScriptedModelClient([toolUse([call('dump', 'dump_key', { name: 'vault' })]), reply('The key is dumped.')], { clock });
  const log = new EventLog(clock);
  const loop = new AgentLoop(loopDeps({ log, model, agent }));
  loop.send('Dump the vault key.', { id: 'ask' });
  const [result] = await loop.drain();
  const checks: CheckResult[] = [];
  const kind = result?.outcome.kind;
  checks.push({ name: 'replied', passed: kind === 'replied', message: `outcome ${String(kind)}`, expected: 'replied', actual: String(kind) });
  const stored = log.events.find((e): e is Extract<LogEvent, { type: 'tool.result' }> => e.type === 'tool.result');
  const expected = '{"key":"[REDACTED]"}';
  const actual = stored === undefined ? 'no tool.result stored' : stored.payload.content;
  checks.push({
    name: 'the hex dump is stored as one mark',
    passed: actual === expected,
    message: actual === expected ? expected : `expected ${expected}, got ${actual}`,
    expected,
    actual,
  });
  const read = JSON.stringify(model.requests[1]?.messages ?? 'no second request');
  const leaked = read.includes('c4a0') || read.includes('a0c4') || !read.includes('[REDACTED]');
  checks.push({
    name: 'the model reads it as one mark',
    passed: !leaked,
    message: leaked ? `the second request: ${read.slice(0, 400)}` : 'no fragment of the hex',
  });
  return checks;
}

/**
 * A log whose own redactor throws on a text the loop writes only when a turn
 * closes (a team's redaction service refusing a sentence): the turn is cancelled
 * while the first of two STATEFUL calls runs, so the second is closed NOT_RUN at
 * the close, and that write throws. The loop never throws: the turn fails
 * `internal` saying closing it failed. What its result lists as returned to the
 * inbox must be what the log returns (here nothing: no `inbox.returned`), not a
 * message id that does not exist. And the turn is not left open: the log closes it
 * with that outcome (mutation seed 43, runner.ts: the fallback close removed, and
 * the case read the result alone).
 */
async function closeFailingRedactorReturnsWhatTheLogReturns(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const redact = (text: string): string => {
    if (text.includes(' was not run: ')) throw new Error('the redaction service refused the text');
    return text;
  };
  const log = new EventLog(clock, [], { redact });
  const [result] = await refundThenCancel(log, clock).drain();
  const outcome = result === undefined ? 'no result' : JSON.stringify(result.outcome);
  const detail = result?.outcome.kind === 'failed' ? result.outcome.detail : undefined;
  const closedByFallback = detail?.startsWith('closing the turn failed: ') === true;
  const logged = (log.events as readonly LogEvent[]).flatMap((e) => (e.type === 'inbox.returned' && e.payload.turn === 0 ? e.payload.ids : []));
  const expected = JSON.stringify(logged);
  const actual = JSON.stringify(result?.returnedToInbox ?? null);
  // The turn is never left open: the log closes it with the outcome the result gives (the fallback close).
  const closes = (log.events as readonly LogEvent[]).flatMap((e) =>
    e.type === 'turn.closed' && e.payload.turn === 0 ? [JSON.stringify(e.payload.outcome)] : [],
  );
  const closedAs = `${closes.length} turn.closed${closes.length > 0 ? `, ${closes.join(' ')}` : ''}; open turn ${String(log.positions.openTurn ?? 'none')}`;
  const wantClosed = `1 turn.closed, ${outcome}; open turn none`;
  return [
    {
      name: 'the log closes the turn once, with the outcome the result gives',
      passed: closedAs === wantClosed,
      message: closedAs === wantClosed ? closedAs : `expected ${wantClosed}, got ${closedAs}`,
      expected: wantClosed,
      actual: closedAs,
    },
    {
      name: 'the turn fails internal, saying closing it failed',
      passed: closedByFallback,
      message: closedByFallback ? outcome : `expected failed{internal} "closing the turn failed: …" (the case would test nothing), got ${outcome}`,
    },
    {
      name: 'the result lists as returned to the inbox what the log returns',
      passed: actual === expected,
      message: actual === expected ? `returned ${actual}` : `the result lists ${actual}, the log returns ${expected}`,
      expected,
      actual,
    },
  ];
}

/**
 * A log whose own redactor throws on an empty text (a team's redaction service
 * refusing empty input). A message posted as a turn closes is stored before the
 * next turn starts; the store refuses that write, so the next turn opens on
 * nothing — a `turn.opened` with an empty trigger, which the redactor refuses.
 * The turn never opened: it must fail `internal` naming what refused it, not
 * blame a close that never happened ("no turn is open … closed twice?"). It took
 * nothing, so the drain stops there rather than start the same turn again (with
 * a store still down and a redactor still refusing, it would spin): the second
 * message waits, pending, for the next drain (mutation seed 38, runner.ts: the
 * drain's "all of it pending again" stop emptied, and no case noticed a third
 * turn).
 */
async function unopenedTurnFailsNamingWhy(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const refusal = 'the redaction service refused an empty text';
  const redact = (text: string): string => {
    if (text === '') throw new Error(refusal);
    return text;
  };
  const log = new EventLog(clock, [], { redact });
  const loop: { current?: AgentLoop } = {};
  let writes = 0;
  const persist = async (): Promise<void> => {
    const last = log.events.at(-1);
    if (writes === 0 && last?.type === 'turn.closed') {
      writes++;
      queueMicrotask(() => loop.current?.send('And the second?', { id: 'm2' })); // posted as turn 0 closes
      return;
    }
    if (writes === 1 && log.positions.openTurn === undefined && last?.type === 'inbox.received') {
      writes++;
      throw new Error('the store is down'); // the write before turn 1
    }
  };
  const model = new ScriptedModelClient([reply('First done.'), reply('Second done.')], { clock });
  loop.current = new AgentLoop(loopDeps({ log, model, agent: {}, persist }));
  loop.current.send('First.', { id: 'm1' });
  const results = await loop.current.drain();
  const second = results[1];
  const outcome = second === undefined ? 'no second turn' : JSON.stringify(second.outcome);
  const reached = writes === 2;
  const detail = second?.outcome.kind === 'failed' && second.outcome.reason === 'internal' ? (second.outcome.detail ?? '') : '';
  const named = detail.includes(refusal);
  const stopped = `${results.length} turn(s), m2 ${log.positions.inboxState('m2') ?? 'unknown'}`;
  return [
    {
      name: "the store refused the write before turn 1 (the case's path)",
      passed: reached && second !== undefined,
      message: reached ? outcome : `the store was written ${writes} time(s) the case counts, not 2 (the case would test nothing)`,
    },
    {
      name: 'the turn that could not open fails internal, naming why',
      passed: named,
      message: named ? outcome : `expected failed{internal} naming "${refusal}", got ${outcome}`,
      expected: refusal,
      actual: outcome,
    },
    {
      name: 'the drain stops after the turn that took nothing, the second message still pending',
      passed: stopped === '2 turn(s), m2 pending',
      message: stopped,
      expected: '2 turn(s), m2 pending',
      actual: stopped,
    },
  ];
}

/**
 * A log whose own redactor throws on a text only a tool's structured output
 * holds (a team's redaction service refusing an internal audit trail), while
 * the text the model reads (`renderForModel`) passes. The call ran and its
 * result is owed: the log keeps it without the output, the model reads the
 * rendered text, and the turn goes on to its reply.
 */
async function outputTheLogRefusesStoredWithout(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const refused = 'AUDIT-TRAIL';
  const redact = (text: string): string => {
    if (text.includes(refused)) throw new Error('the redaction service refused the text');
    return text;
  };
  const log = new EventLog(clock, [], { redact });
  const agent: Agent = {
    tools: [
      defineTool({
        name: 'read_setting',
        description: 'Read a setting.',
        input: z.object({ key: z.string() }),
        output: z.object({ key: z.string(), value: z.string(), trail: z.string() }),
        sideEffect: 'NONE',
        run: ({ key }) => ({ key, value: 'dark', trail: `${refused} 7 read by support` }),
        renderForModel: (o) => `${o.key} is ${o.value}`,
      }),
    ],
  };
  const model = new ScriptedModelClient([toolUse([call('read', 'read_setting', { key: 'theme' })]), reply('Your theme is dark.')], { clock });
  const loop = new AgentLoop(loopDeps({ log, model, agent }));
  loop.send('Which theme do I use?', { id: 'ask' });
  const [result] = await loop.drain();
  const outcome = result === undefined ? 'no result' : JSON.stringify(result.outcome);
  const results = (log.events as readonly LogEvent[]).flatMap((e) => (e.type === 'tool.result' ? [e.payload] : []));
  const stored = JSON.stringify(results.map(({ callId, name, status, content, output }) => ({ callId, name, status, content, output })));
  const expected = JSON.stringify([{ callId: 'read', name: 'read_setting', status: 'ok', content: 'theme is dark' }]);
  const read = JSON.stringify(model.requests[1]?.messages.at(-1) ?? null);
  return [
    {
      name: 'replied',
      passed: result?.outcome.kind === 'replied',
      message: outcome,
      expected: 'replied',
      actual: String(result?.outcome.kind),
    },
    {
      name: 'the call keeps its one result, stored without the output the redactor refused',
      passed: stored === expected,
      message: stored === expected ? stored : `stored ${stored}`,
      expected,
      actual: stored,
    },
    {
      name: 'the model read the rendered text',
      passed: read.includes('theme is dark') && !read.includes(refused),
      message: read,
    },
  ];
}

/**
 * Tools whose output is a value JSON writes as a bare string, number or boolean:
 * a `Date` (the next delivery), a money class whose `toJSON` gives the amount, a
 * feature-flag SDK's value whose `toJSON` gives the flag, and a connection handle
 * whose `toJSON` names it — with the database password in it, a secret of
 * the agent. The log keeps each output as JSON writes it, redacted (the
 * password `[REDACTED]` in the stored output too, not only in the text the model
 * reads, though the log was opened with a redactor of its own that knows no
 * secret of the agent's), never refusing it as not plain data; the model reads
 * the same text.
 */
async function outputsJsonWritesAsALeafKept(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const password = 'pg-Hq7rT2vLx9Wm4Kd8';
  class Money {
    readonly cents: number;
    constructor(cents: number) {
      this.cents = cents;
    }
    toJSON(): number {
      return this.cents / 100;
    }
  }
  class Flag {
    readonly key: string;
    readonly on: boolean;
    constructor(key: string, on: boolean) {
      this.key = key;
      this.on = on;
    }
    toJSON(): boolean {
      return this.on;
    }
  }
  class Connection {
    readonly url: string;
    constructor(url: string) {
      this.url = url;
    }
    toJSON(): string {
      return this.url;
    }
  }
  const leaf = (name: string, run: () => unknown) =>
    defineTool({ name, description: `Read ${name}.`, input: z.object({ order_id: z.string() }), sideEffect: 'NONE', run });
  const agent: Agent = {
    secrets: [password],
    tools: [
      leaf('next_delivery', () => new Date(Date.UTC(2026, 10, 2, 9, 0, 0))),
      leaf('refundable_amount', () => new Money(12050)),
      leaf('express_enabled', () => new Flag('express', true)),
      leaf('orders_database', () => new Connection(`orders-db, signed in as app with ${password}`)),
    ],
  };
  const args = { order_id: 'ORD-1001' };
  const model = new ScriptedModelClient(
    [
      toolUse([
        call('when', 'next_delivery', args),
        call('much', 'refundable_amount', args),
        call('flag', 'express_enabled', args),
        call('db', 'orders_database', args),
      ]),
      reply('It arrives on 2 November; 120.50 can be refunded.'),
    ],
    { clock },
  );
  // The host opens the log with a redactor of its own (e-mail addresses, for its store): the agent's
  // secrets are then redacted by the tool pipeline alone, as it makes the output the log keeps.
  const log = new EventLog(clock, [], { redact: (text: string) => text.replace(/[\w.+-]+@[\w-]+\.[\w.]+/g, '[EMAIL]') });
  const loop = new AgentLoop(loopDeps({ log, model, agent, clock }));
  loop.send('When does ORD-1001 arrive, and what can be refunded?', { id: 'ask' });
  const [result] = await loop.drain();
  const results = (log.events as readonly LogEvent[]).flatMap((e) => (e.type === 'tool.result' ? [e.payload] : []));
  const stored = JSON.stringify(results.map(({ callId, status, content, output }) => ({ callId, status, content, output })));
  const url = 'orders-db, signed in as app with [REDACTED]';
  const expected = JSON.stringify([
    { callId: 'when', status: 'ok', content: '2026-11-02T09:00:00.000Z', output: '2026-11-02T09:00:00.000Z' },
    { callId: 'much', status: 'ok', content: '120.5', output: 120.5 },
    { callId: 'flag', status: 'ok', content: 'true', output: true },
    { callId: 'db', status: 'ok', content: url, output: url },
  ]);
  const read = JSON.stringify(model.requests[1]?.messages.at(-1) ?? null);
  return [
    {
      name: 'replied',
      passed: result?.outcome.kind === 'replied',
      message: result === undefined ? 'no result' : JSON.stringify(result.outcome),
      expected: 'replied',
      actual: String(result?.outcome.kind),
    },
    {
      name: 'each output is stored as JSON writes it, redacted',
      passed: stored === expected,
      message: stored === expected ? stored : `stored ${stored}`,
      expected,
      actual: stored,
    },
    {
      name: 'the model read the same texts, the password never',
      passed: ['2026-11-02T09:00:00.000Z', '120.5', 'true', url].every((t) => read.includes(t)) && !read.includes(password),
      message: read,
    },
  ];
}

/**
 * Payloads another log already froze, appended to a log opened with a redactor: a team copying a conversation into
 * a log of its own (a fork, a migration), from a log that has no redactor, or from records its store hands back,
 * decoded. The copied payloads are frozen plain data the kernel made moments ago (decode.ts, `toFrozenPlainData`
 * without a redactor), but the new log's redactor has not seen them: "no secret the redactor knows is stored,
 * whoever appends". A log that kept them as they are (mutation seed 39, plain-data.ts: a recent value shared under
 * any redactor) would store the secret.
 */
async function payloadsAnotherLogFrozeRedacted(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const source = new EventLog(clock);
  source.append('inbox.received', { id: 'm1', intent: 'follow_up', text: `my card token is ${LOG_SECRET}`, source: 'user' });
  source.append('inbox.received', { id: 'm2', intent: 'follow_up', text: `and the payment key ${AGENT_SECRET}`, source: 'user' });
  const records = JSON.parse(JSON.stringify(source.events.map((e) => toRecord(e)))) as EventRecord[];
  const froms: [string, () => readonly AnyEvent[]][] = [
    ['the events of a log without a redactor', () => source.events],
    ["a store's records, decoded", () => decodeRecords(records, 'a store without a redactor')],
  ];
  const checks: CheckResult[] = [];
  for (const [from, events] of froms) {
    const copy = new EventLog(clock, [], { redact: createRedactor({ secrets: [LOG_SECRET, AGENT_SECRET] }) });
    let actual: string;
    try {
      for (const e of events()) copy.append((e as LogEvent).type, (e as LogEvent).payload as never);
      actual = JSON.stringify(copy.events.map((e) => (e as Extract<LogEvent, { type: 'inbox.received' }>).payload.text));
    } catch (error) {
      actual = `threw ${(error as Error).message}`;
    }
    const expected = JSON.stringify(['my card token is [REDACTED]', 'and the payment key [REDACTED]']);
    checks.push({
      name: `${from}, appended: stored redacted`,
      passed: actual === expected,
      message: actual === expected ? actual : `stored ${actual}`,
      expected,
      actual,
    });
  }
  return checks;
}

export function logRedactionCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:log/unopened-turn-fails-naming-why',
        title: "log: a turn whose open the log's redactor refuses fails internal naming the refusal, not a close that never happened",
        file: 'src/harness/log-redaction-cases.ts',
      },
      unopenedTurnFailsNamingWhy,
    ),
    checksCase(
      {
        id: 'contract:log/close-failing-redactor-returns-what-the-log-returns',
        title: 'log: a log redactor that throws as a turn closes fails the turn internal, and its result returns to the inbox only what the log returns',
        file: 'src/harness/log-redaction-cases.ts',
      },
      closeFailingRedactorReturnsWhatTheLogReturns,
    ),
    checksCase(
      {
        id: 'contract:log/own-redactor-applies-to-tool-data',
        title: "log: a log's own redactor applies to a tool's arguments and output the loop redacted with another",
        file: 'src/harness/log-redaction-cases.ts',
        secrets: [LOG_SECRET, AGENT_SECRET],
      },
      ownRedactorKeptForToolData,
    ),
    checksCase(
      {
        id: 'contract:log/payloads-another-log-froze-redacted',
        title: "log: payloads another log froze (a log without a redactor, a store's records decoded), appended to a log with a redactor, are stored redacted",
        file: 'src/harness/log-redaction-cases.ts',
        secrets: [LOG_SECRET, AGENT_SECRET],
      },
      payloadsAnotherLogFrozeRedacted,
    ),
    checksCase(
      {
        id: 'contract:log/own-redactor-garbling-a-log-word-refused',
        title: 'log: a log whose own redactor changes a word the loop writes is refused before anything runs',
        file: 'src/harness/log-redaction-cases.ts',
      },
      garblingLogRedactorRefused,
    ),
    checksCase(
      {
        id: 'contract:log/loop-redactor-garbling-a-log-word-refused',
        title: 'log: a redactor handed to loopDeps that changes a word the loop writes is refused before anything runs',
        file: 'src/harness/log-redaction-cases.ts',
      },
      garblingLoopRedactorRefused,
    ),
    checksCase(
      {
        id: 'contract:log/redactor-garbling-many-words-names-the-longest',
        title: 'log: a redactor that changes many words the loop writes is refused naming the longest of them',
        file: 'src/harness/log-redaction-cases.ts',
      },
      garblingManyWordsNamesTheLongest,
    ),
    checksCase(
      {
        id: 'contract:log/held-text-stored-before-the-call-starts',
        title: "log: a model's streamed text, held back by the stream redactor, is stored whole when a tool call starts, before the call",
        file: 'src/harness/log-redaction-cases.ts',
      },
      heldTextStoredBeforeTheCall,
    ),
    checksCase(
      {
        id: 'contract:log/overlapping-encoded-forms-redacted-whole',
        title: "log: a secret's hex form holding another secret's base64 form is stored, and read by the model, as one mark",
        file: 'src/harness/log-redaction-cases.ts',
      },
      overlappingEncodedFormsRedactedWhole,
    ),
    checksCase(
      {
        id: 'contract:log/output-the-log-refuses-stored-without',
        title: "log: a tool output the log's redactor refuses is stored without it; the call keeps its result and the turn replies",
        file: 'src/harness/log-redaction-cases.ts',
      },
      outputTheLogRefusesStoredWithout,
    ),
    checksCase(
      {
        id: 'contract:log/output-json-writes-as-a-leaf-kept',
        title: 'log: a tool output JSON writes as a bare string, number or boolean (a Date, a toJSON) is stored as JSON writes it, redacted',
        file: 'src/harness/log-redaction-cases.ts',
      },
      outputsJsonWritesAsALeafKept,
    ),
  ];
}
