/**
 * A conversation reopened from a snapshot of its derived state, as a case of
 * `loopgate run`: `contract:snapshot/<id>`.
 *
 * Reopening reads the snapshot and the tail (docs/storage.md): the log's prefix
 * is read from the store on demand, and the loop's folds start from the
 * snapshot, so a turn after the reopen walks only the tail. A fold that ignored
 * its seed and folded again from seq 0 would compute the same numbers — and
 * read the whole conversation back from the store at the first step, every
 * reopen, which is what the snapshot is there to spare. The scenarios' stores
 * hand the prefix back without counting its reads, so no scenario can tell;
 * here the prefix is a store that counts them.
 */
import { reply } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import {
  AgentLoop,
  decodeRecords,
  EventLog,
  loopDeps,
  resumeFromSnapshot,
  SnapshotMismatch,
  snapshotOf,
  toRecord,
  undoCompaction,
  type Agent,
  type AnyEvent,
  type EventRecord,
  type LogPrefix,
  type LoopSnapshot,
} from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { checksCase, type Case } from './cases.ts';
import { VirtualClock } from './virtual-clock.ts';

const AGENT: Agent = { system: 'You track orders.' };
const BUDGET = 300;

/**
 * Two turns of 150 tokens spend the session budget; the conversation is reopened
 * from a snapshot taken after them, and a third question must be refused
 * budget_exhausted, no request sent, no event of the prefix read.
 */
async function sessionBudgetReopenedReadsOnlyTheTail(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const usage = { inputTokens: 120, outputTokens: 30 };
  const first = new EventLog(clock);
  const before = new AgentLoop(
    loopDeps({
      log: first,
      agent: AGENT,
      clock,
      config: { maxTokensPerSession: BUDGET },
      model: new ScriptedModelClient([reply('ORD-1001 was delivered.', usage), reply('ORD-1002 has shipped.', usage)], { clock }),
    }),
  );
  before.send('Where is ORD-1001?', { id: 'q1' });
  before.send('And ORD-1002?', { id: 'q2' });
  await before.drain();
  const stored: readonly AnyEvent[] = first.events;
  const snapshot = JSON.parse(JSON.stringify(snapshotOf(before, first))) as LoopSnapshot;

  const loads: string[] = [];
  const prefix: LogPrefix = {
    upTo: snapshot.upTo,
    last: stored[snapshot.upTo - 1],
    load: (from, to) => {
      loads.push(`[${from}, ${to})`);
      return stored.slice(from, to);
    },
  };
  const log = resumeFromSnapshot(clock, snapshot, prefix, []);
  const model = new ScriptedModelClient([reply('never requested', usage)], { clock });
  const after = new AgentLoop(loopDeps({ log, agent: AGENT, clock, config: { maxTokensPerSession: BUDGET }, model }));
  after.send('And ORD-1003?', { id: 'q3' });
  const [result] = await after.drain();
  const outcome = result?.outcome;
  const label = outcome === undefined ? 'none' : outcome.kind === 'failed' ? `failed{${outcome.reason}}` : outcome.kind;
  const spent = snapshotOf(after, log).sessionTokens.total;
  return [
    {
      name: 'the third question is refused budget_exhausted',
      passed: label === 'failed{budget_exhausted}',
      message: `outcome ${label}`,
      expected: 'failed{budget_exhausted}',
      actual: label,
    },
    { name: 'no request sent', passed: model.calls === 0, message: `${model.calls} request(s)`, expected: '0', actual: String(model.calls) },
    {
      name: 'the tokens spent are remembered',
      passed: spent === 2 * (usage.inputTokens + usage.outputTokens),
      message: `session tokens ${spent}`,
      expected: String(2 * (usage.inputTokens + usage.outputTokens)),
      actual: String(spent),
    },
    {
      name: "no event of the snapshot's prefix read from the store",
      passed: loads.length === 0,
      message: loads.length === 0 ? 'none read' : `the prefix (${snapshot.upTo} events) read back: ${loads.join(', ')}`,
      expected: 'none read',
      actual: loads.join(', ') || 'none read',
    },
  ];
}

/** A conversation of one answered question, and its snapshot as a store hands it back (plain JSON). */
async function answeredOnce(): Promise<{ clock: VirtualClock; log: EventLog; taken: LoopSnapshot }> {
  const clock = new VirtualClock();
  const log = new EventLog(clock);
  const loop = new AgentLoop(loopDeps({ log, agent: AGENT, clock, model: new ScriptedModelClient([reply('ORD-1001 was delivered.')], { clock }) }));
  loop.send('Where is ORD-1001?', { id: 'q1' });
  await loop.drain();
  return { clock, log, taken: JSON.parse(JSON.stringify(snapshotOf(loop, log))) as LoopSnapshot };
}

/**
 * A snapshot that is not an object at all (`null`, a number, or the snapshot's JSON text a store handed back
 * unparsed) is refused with a `SnapshotMismatch` saying so, before anything of it or of the prefix is read: the
 * message is what the host's `snapshot` observer reports as `rejected`, and a caller that reads the conversation
 * whole on a `SnapshotMismatch` must get one, not a `TypeError` from reading a field of `null` (mutation seed 39,
 * snapshot.ts: the object test made false; every other case's snapshot was an object).
 */
async function snapshotNotAnObjectRefused(): Promise<CheckResult[]> {
  const { clock, log, taken } = await answeredOnce();
  const checks: CheckResult[] = [];
  const rows: [string, unknown][] = [
    ['null', null],
    ['a number', 7],
    ['its JSON text, unparsed', JSON.stringify(taken)],
  ];
  for (const [what, snapshot] of rows) {
    checks.push(
      refusedBeforeThePrefix(clock, log, taken, snapshot as LoopSnapshot, `${what}: refused, saying so`, 'SnapshotMismatch: the snapshot is not an object'),
    );
  }
  return checks;
}

/**
 * A snapshot whose positions part is not an object (`null`, a number: written
 * by other code, or handed to `resumeFromSnapshot` by an embedder) is refused
 * with a `SnapshotMismatch` whose message says which part and why: it is what
 * the host's `snapshot` observer reports as `rejected`, the only account of why
 * a conversation was read whole. Nothing is read from the store.
 */
async function positionsNotAnObjectRefusedNamingThePart(): Promise<CheckResult[]> {
  const { clock, log, taken } = await answeredOnce();
  const checks: CheckResult[] = [];
  for (const positions of [null, 7]) {
    checks.push(
      refusedBeforeThePrefix(
        clock,
        log,
        taken,
        { ...taken, positions: positions as never },
        `positions ${JSON.stringify(positions)}: refused, naming the part`,
        'SnapshotMismatch: the snapshot cannot be restored: the positions state is malformed: not an object',
      ),
    );
  }
  return checks;
}

/**
 * A conversation whose stored history a newer compatible writer wrote: its
 * assistant text block carries a field this version does not know
 * (`citations`). The read keeps it (decode.ts), so the projection does, and a
 * snapshot holds that block whole, as an object in its message stream
 * (projection.ts, `compactMessage`). Reopened from that snapshot, the
 * conversation must resume — not be refused as malformed and read whole every
 * time — and the model must be sent what the whole log projects. Every other
 * history the gate snapshots is this version's own, whose blocks all take the
 * compact form.
 */
async function newerWritersBlockFieldsResume(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const first = new EventLog(clock);
  const before = new AgentLoop(loopDeps({ log: first, agent: AGENT, clock, model: new ScriptedModelClient([reply('ORD-1001 was delivered.')], { clock }) }));
  before.send('Where is ORD-1001?', { id: 'q1' });
  await before.drain();
  // The records as a newer writer stored them: its text block has a field more.
  const records = JSON.parse(JSON.stringify(first.events.map((e) => toRecord(e)))) as EventRecord[];
  const answer = records.find((r) => r.type === 'assistant.message')!;
  (answer.payload as { content: Record<string, unknown>[] }).content[0]!.citations = [{ source: 'orders', id: 'ORD-1001' }];
  // Opened as a host opens a stored conversation: the records decoded, then a turn taken.
  const log = new EventLog(clock, decodeRecords(records, 'a store written by a newer version'));
  const opened = new AgentLoop(loopDeps({ log, agent: AGENT, clock, model: new ScriptedModelClient([reply('It has shipped.')], { clock }) }));
  opened.send('And ORD-1002?', { id: 'q2' });
  await opened.drain();
  const stored: readonly AnyEvent[] = log.events;
  const snapshot = JSON.parse(JSON.stringify(snapshotOf(opened, log))) as LoopSnapshot;
  const blockObjects = snapshot.projection.messages.filter((v) => typeof v === 'object' && v !== null).length;

  const ask = async (resumed: EventLog): Promise<string> => {
    const model = new ScriptedModelClient([reply('It is on its way.')], { clock });
    const loop = new AgentLoop(loopDeps({ log: resumed, agent: AGENT, clock, model }));
    loop.send('And ORD-1003?', { id: 'q3' });
    await loop.drain();
    return JSON.stringify(model.requests[0]?.messages ?? null);
  };
  const whole = await ask(new EventLog(clock, stored));
  let restored: string;
  let sent = '';
  try {
    const prefix: LogPrefix = { upTo: snapshot.upTo, last: stored[snapshot.upTo - 1], load: (from, to) => stored.slice(from, to) };
    const resumed = resumeFromSnapshot(clock, snapshot, prefix, []);
    restored = 'restored';
    sent = await ask(resumed);
  } catch (error) {
    restored = `refused: ${(error as Error).message}`;
  }
  return [
    {
      name: 'the snapshot holds the block whole',
      passed: blockObjects === 1,
      message: `${blockObjects} block object(s) in the snapshot's message stream`,
      expected: '1',
      actual: String(blockObjects),
    },
    { name: 'the snapshot is restored', passed: restored === 'restored', message: restored, expected: 'restored', actual: restored },
    {
      name: "the next request is the whole log's",
      passed: restored !== 'restored' || sent === whole,
      message: sent === whole ? `the same messages${whole.includes('"citations"') ? ', the newer field among them' : ''}` : `resumed: ${sent}; whole: ${whole}`,
      expected: whole,
      actual: sent,
    },
  ];
}

/**
 * A snapshot taken by a version whose event catalogue differs from this one's (a
 * newer writer that bumped an event's version, or an older one without a type
 * this version knows) is refused with a `SnapshotMismatch` that says so: the
 * message is what the host's `snapshot` observer reports as `rejected`, an
 * operator's only account of why the conversation was read whole after an
 * upgrade or a rollback. Nothing is read from the store.
 */
async function otherCatalogueRefusedSayingSo(): Promise<CheckResult[]> {
  const { clock, log, taken } = await answeredOnce();
  const { 'log.listener_failed': _dropped, ...older } = taken.catalogue;
  const catalogues: [string, Record<string, number>][] = [
    ['a newer writer (tool.result at version 2)', { ...taken.catalogue, 'tool.result': 2 }],
    ['an older writer (no log.listener_failed)', older],
  ];
  const checks: CheckResult[] = [];
  for (const [whose, catalogue] of catalogues) {
    checks.push(
      refusedBeforeThePrefix(
        clock,
        log,
        taken,
        { ...taken, catalogue },
        `the catalogue of ${whose}: refused, saying so`,
        'SnapshotMismatch: the snapshot was folded under another event catalogue',
      ),
    );
  }
  return checks;
}

/**
 * A snapshot written by other code (a migration tool, another version's writer)
 * whose inbox part does not hold together: a message's intent not one the loop
 * knows (`followup`), its text not text, or a message the inbox holds as
 * pending missing from the pending order (the next turn would never take it).
 * `resumeFromSnapshot` (exported: a host of a team's own calls it) must refuse
 * each with a `SnapshotMismatch` naming the message or the part — the account
 * the host's `snapshot` observer reports as `rejected` — before reading anything
 * of the prefix, so the caller reads the conversation whole.
 */
async function malformedInboxRefusedNamingIt(): Promise<CheckResult[]> {
  const { clock, log, taken } = await answeredOnce();
  const row = taken.positions.inbox[0]!;
  const withRow = (changed: unknown[]): LoopSnapshot => ({ ...taken, positions: { ...taken.positions, inbox: [changed as never] } });
  const variants: [string, LoopSnapshot, string][] = [
    ['an intent the loop does not know', withRow([row[0], 'followup', ...row.slice(2)]), 'message q1'],
    ['a text that is not text', withRow([row[0], row[1], 18, ...row.slice(3)]), 'message q1'],
    ['a pending message missing from the pending order', withRow([...row.slice(0, 5), false]), 'pending messages missing from the order'],
  ];
  const checks: CheckResult[] = [];
  for (const [what, snapshot, part] of variants) {
    checks.push(
      refusedBeforeThePrefix(
        clock,
        log,
        taken,
        snapshot,
        `an inbox row with ${what}: refused, naming it`,
        `SnapshotMismatch: the snapshot cannot be restored: the positions state is malformed: ${part}`,
      ),
    );
  }
  return checks;
}

/**
 * A snapshot whose positions hold the tool calls as columns that do not line up: a ninth column (another version's
 * writer), or a column longer than the ids (a store that dropped an entry). `resumeFromSnapshot` must refuse each
 * with a `SnapshotMismatch` naming the calls, before reading anything of the prefix, not seed an index whose columns
 * disagree about how many calls were made (mutation seed 38, positions.ts: a ninth column, and columns of unequal
 * lengths, were accepted with the check mutated, and no case noticed).
 */
async function malformedCallColumnsRefused(): Promise<CheckResult[]> {
  const { clock, log, taken } = await answeredOnce();
  const columns = taken.positions.calls as unknown as unknown[][];
  const withCalls = (calls: unknown[][]): LoopSnapshot => ({ ...taken, positions: { ...taken.positions, calls: calls as never } });
  const variants: [string, LoopSnapshot][] = [
    ['nine columns', withCalls([...columns, []])],
    ['a names column longer than the ids', withCalls(columns.map((c, i) => (i === 4 ? [...c, 'lookup_order'] : c)))],
  ];
  // One call more, every column in line, one field of the wrong type: a name that is a number, a repeat's start
  // that is no boolean (mutation seed 42, positions.ts: each type check emptied, and the call restored as it was).
  const oneMore = (field: number, value: unknown): LoopSnapshot =>
    withCalls(columns.map((c, i) => [...c, i === field ? value : ['call_x', 3, false, -1, 'lookup_order', null, -1, false][i]]));
  const fieldVariants: [string, LoopSnapshot][] = [
    ['a name that is a number', oneMore(4, 7)],
    ["a repeat's start that is no boolean", oneMore(7, 'no')],
  ];
  const checks: CheckResult[] = [];
  for (const [what, snapshot] of variants) {
    checks.push(
      refusedBeforeThePrefix(
        clock,
        log,
        taken,
        snapshot,
        `call columns with ${what}: refused, naming the calls`,
        'SnapshotMismatch: the snapshot cannot be restored: the positions state is malformed: calls',
      ),
    );
  }
  for (const [what, snapshot] of fieldVariants) {
    checks.push(
      refusedBeforeThePrefix(
        clock,
        log,
        taken,
        snapshot,
        `a call with ${what}: refused, naming the call`,
        'SnapshotMismatch: the snapshot cannot be restored: the positions state is malformed: call call_x',
      ),
    );
  }
  return checks;
}

/**
 * A snapshot whose folds hold a row of the wrong shape: a call of the
 * projection, or a retry-after window, keyed by a number where the fold keys by
 * a call id or a client's name (another writer's snapshot, or a team's store
 * that turned the keys into numbers), or a call that is no row at all.
 * `resumeFromSnapshot` must refuse each with a `SnapshotMismatch` naming the
 * fold, before reading anything of the prefix, not seed it: a window keyed by a
 * number is never found by the client's name, so the client it holds off would
 * be asked again at once.
 */
async function malformedFoldRowsRefusedNamingTheFold(): Promise<CheckResult[]> {
  const { clock, log, taken } = await answeredOnce();
  const variants: [string, LoopSnapshot, string][] = [
    ['a call keyed by a number', { ...taken, projection: { ...taken.projection, calls: [[7, 0, 0] as never] } }, 'the projection state is malformed: a call'],
    ['a call that is not a row', { ...taken, projection: { ...taken.projection, calls: [null as never] } }, 'the projection state is malformed: a call'],
    ['messages that are not a list', { ...taken, projection: { ...taken.projection, messages: null as never } }, 'the projection state is malformed: messages'],
    [
      'a message whose head is not a number',
      { ...taken, projection: { ...taken.projection, messages: ['Where is ORD-1001?' as never] } },
      'the projection state is malformed: messages: message 0',
    ],
    [
      // A tool result block whose call id is a number (mutation seed 37, projection.ts: the block's place was not named).
      'a tool block whose call id is not text',
      { ...taken, projection: { ...taken.projection, messages: [2, 0, 7, 'ok', '{}'] as never } },
      'the projection state is malformed: messages: message 0 block 0',
    ],
    [
      'a retry-after window keyed by a number',
      { ...taken, windows: { ...taken.windows, until: [[7, 60_000] as never] } },
      'the retry-after windows state is malformed',
    ],
    [
      'an open retry-after window that is not a pair',
      { ...taken, windows: { ...taken.windows, open: [['openai', 'sk', 'extra'] as never] } },
      'the retry-after windows state is malformed',
    ],
  ];
  const checks: CheckResult[] = [];
  for (const [what, snapshot, problem] of variants) {
    checks.push(
      refusedBeforeThePrefix(clock, log, taken, snapshot, `${what}: refused, naming the fold`, `SnapshotMismatch: the snapshot cannot be restored: ${problem}`),
    );
  }
  return checks;
}

/**
 * A snapshot whose open turn says the conversation's last message before the turn (`startLast`) as no message, or as
 * two: another writer's snapshot, or a store that garbled it. `resumeFromSnapshot` must refuse it with a
 * `SnapshotMismatch` naming the open turn's start, before reading the prefix, not resume a turn whose start it cannot
 * put back (mutation seed 41, projection.ts: the one-message test made false, so the turn resumed with no start
 * message, or the first of two; no case's snapshot had an open turn).
 */
async function openTurnStartNotOneMessageRefused(): Promise<CheckResult[]> {
  const { clock, log, taken } = await answeredOnce();
  const messages = taken.projection.messages;
  const openTurn = (startLast: unknown): LoopSnapshot => ({
    ...taken,
    projection: { ...taken.projection, turn: { turn: 2, startLength: 2, startLast: startLast as never, events: [] } },
  });
  return [
    refusedBeforeThePrefix(
      clock,
      log,
      taken,
      openTurn([]),
      'no message: refused, naming the open turn start',
      'SnapshotMismatch: the snapshot cannot be restored: the projection state is malformed: open turn start: 0 messages',
    ),
    refusedBeforeThePrefix(
      clock,
      log,
      taken,
      openTurn(messages),
      'two messages: refused, naming the open turn start',
      'SnapshotMismatch: the snapshot cannot be restored: the projection state is malformed: open turn start: 2 messages',
    ),
  ];
}

/**
 * The tail handed to `resumeFromSnapshot` is the caller's: a store's decoded records, which it may keep, or hand
 * back frozen. The resumed log takes its own copy: a turn on it appends to the log, not to the caller's array, and a
 * frozen tail resumes as well as a plain one (mutation seed 42, event-log.ts: the log kept the caller's array and
 * pushed onto it; every case handed a fresh slice and never looked at it again).
 */
async function resumedLogLeavesTheTailItWasHanded(): Promise<CheckResult[]> {
  const checks: CheckResult[] = [];
  for (const frozen of [false, true]) {
    const clock = new VirtualClock();
    const first = new EventLog(clock);
    const before = new AgentLoop(
      loopDeps({
        log: first,
        agent: AGENT,
        clock,
        model: new ScriptedModelClient([reply('ORD-1001 was delivered.'), reply('ORD-1002 ships today.')], { clock }),
      }),
    );
    before.send('Where is ORD-1001?', { id: 'q1' });
    await before.drain();
    const taken = JSON.parse(JSON.stringify(snapshotOf(before, first))) as LoopSnapshot;
    before.send('And ORD-1002?', { id: 'q2' });
    await before.drain();
    const stored = first.events;
    const prefix: LogPrefix = { upTo: taken.upTo, last: stored[taken.upTo - 1]!, load: (from, to) => stored.slice(from, to) };
    const tail = stored.slice(taken.upTo);
    if (frozen) Object.freeze(tail);
    const handed = tail.length;
    let got: string;
    try {
      const log = resumeFromSnapshot(clock, taken, prefix, tail);
      const after = new AgentLoop(loopDeps({ log, agent: AGENT, clock, model: new ScriptedModelClient([reply('ORD-1003 is on its way.')], { clock }) }));
      after.send('And ORD-1003?', { id: 'q3' });
      const [result] = await after.drain();
      got = `${result?.outcome.kind ?? 'no outcome'}, the log ${log.length > stored.length ? 'grew' : 'did not grow'}, the tail handed ${tail.length}`;
    } catch (error) {
      got = `threw ${(error as Error).name}: ${(error as Error).message}`;
    }
    const want = `replied, the log grew, the tail handed ${handed}`;
    checks.push({
      name: `a ${frozen ? 'frozen' : 'plain'} tail: the turn replies, the caller's array unchanged`,
      passed: got === want,
      message: got === want ? got : `expected ${want}, got ${got}`,
      expected: want,
      actual: got,
    });
  }
  return checks;
}

/**
 * A log reopened from a snapshot holds only the tail in memory; what comes
 * before is read from the store on demand. A team handed that log (the host's
 * observer hands it each log it opens) reading the conversation from its start
 * — an audit feed, a transcript — must get every event, the prefix read back
 * from the store, the same as the log that wrote them, not the tail alone; and
 * `at` a seq it does not hold (before its start, not a whole number) gives no
 * event, as the whole log does, rather than asking the store for seqs below 0.
 */
async function resumedLogReadsFromItsStart(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const log = new EventLog(clock);
  const loop = new AgentLoop(
    loopDeps({ log, agent: AGENT, clock, model: new ScriptedModelClient([reply('ORD-1001 was delivered.'), reply('ORD-1002 ships today.')], { clock }) }),
  );
  loop.send('Where is ORD-1001?', { id: 'q1' });
  await loop.drain();
  const taken = JSON.parse(JSON.stringify(snapshotOf(loop, log))) as LoopSnapshot;
  loop.send('And ORD-1002?', { id: 'q2' });
  await loop.drain();
  const loads: string[] = [];
  const prefix: LogPrefix = {
    upTo: taken.upTo,
    last: log.events[taken.upTo - 1]!,
    load: (from, to) => {
      loads.push(`[${from}, ${to})`);
      return log.events.slice(from, to);
    },
  };
  const resumed = resumeFromSnapshot(clock, taken, prefix, log.events.slice(taken.upTo));
  const want = JSON.stringify(log.events.slice(2));
  const got = JSON.stringify(resumed.readFrom(2));
  // A seq the log does not hold (before its start, not a whole number) is no event, as on the log that wrote them:
  // never a read of the store for a chunk before seq 0.
  const outside = [-1, -0.5, 0.5, Number.NaN];
  const answer = (l: EventLog, seq: number): string => {
    try {
      return l.at(seq) === undefined ? 'undefined' : `seq ${l.at(seq)!.seq}`;
    } catch (error) {
      return `threw: ${(error as Error).message}`;
    }
  };
  const atWant = outside.map((seq) => `${seq}: ${answer(log, seq)}`).join('; ');
  const atGot = outside.map((seq) => `${seq}: ${answer(resumed, seq)}`).join('; ');
  return [
    {
      name: 'a seq outside the log (-1, -0.5, 0.5, NaN) is no event, as on the whole log',
      passed: atGot === atWant,
      message: atGot,
      expected: atWant,
      actual: atGot,
    },
    {
      name: 'reading from seq 2 gives every event from there, the prefix read from the store',
      passed: got === want && loads.length > 0,
      message:
        got === want
          ? `${resumed.length - 2} events, prefix read ${loads.join(', ')}`
          : `expected ${want.length} characters of events, got ${got.length}: ${got.slice(0, 200)}`,
      expected: want,
      actual: got,
    },
  ];
}

/**
 * A snapshot of a long conversation restores its messages in one pass (`MessageList.from`, message-list.ts): past
 * 1 056 messages the restored list has more than 32 leaves and gets a second level, where a branch holding the wrong
 * leaves would hand the model earlier messages in place of later ones (mutation seed 25). 560 turns (1 120 messages),
 * snapshotted, resumed, one more turn: its request is the request the whole log gives.
 */
const LONG_TURNS = 560;

async function longConversationRestoredInOrder(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const first = new EventLog(clock);
  const before = new AgentLoop(
    loopDeps({
      log: first,
      agent: AGENT,
      clock,
      model: new ScriptedModelClient(
        Array.from({ length: LONG_TURNS }, (_, i) => reply(`Noted item ${i}.`)),
        { clock },
      ),
    }),
  );
  for (let i = 0; i < LONG_TURNS; i++) {
    before.send(`Please note item ${i}.`, { id: `note-${i}` });
    await before.drain();
  }
  const stored: readonly AnyEvent[] = first.events;
  const snapshot = JSON.parse(JSON.stringify(snapshotOf(before, first))) as LoopSnapshot;
  const ask = async (resumed: EventLog): Promise<readonly unknown[]> => {
    const model = new ScriptedModelClient([reply('All noted.')], { clock });
    const loop = new AgentLoop(loopDeps({ log: resumed, agent: AGENT, clock, model }));
    loop.send('What did I note?', { id: 'last' });
    await loop.drain();
    return model.requests[0]?.messages ?? [];
  };
  const whole = await ask(new EventLog(clock, stored));
  let restored: string;
  let sent: readonly unknown[] = [];
  try {
    const prefix: LogPrefix = { upTo: snapshot.upTo, last: stored[snapshot.upTo - 1], load: (from, to) => stored.slice(from, to) };
    sent = await ask(resumeFromSnapshot(clock, snapshot, prefix, []));
    restored = 'restored';
  } catch (error) {
    restored = `refused: ${(error as Error).message}`;
  }
  const wrong: number[] = [];
  for (let i = 0; i < Math.max(sent.length, whole.length); i++) if (JSON.stringify(sent[i]) !== JSON.stringify(whole[i])) wrong.push(i);
  return [
    { name: 'the snapshot is restored', passed: restored === 'restored', message: restored, expected: 'restored', actual: restored },
    {
      name: "the next request is the whole log's, each message in its place",
      passed: whole.length === 2 * LONG_TURNS + 1 && wrong.length === 0,
      message:
        wrong.length === 0
          ? `${sent.length} messages, as the whole log's`
          : `${sent.length} messages (whole log: ${whole.length}), ${wrong.length} differ, first at ${wrong.slice(0, 3).join(', ')}`,
      expected: `${2 * LONG_TURNS + 1} messages, as the whole log's`,
      actual: wrong.length === 0 ? `${sent.length} messages, as the whole log's` : `${wrong.length} differ`,
    },
  ];
}

/**
 * A compaction undone and another applied after the snapshot was taken: the log's replace generation, counted up at
 * each `projection.replaced` and `projection.restored`, must never come back to the snapshot's, or the resumed
 * projection starts from the snapshot's fold with the first summary and never sees the second. No scenario undoes a
 * compaction and then compacts again across a snapshot. Here: two answered turns, the first replaced by summary A,
 * the snapshot taken, A undone, the first turn replaced by summary B; the next request from the resumed log must be
 * the whole log's (summary B).
 */
async function compactionUndoneAndRedoneAfterTheSnapshot(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const log = new EventLog(clock);
  const model = new ScriptedModelClient([reply('ORD-1001 was delivered.'), reply('ORD-1002 is on its way.')], { clock });
  const loop = new AgentLoop(loopDeps({ log, agent: AGENT, clock, model }));
  loop.send('Where is ORD-1001?', { id: 'q1' });
  await loop.drain();
  loop.send('And ORD-1002?', { id: 'q2' });
  await loop.drain();
  const types = log.events.map((e) => e.type);
  const from = types.indexOf('turn.opened');
  const to = types.indexOf('turn.closed');
  const replace = (summary: string): number =>
    log.append('projection.replaced', { from, to, summary, tokensBefore: 40, tokensAfter: 10 }, { sources: [from, to] }).seq;
  const first = replace('Summary A: the customer asked about ORD-1001.');
  const snapshot = JSON.parse(JSON.stringify(snapshotOf(loop, log))) as LoopSnapshot;
  undoCompaction(log, first);
  replace('Summary B: ORD-1001 was delivered.');
  const stored: readonly AnyEvent[] = log.events;
  const ask = async (resumed: EventLog): Promise<string> => {
    const next = new ScriptedModelClient([reply('Both are accounted for.')], { clock });
    const again = new AgentLoop(loopDeps({ log: resumed, agent: AGENT, clock, model: next }));
    again.send('Anything else?', { id: 'q3' });
    await again.drain();
    return JSON.stringify(next.requests[0]?.messages ?? []);
  };
  const whole = await ask(new EventLog(clock, stored));
  let sent: string;
  try {
    const prefix: LogPrefix = { upTo: snapshot.upTo, last: stored[snapshot.upTo - 1], load: (a, b) => stored.slice(a, b) };
    sent = await ask(resumeFromSnapshot(clock, snapshot, prefix, stored.slice(snapshot.upTo)));
  } catch (error) {
    sent = `refused: ${(error as Error).message}`;
  }
  const summary = (text: string): string => (text.includes('Summary B') ? 'summary B' : text.includes('Summary A') ? 'summary A' : 'no summary');
  return [
    {
      name: "the whole log's request carries summary B",
      passed: summary(whole) === 'summary B',
      message: summary(whole),
      expected: 'summary B',
      actual: summary(whole),
    },
    {
      name: "the resumed log's request is the whole log's",
      passed: sent === whole,
      message: sent === whole ? 'the same request' : `resumed: ${summary(sent)}; whole: ${summary(whole)}`,
      expected: 'the same request',
      actual: sent === whole ? 'the same request' : `${summary(sent)} (${sent.slice(0, 200)})`,
    },
  ];
}

export function snapshotCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:snapshot/compaction-undone-and-redone-after-the-snapshot',
        title: "snapshot: a compaction undone and another applied after the snapshot: the resumed log's next request is the whole log's",
        file: 'src/harness/snapshot-cases.ts',
      },
      compactionUndoneAndRedoneAfterTheSnapshot,
    ),
    checksCase(
      {
        id: 'contract:snapshot/session-budget-reopened-reads-only-the-tail',
        title: "snapshot: reopened from a snapshot, a spent session budget refuses the next turn without reading the snapshot's prefix back",
        file: 'src/harness/snapshot-cases.ts',
      },
      sessionBudgetReopenedReadsOnlyTheTail,
    ),
    checksCase(
      {
        id: 'contract:snapshot/not-an-object-refused',
        title: 'snapshot: a snapshot that is not an object (null, a number, its JSON text) is refused with a SnapshotMismatch saying so',
        file: 'src/harness/snapshot-cases.ts',
      },
      snapshotNotAnObjectRefused,
    ),
    checksCase(
      {
        id: 'contract:snapshot/positions-not-an-object-refused-naming-the-part',
        title: 'snapshot: a snapshot whose positions part is not an object is refused with a SnapshotMismatch that names the part',
        file: 'src/harness/snapshot-cases.ts',
      },
      positionsNotAnObjectRefusedNamingThePart,
    ),
    checksCase(
      {
        id: 'contract:snapshot/other-catalogue-refused-saying-so',
        title: "snapshot: a snapshot folded under another version's event catalogue is refused with a SnapshotMismatch that says so",
        file: 'src/harness/snapshot-cases.ts',
      },
      otherCatalogueRefusedSayingSo,
    ),
    checksCase(
      {
        id: 'contract:snapshot/newer-writers-block-fields-resume',
        title: "snapshot: a history whose blocks carry a newer writer's fields is reopened from its snapshot, not refused, and the model sent the same",
        file: 'src/harness/snapshot-cases.ts',
      },
      newerWritersBlockFieldsResume,
    ),
    checksCase(
      {
        id: 'contract:snapshot/malformed-inbox-refused-naming-it',
        title:
          "snapshot: another writer's snapshot whose inbox does not hold together (an unknown intent, a pending message out of the order) is refused naming it",
        file: 'src/harness/snapshot-cases.ts',
      },
      malformedInboxRefusedNamingIt,
    ),
    checksCase(
      {
        id: 'contract:snapshot/open-turn-start-not-one-message-refused',
        title: "snapshot: a snapshot whose open turn's start holds no message, or two, is refused naming the open turn start",
        file: 'src/harness/snapshot-cases.ts',
      },
      openTurnStartNotOneMessageRefused,
    ),
    checksCase(
      {
        id: 'contract:snapshot/malformed-call-columns-refused',
        title:
          "snapshot: another writer's snapshot whose call columns do not line up (a ninth column, a column longer than the ids) is refused naming the calls",
        file: 'src/harness/snapshot-cases.ts',
      },
      malformedCallColumnsRefused,
    ),
    checksCase(
      {
        id: 'contract:snapshot/malformed-fold-rows-refused-naming-the-fold',
        title: 'snapshot: a snapshot whose projection calls or retry-after windows are keyed by a number, or not rows, is refused naming the fold',
        file: 'src/harness/snapshot-cases.ts',
      },
      malformedFoldRowsRefusedNamingTheFold,
    ),
    checksCase(
      {
        id: 'contract:snapshot/resumed-log-leaves-the-tail-it-was-handed',
        title: "snapshot: a log resumed on a store's tail copies it: a turn appends to the log, not to the caller's array, and a frozen tail resumes",
        file: 'src/harness/snapshot-cases.ts',
      },
      resumedLogLeavesTheTailItWasHanded,
    ),
    checksCase(
      {
        id: 'contract:snapshot/resumed-log-reads-from-before-its-snapshot',
        title:
          'snapshot: a log reopened from a snapshot, read from before it, gives every event, the prefix read back from the store; a seq it does not hold gives none',
        file: 'src/harness/snapshot-cases.ts',
      },
      resumedLogReadsFromItsStart,
    ),
    checksCase(
      {
        id: 'contract:snapshot/long-conversation-restored-in-order',
        title:
          "snapshot: a 560-turn conversation (1 120 messages) restored from its snapshot sends the model the whole log's request, each message in its place",
        file: 'src/harness/snapshot-cases.ts',
      },
      longConversationRestoredInOrder,
    ),
  ];
}

/**
 * `resumeFromSnapshot` on `snapshot` over the log `taken` was taken from: refused
 * with `expected` (a `SnapshotMismatch`'s text) before reading anything of the
 * prefix, so the caller reads the conversation whole.
 */
function refusedBeforeThePrefix(clock: VirtualClock, log: EventLog, taken: LoopSnapshot, snapshot: LoopSnapshot, name: string, expected: string): CheckResult {
  const loads: string[] = [];
  const prefix: LogPrefix = {
    upTo: taken.upTo,
    last: log.events[taken.upTo - 1]!,
    load: (from, to) => {
      loads.push(`[${from}, ${to})`);
      return log.events.slice(from, to);
    },
  };
  let actual = 'resumed';
  try {
    resumeFromSnapshot(clock, snapshot, prefix, []);
  } catch (error) {
    actual = error instanceof SnapshotMismatch ? `SnapshotMismatch: ${error.message}` : `${(error as Error).name}: ${(error as Error).message}`;
  }
  return {
    name,
    passed: actual === expected && loads.length === 0,
    message: actual === expected ? (loads.length === 0 ? actual : `the prefix read: ${loads.join(', ')}`) : `expected ${expected}, got ${actual}`,
    expected,
    actual,
  };
}
