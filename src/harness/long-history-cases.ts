/**
 * A long conversation's request, as a model client reads it, as a case of
 * `loopgate run`: `contract:long-history/<id>`.
 *
 * Past 256 messages the loop hands the model a request whose `messages` is an
 * own getter that builds the array on first read (request-messages.ts), so a
 * step costs what changed, not the history. A `ModelClient` is the agent's own
 * code, and may read the request through another object: a `Proxy` (a
 * reactive store, a tracing wrapper), or an object made with the request as its
 * prototype to change one field for an attempt. A getter that found its messages
 * by the object it was read on (`this`) answered those reads with no messages at
 * all — the model then asked with an empty history, only once the conversation
 * was long. No scenario is that long, and none reads the request through
 * another object; here a client does both on every request of a 130-turn
 * conversation and must see what a direct read sees.
 */
import { z } from 'zod';
import { call, reply, toolUse, transportError } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import {
  AgentLoop,
  defineTool,
  EventLog,
  loopDeps,
  outcomeForTransport,
  type Agent,
  type ModelClient,
  type ModelErrorHandler,
  type ModelRequest,
} from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { checksCase, type Case } from './cases.ts';
import { referenceProjection } from './invariants/support/reference-projection.ts';
import { VirtualClock } from './virtual-clock.ts';

const TURNS = 130;

async function longHistoryReadThroughAnotherObject(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const script = new ScriptedModelClient(
    Array.from({ length: TURNS }, (_, i) => reply(`Noted item ${i}.`)),
    { clock },
  );
  const mismatches: string[] = [];
  let longest = 0;
  const client: ModelClient = {
    name: 'reads-through-a-wrapper',
    call(request: ModelRequest, onDelta) {
      const direct = request.messages;
      const viaProxy = new Proxy(request, {}).messages;
      const viaPrototype = (Object.create(request) as ModelRequest).messages;
      longest = Math.max(longest, direct.length);
      const last = (messages: ModelRequest['messages']): string => JSON.stringify(messages[messages.length - 1] ?? null);
      for (const [how, seen] of [
        ['a Proxy of the request', viaProxy],
        ['an object whose prototype is the request', viaPrototype],
      ] as const) {
        if (seen.length !== direct.length || last(seen) !== last(direct))
          mismatches.push(`request ${script.calls + 1} read through ${how}: ${seen.length} message(s), directly ${direct.length}`);
      }
      return script.call(request, onDelta);
    },
  };
  const loop = new AgentLoop(loopDeps({ log: new EventLog(clock), model: client, agent: {}, clock }));
  const outcomes: string[] = [];
  for (let i = 0; i < TURNS; i++) {
    loop.send(`Please note item ${i}.`, { id: `note-${i}` });
    for (const result of await loop.drain()) outcomes.push(result.outcome.kind);
  }
  const replied = outcomes.filter((o) => o === 'replied').length;
  return [
    {
      name: `${TURNS} turns replied`,
      passed: replied === TURNS,
      message: `${replied} of ${outcomes.length} turns replied`,
      expected: String(TURNS),
      actual: String(replied),
    },
    {
      name: 'the last request holds the whole history (more than 256 messages)',
      passed: longest === 2 * TURNS - 1,
      message: `the longest request held ${longest} message(s)`,
      expected: String(2 * TURNS - 1),
      actual: String(longest),
    },
    {
      name: 'read through a Proxy or as a prototype, every request holds the messages a direct read gives',
      passed: mismatches.length === 0,
      message: mismatches.length === 0 ? 'the same messages every time' : `${mismatches.length} read(s) differ, first: ${mismatches[0]}`,
      expected: 'the same messages every time',
      actual: mismatches.length === 0 ? 'the same messages every time' : mismatches.slice(0, 3).join('; '),
    },
  ];
}

/**
 * The messages as one array until they change. `ProjectionCache.current()`
 * promises "the same array until the projection changes", and a long request's
 * `messages` becomes the array on its first read. A UI reading
 * `loop.projection.current()` as a store's snapshot (React's
 * `useSyncExternalStore` re-renders until two reads are the same object), or a
 * client keeping its token counts in a `WeakMap` keyed by the messages, needs
 * two reads with nothing between them to give the same array, at every length.
 */
async function messagesOneArrayUntilTheyChange(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const script = new ScriptedModelClient(
    Array.from({ length: TURNS }, (_, i) => reply(`Noted item ${i}.`)),
    { clock },
  );
  let long = 0;
  const requestsRebuilt: number[] = [];
  const client: ModelClient = {
    name: 'reads-the-messages-twice',
    call(request: ModelRequest, onDelta) {
      const first = request.messages;
      if (first.length > 256) long++;
      if (request.messages !== first) requestsRebuilt.push(first.length);
      return script.call(request, onDelta);
    },
  };
  const loop = new AgentLoop(loopDeps({ log: new EventLog(clock), model: client, agent: {}, clock }));
  const currentRebuilt: number[] = [];
  let unchangedAcrossTurns = 0;
  let previous: readonly unknown[] | undefined;
  for (let i = 0; i < TURNS; i++) {
    loop.send(`Please note item ${i}.`, { id: `note-${i}` });
    await loop.drain();
    const snapshot = loop.projection.current();
    if (loop.projection.current() !== snapshot) currentRebuilt.push(snapshot.length);
    if (snapshot === previous) unchangedAcrossTurns++;
    previous = snapshot;
  }
  const list = (lengths: number[]): string => `${lengths.length} time(s), first at ${lengths.slice(0, 3).join(', ')} message(s)`;
  return [
    {
      name: 'requests of more than 256 messages were made (the getter is read)',
      passed: long > 0,
      message: `${long} request(s) of more than 256 messages (the case would test nothing without)`,
    },
    {
      name: "a long request's messages, read twice, are the same array",
      passed: requestsRebuilt.length === 0,
      message: requestsRebuilt.length === 0 ? 'the same array' : `a second read gave another array ${list(requestsRebuilt)}`,
      expected: 'the same array',
      actual: requestsRebuilt.length === 0 ? 'the same array' : 'another array',
    },
    {
      name: 'projection.current(), read twice with nothing between, is the same array',
      passed: currentRebuilt.length === 0,
      message: currentRebuilt.length === 0 ? `the same array after each of ${TURNS} turns` : `a second read gave another array ${list(currentRebuilt)}`,
      expected: 'the same array',
      actual: currentRebuilt.length === 0 ? 'the same array' : 'another array',
    },
    {
      name: 'projection.current() is a new array once a turn changed the messages',
      passed: unchangedAcrossTurns === 0,
      message: `${unchangedAcrossTurns} turn(s) left the same array`,
    },
  ];
}

/**
 * Past 2 080 messages the list the loop keeps its messages in (a 32-way trie,
 * message-list.ts) grows a third level and starts new branches under it; a leaf
 * placed at the wrong depth there would hand the model nodes instead of
 * messages, or skip some. A 1 060-turn conversation (2 120 messages, past the
 * second branch of the third level) must reach the model whole, each message in
 * its place. Only the last request's messages are read (the getter builds the
 * array on that read), so the case stays cheap.
 */
const DEEP_TURNS = 1060;

/** A message's text as a client reads it: its string content, its blocks' text joined, or the message as JSON. */
function textOf(message: unknown): string {
  const content = (message as { content?: unknown } | undefined)?.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((b) => (b as { text?: unknown }).text ?? '').join('');
  return JSON.stringify(message ?? null);
}

async function deepHistoryReachesTheModelInOrder(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const script = new ScriptedModelClient(
    Array.from({ length: DEEP_TURNS }, (_, i) => reply(`Noted item ${i}.`)),
    { clock },
  );
  let lastMessages: ModelRequest['messages'] | undefined;
  let calls = 0;
  const client: ModelClient = {
    name: 'reads-the-last-request',
    call(request: ModelRequest, onDelta) {
      calls++;
      if (calls === DEEP_TURNS) lastMessages = request.messages;
      return script.call(request, onDelta);
    },
  };
  const loop = new AgentLoop(loopDeps({ log: new EventLog(clock), model: client, agent: {}, clock }));
  let replied = 0;
  for (let i = 0; i < DEEP_TURNS; i++) {
    loop.send(`Please note item ${i}.`, { id: `note-${i}` });
    for (const result of await loop.drain()) if (result.outcome.kind === 'replied') replied++;
  }
  const messages = lastMessages ?? [];
  const wrong: string[] = [];
  for (let i = 0; i < DEEP_TURNS; i++) {
    const user = `Please note item ${i}.`;
    if (textOf(messages[2 * i]) !== user) wrong.push(`message ${2 * i}: ${textOf(messages[2 * i]).slice(0, 60)}`);
    if (i < DEEP_TURNS - 1 && textOf(messages[2 * i + 1]) !== `Noted item ${i}.`)
      wrong.push(`message ${2 * i + 1}: ${textOf(messages[2 * i + 1]).slice(0, 60)}`);
  }
  return [
    {
      name: `${DEEP_TURNS} turns replied`,
      passed: replied === DEEP_TURNS,
      message: `${replied} turns replied`,
      expected: String(DEEP_TURNS),
      actual: String(replied),
    },
    {
      name: 'the last request holds every message, each in its place',
      passed: messages.length === 2 * DEEP_TURNS - 1 && wrong.length === 0,
      message:
        wrong.length === 0
          ? `${messages.length} message(s)`
          : `${messages.length} message(s), ${wrong.length} out of place, first: ${wrong.slice(0, 2).join('; ')}`,
      expected: `${2 * DEEP_TURNS - 1} messages in order`,
      actual: wrong.length === 0 ? `${messages.length} messages in order` : `${wrong.length} out of place`,
    },
  ];
}

/**
 * A failed turn rolled back across the message trie's second level. 528 turns
 * fill 1 056 messages: 33 leaves of 32, so the trie has grown a level (the 33rd
 * leaf hangs under a second branch). The next turn looks an item up until the
 * step limit stops it (failed{max_steps}, invariant 5: it adds nothing); its
 * rollback pops back from 1 061 messages to 1 056, taking the second branch
 * away again and dropping the level. Twenty more turns then grow the list past
 * that seam again. After the rollback, and at the last request, the messages
 * must be the plain replay of the log (the naive reference projection of
 * invariant 6): a pop that left a stale branch behind would hand the model the
 * wrong messages — or nodes of the trie — only once the list grew over it.
 */
const LEVEL_TURNS = 528;
const AFTER_TURNS = 20;

async function failedTurnRolledBackAcrossASecondLevel(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const look = (id: string) => toolUse([call(id, 'look_up_item', { item: 0 })]);
  const script = new ScriptedModelClient(
    [
      ...Array.from({ length: LEVEL_TURNS }, (_, i) => reply(`Noted item ${i}.`)),
      look('l1'),
      look('l2'),
      look('l3'),
      ...Array.from({ length: AFTER_TURNS }, (_, i) => reply(`Noted item ${LEVEL_TURNS + i}.`)),
    ],
    { clock },
  );
  const total = LEVEL_TURNS + 1 + AFTER_TURNS;
  let lastRequest: { readonly messages: ModelRequest['messages']; readonly upTo: number } | undefined;
  const log = new EventLog(clock);
  const client: ModelClient = {
    name: 'reads-the-last-request',
    call(request: ModelRequest, onDelta) {
      if (script.calls === LEVEL_TURNS + 3 + AFTER_TURNS - 1) lastRequest = { messages: request.messages, upTo: log.length };
      return script.call(request, onDelta);
    },
  };
  const agent: Agent = {
    tools: [
      defineTool({
        name: 'look_up_item',
        description: 'Look an item up.',
        input: z.object({ item: z.number() }),
        sideEffect: 'NONE',
        run: ({ item }) => ({ item, found: true }),
      }),
    ],
  };
  const loop = new AgentLoop(loopDeps({ log, model: client, agent, clock, config: { maxSteps: 3 } }));
  const outcomes: string[] = [];
  let afterRollback: { readonly got: string; readonly want: string; readonly length: number } | undefined;
  for (let i = 0; i < total; i++) {
    loop.send(`Please note item ${i}.`, { id: `note-${i}` });
    for (const result of await loop.drain()) outcomes.push(result.outcome.kind === 'failed' ? `failed{${result.outcome.reason}}` : result.outcome.kind);
    if (i === LEVEL_TURNS) {
      const current = loop.projection.current();
      afterRollback = { got: JSON.stringify(current), want: JSON.stringify(referenceProjection(log.events)), length: current.length };
    }
  }
  const failed = outcomes.filter((o) => o !== 'replied');
  const request = lastRequest;
  const sent = request ? JSON.stringify(request.messages) : 'no request';
  const replayed = request ? JSON.stringify(referenceProjection(log.events.slice(0, request.upTo))) : 'no request';
  return [
    {
      name: `${total - 1} turns replied, the one at 1 056 messages failed{max_steps}`,
      passed: outcomes.length === total && failed.length === 1 && outcomes[LEVEL_TURNS] === 'failed{max_steps}',
      message: `${outcomes.length} turns; not replied: ${failed.join(', ') || 'none'}`,
    },
    {
      name: 'after the rollback the history is the replay of the log: the 1 056 messages before the failed turn',
      passed: afterRollback !== undefined && afterRollback.got === afterRollback.want && afterRollback.length === 2 * LEVEL_TURNS,
      message: afterRollback
        ? `${afterRollback.length} message(s)${afterRollback.got === afterRollback.want ? ', as replayed' : ', not what the log replays to'}`
        : 'never checked',
      expected: `${2 * LEVEL_TURNS} messages, as replayed`,
      actual: afterRollback ? `${afterRollback.length} messages${afterRollback.got === afterRollback.want ? ', as replayed' : ', differing'}` : 'never checked',
    },
    {
      name: 'the last request, past the seam again, holds the replay of the log',
      passed: request !== undefined && sent === replayed && request.messages.length === 2 * LEVEL_TURNS + 2 * (AFTER_TURNS - 1) + 1,
      message: request
        ? `${request.messages.length} message(s)${sent === replayed ? ', as replayed' : ', not what the log replays to'}`
        : 'the last request was never made',
    },
  ];
}

/**
 * `loop.projection.pairingViolation()` (ProjectionCache, exported) read while a call is pending: the check
 * is incremental, resuming where the last one stopped, so each check must say where that is. A tool reading
 * it (as a UI would, between steps) after the loop's own check of the step's request sees the call open
 * ("have no result"), and once the turn ends sees none; its cost counter stays a count.
 */
async function pairingSeenWhileACallIsPending(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const model = new ScriptedModelClient([toolUse([call('c1', 'lookup_order', { order_id: 'ORD-1001' })]), reply('It has shipped.')], { clock });
  let loop: AgentLoop | undefined;
  let during = '(the tool did not run)';
  const lookup = defineTool({
    name: 'lookup_order',
    description: 'Look an order up.',
    input: z.object({ order_id: z.string() }),
    sideEffect: 'NONE',
    run: () => {
      during = loop!.projection.pairingViolation()?.problem ?? 'none';
      return { status: 'shipped' };
    },
  });
  loop = new AgentLoop(loopDeps({ log: new EventLog(clock), model, agent: { tools: [lookup] } as Agent, clock }));
  loop.send('Where is order ORD-1001?', { id: 'ask' });
  await loop.drain();
  const after = loop.projection.pairingViolation()?.problem ?? 'none';
  const looks = loop.projection.pairingLooks;
  return [
    {
      name: 'while the call runs: the call has no result yet',
      passed: during === 'tool calls c1 have no result',
      message: during,
      expected: 'tool calls c1 have no result',
      actual: during,
    },
    { name: 'after the turn: no violation', passed: after === 'none', message: after, expected: 'none', actual: after },
    {
      name: 'pairingLooks is a count',
      passed: Number.isSafeInteger(looks) && looks > 0,
      message: String(looks),
      expected: 'a positive integer',
      actual: String(looks),
    },
  ];
}

/**
 * A failed turn rolled back inside the message trie's fourth level. 16 416
 * turns fill 32 832 messages: past 32 800 the root has grown a fourth level, and
 * the next turn's message (the 32 833rd) sits alone in the tail. That turn fails
 * at once on the model (failed, invariant 5: it adds nothing), and its rollback
 * pops the tail: the last leaf comes back from under an inner node of the third
 * level whose first branch holds it (index 0 there, the leaf one further in). A
 * pop that dropped that inner node whole would lose the leaf's 32 messages, or
 * shift the rest, only past 32 000 messages. The next turn's request must hold
 * every message in its place.
 */
const FOURTH_LEVEL_TURNS = 16_416;
const failOnce: ModelErrorHandler = {
  name: 'fail-at-once',
  handle: (error) => (error.type === 'transport_error' ? { action: 'fail', outcome: outcomeForTransport(error), detail: 'never retried' } : undefined),
};

async function failedTurnRolledBackInsideAFourthLevel(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const script = new ScriptedModelClient(
    [
      ...Array.from({ length: FOURTH_LEVEL_TURNS }, (_, i) => reply(`Noted item ${i}.`)),
      transportError('overloaded', { message: 'the provider is busy' }),
      reply('Noted the last item.'),
    ],
    { clock },
  );
  let lastMessages: ModelRequest['messages'] | undefined;
  const client: ModelClient = {
    name: 'reads-the-last-request',
    call(request: ModelRequest, onDelta) {
      if (script.calls === FOURTH_LEVEL_TURNS + 1) lastMessages = request.messages;
      return script.call(request, onDelta);
    },
  };
  const loop = new AgentLoop(loopDeps({ log: new EventLog(clock), model: client, agent: { errorHandlers: [failOnce] }, clock }));
  const outcomes: string[] = [];
  for (let i = 0; i <= FOURTH_LEVEL_TURNS + 1; i++) {
    loop.send(i > FOURTH_LEVEL_TURNS ? 'Please note the last item.' : `Please note item ${i}.`, { id: `note-${i}` });
    for (const result of await loop.drain()) outcomes.push(result.outcome.kind);
  }
  const messages = lastMessages ?? [];
  const wrong: string[] = [];
  for (let i = 0; i < FOURTH_LEVEL_TURNS && wrong.length < 3; i++) {
    if (textOf(messages[2 * i]) !== `Please note item ${i}.`) wrong.push(`message ${2 * i}: ${textOf(messages[2 * i]).slice(0, 60)}`);
    if (textOf(messages[2 * i + 1]) !== `Noted item ${i}.`) wrong.push(`message ${2 * i + 1}: ${textOf(messages[2 * i + 1]).slice(0, 60)}`);
  }
  const last = textOf(messages[messages.length - 1]);
  const failed = outcomes.filter((o) => o !== 'replied');
  return [
    {
      name: `the turn at ${2 * FOURTH_LEVEL_TURNS} messages failed, the others replied`,
      passed: outcomes.length === FOURTH_LEVEL_TURNS + 2 && failed.length === 1 && outcomes[FOURTH_LEVEL_TURNS] === 'failed',
      message: `${outcomes.length} turns; not replied: ${failed.join(', ') || 'none'}`,
    },
    {
      name: 'the next request holds every message before the failed turn in its place, then the new one',
      passed: lastMessages !== undefined && wrong.length === 0 && messages.length >= 2 * FOURTH_LEVEL_TURNS + 1 && last.includes('Please note the last item.'),
      message: `${messages.length} message(s)${wrong.length ? `, out of place: ${wrong.join('; ')}` : ''}; last: ${last.slice(0, 80)}`,
    },
  ];
}

export function longHistoryCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:long-history/request-read-through-a-proxy-or-prototype-keeps-its-messages',
        title: 'long history: a client reading a request of more than 256 messages through a Proxy, or as a prototype, sees every message',
        file: 'src/harness/long-history-cases.ts',
      },
      longHistoryReadThroughAnotherObject,
    ),
    checksCase(
      {
        id: 'contract:long-history/messages-one-array-until-they-change',
        title: "long history: a request's messages and projection.current() give the same array on every read until the messages change",
        file: 'src/harness/long-history-cases.ts',
      },
      messagesOneArrayUntilTheyChange,
    ),
    checksCase(
      {
        id: 'contract:long-history/deep-history-reaches-the-model-in-order',
        title: 'long history: past 2 080 messages (a third level of the message trie) the model is sent every message in its place',
        file: 'src/harness/long-history-cases.ts',
      },
      deepHistoryReachesTheModelInOrder,
    ),
    checksCase(
      {
        id: 'contract:long-history/failed-turn-rolled-back-across-a-second-trie-level',
        title: "long history: a failed turn at 1 056 messages is rolled back across the message trie's second level, and the list grows past it again whole",
        file: 'src/harness/long-history-cases.ts',
      },
      failedTurnRolledBackAcrossASecondLevel,
    ),
    checksCase(
      {
        id: 'contract:long-history/failed-turn-rolled-back-inside-a-fourth-trie-level',
        title:
          "long history: a failed turn at 32 833 messages is rolled back inside the message trie's fourth level; the next request holds every message in its place",
        file: 'src/harness/long-history-cases.ts',
      },
      failedTurnRolledBackInsideAFourthLevel,
    ),
    checksCase(
      {
        id: 'contract:long-history/pairing-seen-while-a-call-is-pending',
        title: "long history: projection.pairingViolation() read by a tool after the loop's own check sees the call open, and none once the turn ends",
        file: 'src/harness/long-history-cases.ts',
      },
      pairingSeenWhileACallIsPending,
    ),
  ];
}
