/**
 * The loop's last gate before a request leaves (invariant 6) as a case of
 * `loopgate run`: `contract:malformed-history/<id>`.
 *
 * Every request is checked for tool pairing before it is sent; a history that
 * breaks it ends the turn `failed{internal}`, naming the message and the
 * problem, instead of a request the provider rejects. The loop never writes
 * such a history, so no scenario reaches the gate. A stored log can hold one
 * all the same, and the log accepts it: a turn that closed `cancelled` (its
 * steps kept) whose call has no result — written by another writer, or a store
 * that lost the result's record. This case runs the next turn on such a log
 * (built through the log's one append entry point) and expects the refusal.
 */
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { reply } from '../../providers/fake/results.ts';
import { AgentLoop, EventLog, LogAppendError, loopDeps } from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { checksCase, type Case } from './cases.ts';
import { renderMessages } from './render.ts';
import { VirtualClock } from './virtual-clock.ts';

/**
 * A repeat chain's "a repeat of this call started" (`repeatStarted` of its first call, what the tool journal's
 * `alreadyStarted` answers for the first call's id) when one repeat's start is refused (failed / NOT_RECORDED after 0
 * attempts, which takes that start back): it must stay true while another repeat of the same chain ran, and must not
 * turn true because a call outside the chain ran. Two stored logs, each a refund (`r1`) and its repeats, one step a
 * call. Read wrongly, a later repeat of a refund that ran is run again (a second refund), or one that never ran is
 * refused ALREADY_STARTED (mutation seed 38, positions.ts: the recount after a refused start → false, and its
 * `&&` → `||`; only a unit test reached it).
 */
function refusedRepeatStartRecountsTheChain(): CheckResult[] {
  const build = (steps: { id: string; name: string; repeatOf?: string; refused?: boolean }[]): EventLog => {
    const log = new EventLog(new VirtualClock());
    log.append('inbox.received', { id: 'm0', intent: 'follow_up', text: 'Refund ORD-1001.', source: 'user' });
    log.append('turn.opened', { turn: 0, trigger: 'm0' });
    log.append('user.message', { turn: 0, id: 'm0', intent: 'follow_up', text: 'Refund ORD-1001.' });
    steps.forEach((call, i) => {
      const step = i + 1;
      const args = { order_id: 'ORD-1001' };
      const repeat = call.repeatOf !== undefined ? { repeatOf: call.repeatOf } : {};
      log.append('assistant.message', { turn: 0, step, content: [{ type: 'tool_call', id: call.id, name: call.name, args, ...repeat }] });
      log.append('tool.started', { turn: 0, step, callId: call.id, name: call.name, args, sideEffect: 'STATEFUL', attempt: 1 });
      const refusal = `${call.name} was not run: its start could not be recorded (the store is down).`;
      log.append(
        'tool.result',
        call.refused
          ? {
              turn: 0,
              step,
              callId: call.id,
              name: call.name,
              status: 'failed',
              content: refusal,
              error: {
                failed_tool: call.name,
                error_code: 'NOT_RECORDED',
                error_message: refusal,
                suggestion: 'This is a system problem, not a problem with your call.',
              },
              durationMs: 0,
              attempts: 0,
            }
          : { turn: 0, step, callId: call.id, name: call.name, status: 'ok', content: '{"done":true}', durationMs: 0, attempts: 1 },
      );
    });
    return log;
  };
  const read = (log: EventLog): string => {
    const first = log.positions.call('r1');
    return `started ${first?.started}, a repeat started ${first?.repeatStarted}`;
  };
  const otherRepeatRan = build([
    { id: 'r1', name: 'issue_refund', refused: true },
    { id: 'r1_2', name: 'issue_refund', repeatOf: 'r1' },
    { id: 'r1_3', name: 'issue_refund', repeatOf: 'r1', refused: true },
  ]);
  const onlyAnotherCallRan = build([
    { id: 'l1', name: 'lookup_order' },
    { id: 'r1', name: 'issue_refund', refused: true },
    { id: 'r1_2', name: 'issue_refund', repeatOf: 'r1', refused: true },
  ]);
  const a = read(otherRepeatRan);
  const b = read(onlyAnotherCallRan);
  const wantA = 'started false, a repeat started true';
  const wantB = 'started false, a repeat started false';
  return [
    {
      name: "a repeat's start refused while an earlier repeat of the chain ran: the chain still counts a repeat as started",
      passed: a === wantA,
      message: a,
      expected: wantA,
      actual: a,
    },
    {
      name: "a repeat's start refused while only a call outside the chain ran: the chain counts no repeat as started",
      passed: b === wantB,
      message: b,
      expected: wantB,
      actual: b,
    },
  ];
}

async function orphanCallRefused(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const log = new EventLog(clock);
  log.append('inbox.received', { id: 'm0', intent: 'follow_up', text: 'Look up ORD-1001.', source: 'user' });
  log.append('turn.opened', { turn: 0, trigger: 'm0' });
  log.append('user.message', { turn: 0, id: 'm0', intent: 'follow_up', text: 'Look up ORD-1001.' });
  log.append('assistant.message', { turn: 0, step: 1, content: [{ type: 'tool_call', id: 'c1', name: 'lookup_order', args: { order_id: 'ORD-1001' } }] });
  log.append('turn.closed', {
    turn: 0,
    outcome: { kind: 'cancelled', by: 'user' },
    steps: 1,
    usage: { inputTokens: 0, outputTokens: 0 },
    toolCalls: 1,
  });
  const model = new ScriptedModelClient([reply('ORD-1001 has shipped.')], { clock });
  const loop = new AgentLoop(loopDeps({ log, model, agent: {}, clock }));
  loop.send('Any news?', { id: 'm1' });
  const [result] = await loop.drain();
  const expected = {
    kind: 'failed',
    reason: 'internal',
    detail: 'refusing to send a malformed history: message 2: tool results [] do not match the calls [c1] in order',
  };
  const actual = JSON.stringify(result?.outcome) ?? 'no outcome';
  return [
    {
      name: 'the turn ends failed{internal}, naming the message and the problem',
      passed: actual === JSON.stringify(expected),
      message: actual === JSON.stringify(expected) ? actual : `expected ${JSON.stringify(expected)}, got ${actual}`,
      expected: JSON.stringify(expected),
      actual,
    },
    {
      name: 'the request is never sent',
      passed: model.calls === 0,
      message: `the model was called ${model.calls} time(s)`,
    },
  ];
}

/**
 * A stored log whose compaction (`projection.replaced`, written by another writer) ends at a tool call, not at a
 * turn's close: the log's position check takes any range before it, and only the loop checks that a range keeps turns
 * whole. The call's result then follows a call the summary replaced. The history is still read: that result is left
 * out with its call, and the next turn replies on the summary and what came after. Mutation seed 46: a fold that
 * looked up the replaced call anyway threw a TypeError, and every later turn of the conversation failed internal —
 * no case had such a log.
 */
async function compactionEndingAtACallLoads(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const log = new EventLog(clock);
  log.append('inbox.received', { id: 'm0', intent: 'follow_up', text: 'Look up ORD-1001.', source: 'user' });
  log.append('turn.opened', { turn: 0, trigger: 'm0' });
  log.append('user.message', { turn: 0, id: 'm0', intent: 'follow_up', text: 'Look up ORD-1001.' });
  log.append('assistant.message', { turn: 0, step: 1, content: [{ type: 'tool_call', id: 'c1', name: 'lookup_order', args: { order_id: 'ORD-1001' } }] });
  log.append('tool.result', { turn: 0, step: 1, callId: 'c1', name: 'lookup_order', status: 'ok', content: '{"shipped":true}', durationMs: 0, attempts: 1 });
  log.append('assistant.message', { turn: 0, step: 2, content: [{ type: 'text', text: 'It shipped.' }] });
  log.append('turn.closed', { turn: 0, outcome: { kind: 'replied' }, steps: 2, usage: { inputTokens: 0, outputTokens: 0 }, toolCalls: 1 });
  // Ends at the call (seq 3), not at the turn's close.
  log.append('projection.replaced', { from: 1, to: 3, summary: 'The customer asked about ORD-1001.', tokensBefore: 100, tokensAfter: 10 });
  const { outcome, sent } = await nextTurnOn(log, clock, 'Still shipped.', 'm1');
  const want = 'user: [Summary of the earlier conversation]\nThe customer asked about ORD-1001. | assistant: It shipped. | user: Any news?';
  return [
    { name: 'the next turn replies', passed: outcome === '{"kind":"replied"}', message: outcome, expected: '{"kind":"replied"}', actual: outcome },
    {
      name: 'its request holds the summary and what came after, without the replaced call’s result',
      passed: sent === want,
      message: sent,
      expected: want,
      actual: sent,
    },
  ];
}

/** The next turn ("Any news?") on a hand-made log, the model answering `answer`: its outcome, and its request as lines. */
async function nextTurnOn(log: EventLog, clock: VirtualClock, answer: string, id: string): Promise<{ outcome: string; sent: string }> {
  const model = new ScriptedModelClient([reply(answer)], { clock });
  const loop = new AgentLoop(loopDeps({ log, model, agent: {}, clock }));
  loop.send('Any news?', { id });
  let outcome: string;
  try {
    const [result] = await loop.drain();
    outcome = JSON.stringify(result?.outcome) ?? 'no outcome';
  } catch (error) {
    outcome = `drain threw: ${(error as Error).message}`;
  }
  const sent = model.requests[0] ? renderMessages(model.requests[0].messages).join(' | ') : 'no request';
  return { outcome, sent };
}

/**
 * A stored log holding several compactions at once, as a team's own compactor may write them (the loop's range
 * check takes any range that keeps turns whole and does not cut through another compaction): two turns compacted
 * one by one (disjoint), a turn compacted and then again with the turn before it (nested, the same end), and one
 * range summarized twice (the newer summary wins). The next turn's request must hold each outermost summary once,
 * and nothing they replaced. Mutation seed 48: src/kernel/projection/projection.ts:447:17 `r.to <= last.to` → `true`
 * and → `r.to > last.to` dropped the second of two disjoint compactions (its turn went back to the model whole); no
 * case had two compactions in force. (→ `r.to < last.to` keeps a compaction that ends where an outer one does in the
 * fold's list, which the fold never reaches: equivalent, mutation-equivalents.md; the two other shapes pin the rule.)
 */
async function compactionsInForceTogether(): Promise<CheckResult[]> {
  const shapes: { name: string; ranges: { turns: [number, number]; summary: string }[]; want: string }[] = [
    {
      name: 'two turns compacted one by one: each summary once, in order, and neither turn',
      ranges: [
        { turns: [0, 0], summary: 'S0: asked about ORD-1001.' },
        { turns: [1, 1], summary: 'S1: asked about ORD-1002.' },
      ],
      want: 'user: [Summary of the earlier conversation]\nS0: asked about ORD-1001. | [Summary of the earlier conversation]\nS1: asked about ORD-1002. | Any news?',
    },
    {
      name: 'a turn compacted, then with the turn before it: only the outer summary',
      ranges: [
        { turns: [1, 1], summary: 'S1: asked about ORD-1002.' },
        { turns: [0, 1], summary: 'S01: asked about two orders.' },
      ],
      want: 'user: [Summary of the earlier conversation]\nS01: asked about two orders. | Any news?',
    },
    {
      name: 'one range summarized twice: only the newer summary',
      ranges: [
        { turns: [0, 1], summary: 'S-old: two orders.' },
        { turns: [0, 1], summary: 'S-new: asked about two orders.' },
      ],
      want: 'user: [Summary of the earlier conversation]\nS-new: asked about two orders. | Any news?',
    },
  ];
  const out: CheckResult[] = [];
  for (const shape of shapes) {
    const clock = new VirtualClock();
    const log = new EventLog(clock);
    const opened: number[] = [];
    const closed: number[] = [];
    for (const turn of [0, 1]) {
      const id = `m${turn}`;
      const text = `Look up ORD-100${turn + 1}.`;
      log.append('inbox.received', { id, intent: 'follow_up', text, source: 'user' });
      opened.push(log.append('turn.opened', { turn, trigger: id }).seq);
      log.append('user.message', { turn, id, intent: 'follow_up', text });
      log.append('assistant.message', { turn, step: 1, content: [{ type: 'text', text: `ORD-100${turn + 1} shipped.` }] });
      closed.push(log.append('turn.closed', { turn, outcome: { kind: 'replied' }, steps: 1, usage: { inputTokens: 0, outputTokens: 0 }, toolCalls: 0 }).seq);
    }
    for (const r of shape.ranges) {
      const from = opened[r.turns[0]]!;
      const to = closed[r.turns[1]]!;
      log.append('projection.replaced', { from, to, summary: r.summary, tokensBefore: 100, tokensAfter: 10 }, { sources: [from, to] });
    }
    const next = await nextTurnOn(log, clock, 'Both shipped.', 'm2');
    const sent = next.sent === 'no request' ? `no request (${next.outcome})` : next.sent;
    out.push({ name: shape.name, passed: sent === shape.want, message: sent, expected: shape.want, actual: sent });
  }
  return out;
}

/**
 * A stored log in which a call is linked as a repeat (`repeatOf`) of a call the
 * log does not hold — written by another writer, or by hand through the log's
 * append — and whose start the store refused (failed NOT_RECORDED after 0
 * attempts). The position check accepts every event, so the log must index each
 * one without throwing (an event stored but not indexed would never reach the
 * log's listeners, a store among them), load again from its events as a store
 * hands them back, and the next turn must reply on that history.
 */
async function repeatOfAnUnknownCallLoads(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const written = new EventLog(clock);
  const told: string[] = [];
  written.subscribe((e) => told.push(e.type));
  let appended = 'every event appended';
  try {
    written.append('inbox.received', { id: 'm0', intent: 'follow_up', text: 'Refund ORD-1001.', source: 'user' });
    written.append('turn.opened', { turn: 0, trigger: 'm0' });
    written.append('user.message', { turn: 0, id: 'm0', intent: 'follow_up', text: 'Refund ORD-1001.' });
    written.append('assistant.message', {
      turn: 0,
      step: 1,
      content: [{ type: 'tool_call', id: 'refund_2', name: 'issue_refund', args: { order_id: 'ORD-1001' }, repeatOf: 'refund' }],
    });
    written.append('tool.started', {
      turn: 0,
      step: 1,
      callId: 'refund_2',
      name: 'issue_refund',
      args: { order_id: 'ORD-1001' },
      sideEffect: 'STATEFUL',
      attempt: 1,
    });
    written.append('tool.result', {
      turn: 0,
      step: 1,
      callId: 'refund_2',
      name: 'issue_refund',
      status: 'failed',
      content: 'issue_refund was not run: its start could not be recorded (the store is down).',
      error: {
        failed_tool: 'issue_refund',
        error_code: 'NOT_RECORDED',
        error_message: 'issue_refund was not run: its start could not be recorded (the store is down).',
        suggestion: 'This is a system problem, not a problem with your call.',
      },
      durationMs: 0,
      attempts: 0,
    });
    written.append('assistant.message', { turn: 0, step: 2, content: [{ type: 'text', text: 'The refund could not be started.' }] });
    written.append('turn.closed', { turn: 0, outcome: { kind: 'replied' }, steps: 2, usage: { inputTokens: 0, outputTokens: 0 }, toolCalls: 1 });
  } catch (error) {
    appended = `append ${written.length} threw: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`;
  }
  const allTold = told.length === written.length && written.length === 8;
  let loaded = 'loaded';
  let result: Awaited<ReturnType<AgentLoop['drain']>>[number] | undefined;
  const model = new ScriptedModelClient([reply('Please try the refund again later.')], { clock });
  try {
    const log = new EventLog(clock, written.events);
    const loop = new AgentLoop(loopDeps({ log, model, agent: {}, clock }));
    loop.send('Can you try again?', { id: 'm1' });
    [result] = await loop.drain();
  } catch (error) {
    loaded = `threw: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`;
  }
  const outcome = JSON.stringify(result?.outcome) ?? 'no outcome';
  const sent = model.requests[0]?.messages.length;
  return [
    {
      name: "every event is appended, and told to the log's listeners",
      passed: appended === 'every event appended' && allTold,
      message: `${appended}; ${told.length} of ${written.length} told`,
      expected: 'every event appended',
      actual: appended,
    },
    { name: 'the log loads again from its events', passed: loaded === 'loaded', message: loaded, expected: 'loaded', actual: loaded },
    {
      name: 'the next turn replies, sending the whole history',
      passed: result?.outcome.kind === 'replied' && sent === 5,
      message: `${outcome}, ${String(sent)} message(s) sent`,
      expected: 'replied, 5 message(s) sent',
      actual: `${result?.outcome.kind ?? 'no outcome'}, ${String(sent)} message(s) sent`,
    },
  ];
}

/**
 * Appends the log's position check refuses, through the public `EventLog.append`
 * — as a host of a team's own, an importer of old conversations or another
 * writer makes them: a message delivered twice, an event for a turn that is not
 * the open one (or when none is), a turn opened out of order, a request whose
 * prompt is not a prompt (or that covers events beyond the log), a tool started for a call never made, a restore of
 * what was never a replacement. Each must be
 * refused with a `LogAppendError` naming the field and the reason, and store
 * nothing (the loop never makes these appends, so no scenario reaches them).
 */
async function positionRefusalsNamed(): Promise<CheckResult[]> {
  const log = new EventLog(new VirtualClock());
  log.append('inbox.received', { id: 'm0', intent: 'follow_up', text: 'Look up ORD-1001.', source: 'user' });
  log.append('turn.opened', { turn: 0, trigger: 'm0' });
  log.append('user.message', { turn: 0, id: 'm0', intent: 'follow_up', text: 'Look up ORD-1001.' });
  const refusal = (name: string, append: () => unknown, field: string, reason: string): CheckResult => {
    const before = log.length;
    let got: string;
    try {
      append();
      got = 'accepted';
    } catch (error) {
      got = error instanceof LogAppendError ? `${error.field}: ${error.reason}` : `${(error as Error).name}: ${(error as Error).message}`;
    }
    const expected = `${field}: ${reason}`;
    const stored = log.length - before;
    const passed = got === expected && stored === 0;
    return { name, passed, message: passed ? got : `expected ${expected}, nothing stored; got ${got}, ${stored} event(s) stored`, expected, actual: got };
  };
  const open = [
    refusal(
      'a message delivered twice is refused',
      () => log.append('user.message', { turn: 0, id: 'm0', intent: 'follow_up', text: 'Look up ORD-1001.' }),
      'user.message.payload.id',
      'inbox message "m0" is already taken (it would be delivered twice)',
    ),
    refusal(
      'an event for a turn other than the open one is refused',
      () => log.append('assistant.message', { turn: 1, step: 1, content: [{ type: 'text', text: 'It has shipped.' }] }),
      'assistant.message.payload.turn',
      'turn 1 is not the open turn (0)',
    ),
    refusal(
      'a request whose prompt is not a prompt.assembled event is refused',
      () => log.append('model.request', { turn: 0, step: 1, attempt: 1, client: 'fake', model: 'fake', upTo: 2, prompt: 0, tools: 0, maxTokens: 1024 }),
      'model.request.payload.prompt',
      'seq 0 is not a prompt.assembled event',
    ),
    refusal(
      'a request whose prompt is an event past the end of the log is refused',
      () => log.append('model.request', { turn: 0, step: 1, attempt: 1, client: 'fake', model: 'fake', upTo: 2, prompt: 99, tools: 0, maxTokens: 1024 }),
      'model.request.payload.prompt',
      'seq 99 is not a prompt.assembled event',
    ),
    refusal(
      'a request covering events beyond the log is refused',
      () => log.append('model.request', { turn: 0, step: 1, attempt: 1, client: 'fake', model: 'fake', upTo: 99, prompt: 0, tools: 0, maxTokens: 1024 }),
      'model.request.payload.upTo',
      'seq 99 is beyond the log (3)',
    ),
    refusal(
      'a tool started for a call no assistant message made is refused',
      () => log.append('tool.started', { turn: 0, step: 1, callId: 'call_9', name: 'lookup', args: {}, sideEffect: 'NONE', attempt: 1 }),
      'tool.started.payload.callId',
      'no tool call "call_9" was made',
    ),
    refusal(
      'a block of the wrong shape is refused naming its index',
      () =>
        log.append('assistant.message', {
          turn: 0,
          step: 1,
          content: [
            { type: 'text', text: 'It has' },
            { type: 'text', text: 42 },
          ],
        } as never),
      'assistant.message.payload.content[1].text',
      'Invalid input: expected string, received number',
    ),
    refusal(
      'a restore of what is not a replacement is refused',
      () => log.append('projection.restored', { replacement: 1 }),
      'projection.restored.payload.replacement',
      'seq 1 is not a projection.replaced event',
    ),
  ];
  // A team's own host marking more of the log flushed than it holds (a store's count off by a batch).
  open.push(refusal('marking more flushed than the log holds is refused', () => log.markFlushed(9), 'flush', 'cannot mark 9 flushed (flushed 0, length 3)'));
  log.append('turn.closed', { turn: 0, outcome: { kind: 'replied' }, steps: 1, usage: { inputTokens: 0, outputTokens: 0 }, toolCalls: 0 });
  return [
    ...open,
    refusal(
      'a turn opened out of order is refused',
      () => log.append('turn.opened', { turn: 2, trigger: 'm0' }),
      'turn.opened.payload.turn',
      'expected turn 1, got 2',
    ),
    refusal(
      'an event for a turn when none is open is refused',
      () => log.append('assistant.message', { turn: 0, step: 2, content: [{ type: 'text', text: 'It has shipped.' }] }),
      'assistant.message.payload.turn',
      'turn 0 is not open',
    ),
    // A compaction undone, then undone again (mutation seed 42, positions.ts: the second refusal's field emptied).
    restoredTwice(),
  ];
  function restoredTwice(): CheckResult {
    const replaced = log.append('projection.replaced', { from: 0, to: 2, summary: 'Asked about ORD-1001.', tokensBefore: 40, tokensAfter: 10 });
    log.append('projection.restored', { replacement: replaced.seq });
    return refusal(
      'a restore of a replacement already restored is refused',
      () => log.append('projection.restored', { replacement: replaced.seq }),
      'projection.restored.payload.replacement',
      `replacement ${replaced.seq} was already restored`,
    );
  }
}

/**
 * A team's listener on the loop's log (an audit feed, a notifier) that posts a
 * message to the loop while it is told of an event — a follow-up queued as the
 * model's answer is stored. The log is mid-append then: the post must be refused
 * as a re-entrant append (a `LogAppendError` saying so, to the listener), nothing
 * of it stored, and the turn must still reply.
 */
async function sendFromAListenerRefused(): Promise<CheckResult[]> {
  return writeFromAListenerRefused('the post is refused as re-entrant', (loop) => loop.send('Also, can you add gift wrap?', { id: 'gift' }));
}

/**
 * A listener of the log that tries `write` as the model's answer is stored: the write is refused as a re-entrant
 * append (a `LogAppendError` naming `append`, to the listener), nothing of it is stored, and the turn replies.
 */
async function writeFromAListenerRefused(refusal: string, write: (loop: AgentLoop, log: EventLog) => void): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const log = new EventLog(clock);
  const model = new ScriptedModelClient([reply('ORD-1001 has shipped.')], { clock });
  const loop = new AgentLoop(loopDeps({ log, model, agent: {}, clock }));
  let refused = 'not written';
  log.subscribe((event) => {
    if (event.type !== 'assistant.message' || refused !== 'not written') return;
    try {
      write(loop, log);
      refused = 'accepted';
    } catch (error) {
      refused = error instanceof LogAppendError ? `LogAppendError: ${error.message}` : `${(error as Error).name}: ${(error as Error).message}`;
    }
  });
  loop.send('Where is ORD-1001?', { id: 'ask' });
  const [result] = await loop.drain();
  const expected = 'LogAppendError: cannot append event: append: re-entrant append of "inbox.received" from inside an append\'s listener';
  const stored = log.events.filter((e) => e.type === 'inbox.received').map((e) => (e.payload as { id: string }).id);
  return [
    { name: refusal, passed: refused === expected, message: refused, expected, actual: refused },
    {
      name: 'nothing of it is stored, and the turn replies',
      passed: JSON.stringify(stored) === '["ask"]' && result?.outcome.kind === 'replied',
      message: `inbox ${JSON.stringify(stored)}, ${result ? JSON.stringify(result.outcome) : 'no result'}`,
    },
  ];
}

/**
 * The same listener writing a record of its own straight to the log (`log.append`, the log's public write, not the
 * loop's `send`) while it is told of an event: refused as a re-entrant append with the same words, naming `append`,
 * nothing of it stored, and the turn replies (mutation seed 37, event-log.ts: only the loop's write was checked).
 */
async function appendFromAListenerRefused(): Promise<CheckResult[]> {
  return writeFromAListenerRefused('the write is refused as re-entrant, naming append', (_loop, log) =>
    log.append('inbox.received', { id: 'note', intent: 'queue', text: 'Audit: the reply was stored.', source: 'user' } as never),
  );
}

export function malformedHistoryCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:malformed-history/kept-call-without-result-refused-internal',
        title: 'malformed history: a stored cancelled turn whose call has no result makes the next turn fail internal, unsent, naming the problem',
        file: 'src/harness/malformed-history-cases.ts',
      },
      orphanCallRefused,
    ),
    checksCase(
      {
        id: 'contract:malformed-history/compaction-ending-at-a-call-loads',
        title: "a stored log whose compaction ends at a call, not a turn's close: the call's result is left out with it and the next turn replies",
        file: 'src/harness/malformed-history-cases.ts',
      },
      compactionEndingAtACallLoads,
    ),
    checksCase(
      {
        id: 'contract:malformed-history/compactions-in-force-together',
        title:
          'a stored log with compactions in force together (disjoint, nested to the same end, one range twice): the next request holds each outermost summary once',
        file: 'src/harness/malformed-history-cases.ts',
      },
      compactionsInForceTogether,
    ),
    checksCase(
      {
        id: 'contract:malformed-history/repeat-of-a-call-not-in-the-log-loads',
        title: 'malformed history: a stored repeat of a call the log does not hold, its start refused, is indexed, loads and the next turn replies',
        file: 'src/harness/malformed-history-cases.ts',
      },
      repeatOfAnUnknownCallLoads,
    ),
    checksCase(
      {
        id: 'contract:malformed-history/refused-repeat-start-recounts-the-chain',
        title: "log positions: a repeat's refused start leaves the chain started only if another of its repeats ran, not a call outside it",
        file: 'src/harness/malformed-history-cases.ts',
      },
      refusedRepeatStartRecountsTheChain,
    ),
    checksCase(
      {
        id: 'contract:malformed-history/out-of-place-appends-refused-naming-the-field',
        title: 'malformed history: appends out of place (a message twice, another turn, a prompt that is not one) are refused naming the field, nothing stored',
        file: 'src/harness/malformed-history-cases.ts',
      },
      positionRefusalsNamed,
    ),
    checksCase(
      {
        id: 'contract:malformed-history/append-from-a-log-listener-refused-as-re-entrant',
        title:
          'malformed history: a record appended to the log from inside a log listener is refused as a re-entrant append naming append, nothing stored, and the turn replies',
        file: 'src/harness/malformed-history-cases.ts',
      },
      appendFromAListenerRefused,
    ),
    checksCase(
      {
        id: 'contract:malformed-history/send-from-a-log-listener-refused-as-re-entrant',
        title:
          'malformed history: a message posted to the loop from inside a log listener is refused as a re-entrant append, nothing stored, and the turn replies',
        file: 'src/harness/malformed-history-cases.ts',
      },
      sendFromAListenerRefused,
    ),
  ];
}
