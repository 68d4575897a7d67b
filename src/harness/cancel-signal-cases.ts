/**
 * A loop's linked cancel signals (`loopDeps({ signals: { parent, shutdown } })`),
 * as cases of `loopgate run`: `contract:cancel-signals/<id>`.
 *
 * A loop running as a parent's sub-task is handed the parent's `AbortSignal`;
 * one in a process is handed the process's shutdown signal. Aborting either
 * cancels the running turn as `cancelled{parent}` / `cancelled{shutdown}`, and
 * a signal already aborted when a turn opens cancels it before any request.
 * The scenarios cancel through `loop.cancel` and the host (which aborts its
 * shutdown signal and then calls `loop.shutdown` as well), so a loop that
 * ignored its signals passed them all; here the signals are the only way the
 * turn is told. A cancel from a signal is recorded as any other: a
 * `cancel.requested` naming the source and the signal's reason (its text, or
 * its message when it is an Error), inside the turn it cancelled.
 */
import { call, reply, toolUse } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { getEventListeners } from 'node:events';
import { z } from 'zod';
import { AgentLoop, CancelScope, defineTool, EventLog, loopDeps, raceAbort, type Agent } from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { checksCase, type Case } from './cases.ts';
import { VirtualClock } from './virtual-clock.ts';
import { refundThenCancel } from './world/refund-then-cancel.ts';

const label = (o: { kind: string; by?: string; reason?: string } | undefined): string =>
  o === undefined ? 'no outcome' : o.kind === 'cancelled' ? `cancelled{${o.by}}` : o.kind === 'failed' ? `failed{${o.reason}}` : o.kind;

/** The `cancel.requested` records of the log, as JSON. */
function cancelsOf(log: EventLog): string {
  return JSON.stringify(log.events.filter((e) => e.type === 'cancel.requested').map((e) => e.payload));
}

/** Whether the log's first `cancel.requested` follows its first `turn.opened` (a cancel belongs to an open turn). */
function afterOpen(log: EventLog): string {
  const types = log.events.map((e) => e.type);
  const opened = types.indexOf('turn.opened');
  const cancel = types.indexOf('cancel.requested');
  return opened >= 0 && cancel > opened ? 'after turn.opened' : `at ${cancel}, turn.opened at ${opened}`;
}

function check(name: string, expected: string, actual: string): CheckResult {
  return { name, passed: actual === expected, message: actual === expected ? actual : `expected ${expected}, got ${actual}`, expected, actual };
}

/** The parent aborts while the second request is in flight: the turn ends cancelled{parent}, the lookup kept. */
async function parentSignalCancelsTheRunningTurn(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const parent = new AbortController();
  const agent: Agent = {
    tools: [
      defineTool({
        name: 'lookup_order',
        description: 'Look an order up.',
        input: z.object({ order_id: z.string() }),
        sideEffect: 'NONE',
        run: () => ({ status: 'delivered' }),
      }),
    ],
  };
  const model = new ScriptedModelClient(
    [toolUse([call('look', 'lookup_order', { order_id: 'ORD-1001' })]), { result: reply('never delivered'), latencyMs: 10_000 }],
    { clock },
  );
  const log = new EventLog(clock);
  const loop = new AgentLoop(loopDeps({ log, model, agent, clock, signals: { parent: parent.signal } }));
  loop.send('Check ORD-1001 for me.', { id: 'ask' });
  const running = loop.drain();
  for (let i = 0; i < 1_000 && model.calls < 2; i++) await new Promise((resolve) => setImmediate(resolve));
  parent.abort('the parent task was closed');
  const [result] = await clock.run(running);
  const history = log.events.filter((e) => e.type === 'tool.result').length;
  return [
    check('the log records who cancelled and why', '[{"by":"parent","reason":"the parent task was closed"}]', cancelsOf(log)),
    check('the turn ends cancelled{parent}', 'cancelled{parent}', label(result?.outcome as never)),
    check('two requests sent, the second cut short', '2', String(model.calls)),
    check('the lookup the model completed keeps its result', '1', String(history)),
    check('the model call span ends cancelled', 'cancelled', result?.trace.spans.filter((s) => s.kind === 'model_call')[1]?.status ?? 'none'),
  ];
}

/** The shutdown signal is already aborted when the turn opens: cancelled{shutdown}, no request sent. */
async function abortedShutdownSignalCancelsBeforeAnyRequest(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const shutdown = new AbortController();
  shutdown.abort(new Error('the process is exiting'));
  const model = new ScriptedModelClient([reply('never requested')], { clock });
  const log = new EventLog(clock);
  const loop = new AgentLoop(loopDeps({ log, model, agent: {}, clock, signals: { shutdown: shutdown.signal } }));
  loop.send('Where is ORD-1001?', { id: 'ask' });
  const [result] = await loop.drain();
  return [
    check(
      'the log records who cancelled and why, in the turn',
      '[{"by":"shutdown","reason":"the process is exiting"}] after turn.opened',
      `${cancelsOf(log)} ${afterOpen(log)}`,
    ),
    check('the turn ends cancelled{shutdown}', 'cancelled{shutdown}', label(result?.outcome as never)),
    check('no request sent', '0', String(model.calls)),
  ];
}

/**
 * The shutdown signal aborted with a reason that is neither text nor an Error —
 * a process manager's structured reason (`{ signal: 'SIGTERM' }`): the cancel
 * is recorded with a text a person can read (`cancelled by shutdown`), never
 * `[object Object]`, and the turn ends cancelled{shutdown}.
 */
async function structuredShutdownReasonRecordedAsText(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const shutdown = new AbortController();
  shutdown.abort({ signal: 'SIGTERM' });
  const model = new ScriptedModelClient([reply('never requested')], { clock });
  const log = new EventLog(clock);
  const loop = new AgentLoop(loopDeps({ log, model, agent: {}, clock, signals: { shutdown: shutdown.signal } }));
  loop.send('Where is ORD-1001?', { id: 'ask' });
  const [result] = await loop.drain();
  return [
    check('the log records who cancelled, with a readable reason', '[{"by":"shutdown","reason":"cancelled by shutdown"}]', cancelsOf(log)),
    check('the turn ends cancelled{shutdown}', 'cancelled{shutdown}', label(result?.outcome as never)),
  ];
}

/** raceAbort's timeout: a value settles the race; undefined lets it go on to the work's own answer (mutation seed 25). */
async function raceTimeoutAnsweringUndefinedGoesOn(): Promise<CheckResult[]> {
  const race = async (value: () => string | undefined): Promise<string> => {
    const clock = new VirtualClock();
    let answer!: (text: string) => void;
    const work = new Promise<string>((resolve) => {
      answer = resolve;
    });
    clock.setTimer(200, () => answer('the work answered at 200 ms'));
    const raced = raceAbort(
      work,
      new AbortController().signal,
      () => 'aborted',
      () => 'rejected',
      { clock, ms: 100, value },
    );
    await clock.advance(300);
    return String(await raced);
  };
  const goesOn = await race(() => undefined);
  const settles = await race(() => 'timed out at 100 ms');
  return [
    {
      name: 'a timeout answering undefined: the race goes on to the work',
      passed: goesOn === 'the work answered at 200 ms',
      message: goesOn,
      expected: 'the work answered at 200 ms',
      actual: goesOn,
    },
    {
      name: 'a timeout answering a value: the race settles with it',
      passed: settles === 'timed out at 100 ms',
      message: settles,
      expected: 'timed out at 100 ms',
      actual: settles,
    },
  ];
}

/** A `CancelScope` (exported) made with no signals to link: the first cancel wins and aborts its signal with its reason (mutation seed 33). */
async function scopeWithoutLinksCancelsOnce(): Promise<CheckResult[]> {
  let made: string;
  let signal = 'no scope';
  let wins = '';
  try {
    const scope = new CancelScope();
    made = 'made';
    const first = scope.cancel('user', 'the customer left');
    const second = scope.cancel('shutdown');
    wins = `${first}/${second}`;
    signal = `${scope.signal.aborted} ${JSON.stringify(scope.signal.reason)} ${JSON.stringify(scope.cancelled)}`;
    scope.dispose();
  } catch (error) {
    made = `threw ${String(error)}`;
  }
  const reason = '{"by":"user","reason":"the customer left"}';
  return [
    check('new CancelScope() with no links', 'made', made),
    check('the first cancel wins, the second is ignored', 'true/false', wins),
    check('the signal aborts with the first cancel as its reason', `true ${reason} ${reason}`, signal),
  ];
}

/**
 * `drain()` called again while a drain runs (a second message posted and drained by another caller, as a host
 * does) joins the running drain: the same promise, one turn per message in order, never a second drain running
 * turns beside the first (mutation seed 34).
 */
async function drainWhileDrainingJoinsTheRunningDrain(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const model = new ScriptedModelClient([{ result: reply('ORD-1001 is on its way.'), latencyMs: 1_000 }, reply('ORD-1002 arrived yesterday.')], {
    clock,
  });
  const log = new EventLog(clock);
  const loop = new AgentLoop(loopDeps({ log, model, agent: {}, clock }));
  loop.send('Where is ORD-1001?', { id: 'first' });
  const first = loop.drain();
  loop.send('And ORD-1002?', { id: 'second' });
  const second = loop.drain();
  const [a, b] = await clock.run(Promise.all([first, second]));
  const outcomes = (results: readonly { outcome: unknown }[]) => results.map((r) => label(r.outcome as never)).join(', ');
  return [
    check('the second drain() returns the running drain', 'true', String(first === second)),
    check("the first caller's turns", 'replied, replied', outcomes(a)),
    check("the second caller's turns, the same", 'replied, replied', outcomes(b)),
    check('two requests, one per turn', '2', String(model.calls)),
  ];
}

/**
 * `loop.shutdown(reason)` called while a request is in flight, with no shutdown signal linked: the running turn ends
 * cancelled{shutdown} and the log records a cancel by shutdown. The host aborts its shutdown signal before it calls
 * `shutdown`, so there the signal names the source and a `shutdown` that cancelled as anyone else passed (mutation
 * seed 36, runner.ts).
 */
async function shutdownCallCancelsTheRunningTurn(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const model = new ScriptedModelClient([{ result: reply('never delivered'), latencyMs: 10_000 }], { clock });
  const log = new EventLog(clock);
  const loop = new AgentLoop(loopDeps({ log, model, agent: { tools: [] }, clock }));
  loop.send('Where is ORD-1001?', { id: 'ask' });
  const running = loop.drain();
  for (let i = 0; i < 1_000 && model.calls < 1; i++) await new Promise((resolve) => setImmediate(resolve));
  loop.shutdown('the process is stopping');
  const results = await clock.run(running);
  const result = results[0];
  return [
    check('the log records the cancel by shutdown, with its reason', '[{"by":"shutdown","reason":"the process is stopping"}]', cancelsOf(log)),
    check('the turn ends cancelled{shutdown}', 'cancelled{shutdown}', label(result?.outcome as never)),
    check('the drain ends with that one turn: no new one starts', '1', String(results.length)),
  ];
}

/**
 * `loop.cancel(by, reason)` answers whether this call cancelled a turn (its documented return): false with no turn
 * running, true for the call that cancels the request in flight, false for a second call after it (the first reason
 * wins) and after the turn ended. A host that counts or reports cancels reads the answer (mutation seed 37,
 * runner.ts: a cancel that answered false every time passed every case).
 */
async function cancelAnswersWhetherItCancelled(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const model = new ScriptedModelClient([{ result: reply('never delivered'), latencyMs: 10_000 }], { clock });
  const log = new EventLog(clock);
  const loop = new AgentLoop(loopDeps({ log, model, agent: { tools: [] }, clock }));
  const idle = loop.cancel('user', 'nothing to cancel');
  loop.send('Where is ORD-1001?', { id: 'ask' });
  const running = loop.drain();
  for (let i = 0; i < 1_000 && model.calls < 1; i++) await new Promise((resolve) => setImmediate(resolve));
  const first = loop.cancel('user', 'the customer left');
  const second = loop.cancel('user', 'asked again');
  const results = await clock.run(running);
  const after = loop.cancel('user', 'too late');
  return [
    check('cancel with no turn running, during the request, again, after the turn ended', 'false true false false', `${idle} ${first} ${second} ${after}`),
    check('the log records the one cancel, with the first reason', '[{"by":"user","reason":"the customer left"}]', cancelsOf(log)),
    check('the turn ends cancelled{user}', 'cancelled{user}', label(results[0]?.outcome as never)),
  ];
}

/**
 * `raceAbort` (exported) lets go of its signal once the work settles: a signal that aborts after that (the turn
 * cancelled after the request had answered) calls no race's `onAbort`. A turn's signal outlives many races (every
 * model and tool call); a race still watching would run each finished race's abort handler on a later cancel
 * (mutation seed 37, abort-watch.ts: an unwatch that kept the watchers).
 */
async function settledRaceNotToldOfALaterAbort(): Promise<CheckResult[]> {
  const controller = new AbortController();
  let told = 0;
  const answers: string[] = [];
  for (const work of ['the lookup', 'the reply']) {
    answers.push(
      await raceAbort(
        Promise.resolve(work),
        controller.signal,
        () => {
          told++;
          return 'aborted';
        },
        () => 'rejected',
      ),
    );
  }
  controller.abort('the customer left');
  await new Promise((resolve) => setImmediate(resolve));
  return [
    check('the two races answer with their work', 'the lookup, the reply', answers.join(', ')),
    check('the abort after both settled calls no onAbort', '0', String(told)),
  ];
}

/**
 * `CancelScope` (exported: a team's own runner merges its cancel sources with it) cancelled with no reason given
 * keeps "cancelled by <source>" as its reason, on `cancelled` and as the signal's reason: what a tool or a model call
 * that reads the signal reports, and what a log records. The loop always passes a reason, so nothing read the
 * default (mutation seed 39, cancellation.ts: the default emptied); a second cancel loses and keeps the first.
 */
async function scopeCancelledWithoutAReasonNamesTheSource(): Promise<CheckResult[]> {
  const checks: CheckResult[] = [];
  for (const by of ['user', 'parent'] as const) {
    const scope = new CancelScope();
    const won = scope.cancel(by);
    const again = scope.cancel('shutdown');
    const reason = scope.signal.reason as { by?: unknown; reason?: unknown } | undefined;
    checks.push(
      check(
        `cancel('${by}'), then cancel('shutdown'): who won, the reason kept, the signal's reason`,
        `true false cancelled by ${by} ${JSON.stringify({ by, reason: `cancelled by ${by}` })}`,
        `${won} ${again} ${scope.cancelled?.reason} ${JSON.stringify(reason)}`,
      ),
    );
  }
  return checks;
}

/**
 * A turn cancelled while the first of two STATEFUL calls runs: the second never
 * started, and the loop closes it as the turn ends with the structured error the
 * model reads for any failed call: `NOT_RUN`, the reason, and the suggestion that
 * it never ran and may be called again (mutation seed 42, tool-journal.ts: the
 * suggestion emptied, and no case read it; the scenarios that reach it read the
 * error code).
 */
async function callNotStartedClosedNotRunSaysCallItAgain(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const log = new EventLog(clock);
  const [result] = await refundThenCancel(log, clock).drain();
  const receipt = log.events.find((e) => e.type === 'tool.result' && (e.payload as { callId?: string }).callId === 'receipt');
  const error = (receipt?.payload as { error?: unknown } | undefined)?.error;
  const want = JSON.stringify({
    failed_tool: 'send_receipt',
    error_code: 'NOT_RUN',
    error_message: 'send_receipt was not run: the turn was cancelled by user before it started.',
    suggestion: 'It never ran; call it again if it is still needed.',
  });
  const got = receipt === undefined ? 'no tool.result' : JSON.stringify(error ?? receipt.payload);
  return [
    check('the turn is cancelled by the user', 'cancelled{user}', label(result?.outcome as never)),
    check("the receipt's result: NOT_RUN, never ran, call it again", want, got),
  ];
}

/**
 * Three `raceAbort`s pending on one signal at once (a step's parallel-safe calls each race the turn's signal this
 * way): the abort tells each, in the order they began, and each settles with its own `onAbort`; one that settled
 * before the abort is not told. The gate's parallel calls never had two races pending on one signal (the second
 * returns at once), so the watchers' Set, made for the second, was never made (mutation seed 43, abort-watch.ts:
 * the Set never made, and a second race threw).
 */
async function racesPendingTogetherEachToldInOrder(): Promise<CheckResult[]> {
  const controller = new AbortController();
  const told: string[] = [];
  const never = new Promise<string>(() => {});
  const race = (name: string, work: Promise<string>) =>
    raceAbort(
      work,
      controller.signal,
      () => {
        told.push(name);
        return `${name} aborted`;
      },
      () => `${name} rejected`,
    );
  let settle: (value: string) => void = () => {};
  const settling = new Promise<string>((resolve) => {
    settle = resolve;
  });
  let answers: string;
  try {
    const races = [race('the lookup', never), race('the receipt', settling), race('the refund', never), race('the label', never)];
    settle('the receipt sent');
    await races[1];
    controller.abort('the customer left');
    answers = (await Promise.all(races)).join(', ');
  } catch (error) {
    answers = `threw: ${error instanceof Error ? error.message : String(error)}`;
  }
  return [
    check(
      'each race answers: the settled one its work, the others their onAbort',
      'the lookup aborted, the receipt sent, the refund aborted, the label aborted',
      answers,
    ),
    check('the abort tells the pending races, in the order they began', 'the lookup, the refund, the label', told.join(', ')),
  ];
}

/**
 * A loop linked to a parent's signal (a sub-task of a long-lived parent) lets go of it when each turn ends: after
 * three turns the parent's signal holds no `abort` listener of the loop's. A turn's `CancelScope` that was not
 * disposed kept its listener on the parent for as long as the parent lived, one per turn, and a parent aborted later
 * cancelled the scopes of turns long over; the next turn's outcome is the same, so nothing read it (mutation seed 43,
 * runner.ts: the turn's scope not disposed).
 */
async function parentSignalReleasedWhenEachTurnEnds(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const parent = new AbortController();
  const model = new ScriptedModelClient([reply('ORD-1001 is on its way.'), reply('ORD-1002 arrived yesterday.'), reply('You are welcome.')], {
    clock,
  });
  const log = new EventLog(clock);
  const loop = new AgentLoop(loopDeps({ log, model, agent: {}, clock, signals: { parent: parent.signal } }));
  const before = getEventListeners(parent.signal, 'abort').length;
  loop.send('Where is ORD-1001?', { id: 'first' });
  loop.send('And ORD-1002?', { id: 'second' });
  loop.send('Thanks.', { id: 'third' });
  const results = await clock.run(loop.drain());
  const after = getEventListeners(parent.signal, 'abort').length;
  parent.abort('the parent task was closed');
  return [
    check('three turns reply', 'replied, replied, replied', results.map((r) => label(r.outcome as never)).join(', ')),
    check("abort listeners on the parent's signal, before and after the turns", '0 0', `${before} ${after}`),
    check('the parent aborting after the turns records no cancel', '[]', cancelsOf(log)),
  ];
}

export function cancelSignalCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:cancel-signals/parent-signal-cancels-the-running-turn',
        title: "cancel signals: the parent's signal aborting mid-request ends the turn cancelled{parent}, the completed lookup kept",
        file: 'src/harness/cancel-signal-cases.ts',
      },
      parentSignalCancelsTheRunningTurn,
    ),
    checksCase(
      {
        id: 'contract:cancel-signals/aborted-shutdown-signal-cancels-before-any-request',
        title: 'cancel signals: a shutdown signal already aborted when the turn opens ends it cancelled{shutdown}, nothing sent',
        file: 'src/harness/cancel-signal-cases.ts',
      },
      abortedShutdownSignalCancelsBeforeAnyRequest,
    ),
    checksCase(
      {
        id: 'contract:cancel-signals/structured-shutdown-reason-recorded-as-text',
        title:
          'cancel signals: a shutdown signal aborted with a reason that is neither text nor an Error is recorded "cancelled by shutdown", never [object Object]',
        file: 'src/harness/cancel-signal-cases.ts',
      },
      structuredShutdownReasonRecordedAsText,
    ),
    checksCase(
      {
        id: 'contract:cancel-signals/race-timeout-answering-undefined-goes-on',
        title: "cancel signals: raceAbort's timeout settles the race with its value, and when it answers undefined the race goes on to the work's answer",
        file: 'src/harness/cancel-signal-cases.ts',
      },
      raceTimeoutAnsweringUndefinedGoesOn,
    ),
    checksCase(
      {
        id: 'contract:cancel-signals/scope-without-links-cancels-once',
        title: 'cancel signals: a CancelScope made with no signals to link is made, its first cancel wins and aborts its signal with that reason',
        file: 'src/harness/cancel-signal-cases.ts',
      },
      scopeWithoutLinksCancelsOnce,
    ),
    checksCase(
      {
        id: 'contract:cancel-signals/drain-while-draining-joins-the-running-drain',
        title: 'loop api: drain() called while a drain runs returns the running drain, whose turns answer both messages in order',
        file: 'src/harness/cancel-signal-cases.ts',
      },
      drainWhileDrainingJoinsTheRunningDrain,
    ),
    checksCase(
      {
        id: 'contract:cancel-signals/shutdown-call-cancels-the-running-turn',
        title: 'loop api: shutdown(reason) called mid-request with no signal linked ends the turn cancelled{shutdown}, the cancel recorded by shutdown',
        file: 'src/harness/cancel-signal-cases.ts',
      },
      shutdownCallCancelsTheRunningTurn,
    ),
    checksCase(
      {
        id: 'contract:cancel-signals/cancel-answers-whether-it-cancelled',
        title: 'loop api: cancel() answers true only for the call that cancels the running turn, false with none running, again, or after it ended',
        file: 'src/harness/cancel-signal-cases.ts',
      },
      cancelAnswersWhetherItCancelled,
    ),
    checksCase(
      {
        id: 'contract:cancel-signals/settled-race-not-told-of-a-later-abort',
        title: 'cancel signals: a raceAbort whose work settled is not told when its signal aborts later: no onAbort runs',
        file: 'src/harness/cancel-signal-cases.ts',
      },
      settledRaceNotToldOfALaterAbort,
    ),
    checksCase(
      {
        id: 'contract:cancel-signals/scope-cancelled-without-a-reason-names-the-source',
        title: 'cancel signals: a CancelScope cancelled with no reason keeps "cancelled by <source>", on cancelled and as its signal\'s reason',
        file: 'src/harness/cancel-signal-cases.ts',
      },
      scopeCancelledWithoutAReasonNamesTheSource,
    ),
    checksCase(
      {
        id: 'contract:cancel-signals/call-not-started-closed-not-run-says-call-it-again',
        title: 'cancel signals: a call the cancel kept from starting is closed NOT_RUN, telling the model it never ran and may be called again',
        file: 'src/harness/cancel-signal-cases.ts',
      },
      callNotStartedClosedNotRunSaysCallItAgain,
    ),
    checksCase(
      {
        id: 'contract:cancel-signals/races-pending-together-each-told-in-order',
        title: 'cancel signals: raceAbort pending several at once on one signal: the abort tells each still pending, in the order they began',
        file: 'src/harness/cancel-signal-cases.ts',
      },
      racesPendingTogetherEachToldInOrder,
    ),
    checksCase(
      {
        id: 'contract:cancel-signals/parent-signal-released-when-each-turn-ends',
        title: "cancel signals: a loop linked to a parent's signal keeps no listener on it once its turns end",
        file: 'src/harness/cancel-signal-cases.ts',
      },
      parentSignalReleasedWhenEachTurnEnds,
    ),
  ];
}
