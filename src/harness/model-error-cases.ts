/**
 * The kernel's outcome for a model transport error, as an agent's own handler
 * uses it: `contract:model-errors/<id>`.
 *
 * `outcomeForTransport` is exported for agents' own model-error handlers (asked
 * before the loop's built-in ones): a handler that fails a transport error at
 * once — a batch agent that never waits for a retry — takes the kernel's outcome
 * for it. The loop's own chain never reaches it for every kind (fail-fast
 * answers auth and invalid_request first), so no scenario would notice a wrong
 * mapping; here an agent whose handler fails every transport error with it
 * meets each kind once (9), and each turn must end with the outcome the kernel
 * documents for that kind.
 */
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { overflow, reply, transportError } from '../../providers/fake/results.ts';
import {
  AgentLoop,
  decodeRecords,
  EventLog,
  loopDeps,
  outcomeForTransport,
  toRecord,
  type Agent,
  type ModelClient,
  type ModelErrorHandler,
  type Outcome,
} from '../kernel/index.ts';
import type { TransportErrorKind } from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { checksCase, type Case } from './cases.ts';
import { VirtualClock } from './virtual-clock.ts';

/** Each kind (every one: a new kind must be added here), and the outcome a turn it ends must carry (kind/reason). */
const EXPECTED: Record<TransportErrorKind, string> = {
  auth: 'failed/auth',
  invalid_request: 'failed/invalid_request',
  rate_limited: 'failed/rate_limited',
  timeout: 'failed/provider_unavailable',
  overloaded: 'failed/provider_unavailable',
  server_error: 'failed/provider_unavailable',
  network: 'failed/provider_unavailable',
  malformed_stream: 'failed/provider_unavailable',
  aborted: 'failed/provider_unavailable',
};

/** The agent's handler: every transport error fails the turn at once, with the kernel's outcome for it. */
const neverRetry: ModelErrorHandler = {
  name: 'never-retry',
  handle: (error) =>
    error.type === 'transport_error' ? { action: 'fail', outcome: outcomeForTransport(error), detail: 'this agent never retries' } : undefined,
};

const label = (outcome: Outcome | undefined): string =>
  outcome === undefined ? 'no outcome' : `${outcome.kind}${'reason' in outcome ? `/${String(outcome.reason)}` : ''}`;

async function ownHandlerFailsEachKindWithItsOutcome(): Promise<CheckResult[]> {
  const checks: CheckResult[] = [];
  for (const [kind, expected] of Object.entries(EXPECTED) as [TransportErrorKind, string][]) {
    const agent: Agent = { errorHandlers: [neverRetry] };
    const clock = new VirtualClock();
    const model = new ScriptedModelClient([transportError(kind, { message: `the provider said ${kind}` })], { clock });
    const loop = new AgentLoop(loopDeps({ log: new EventLog(clock), model, agent, clock }));
    loop.send('Summarise the ticket.', { id: `ask-${kind}` });
    const [result] = await loop.drain();
    const actual = label(result?.outcome);
    checks.push({
      name: `${kind}: ${expected}`,
      passed: actual === expected,
      message: `a transport error of kind ${kind} the agent's handler failed with outcomeForTransport ended the turn ${actual}`,
      expected,
      actual,
    });
  }
  return checks;
}

/**
 * A context overflow hands the agent's compactor the widest range it may replace:
 * whole closed turns, from the first turn's opening to the last close, and no
 * range at all while no turn has closed (the first turn is never summarised out
 * from under itself). The loop refuses a proposal that cuts the open turn anyway,
 * so a wrong candidate changes no outcome: only what the compactor is handed (a
 * compactor that summarises what it is handed pays for a summary that is then
 * thrown away) and the decision's detail. Checked here on the compactor itself.
 */
async function overflowHandsTheCompactorWholeClosedTurns(): Promise<CheckResult[]> {
  const handed: unknown[] = [];
  const compactor: NonNullable<Agent['compactor']> = {
    compact: async ({ candidate }) => {
      handed.push(candidate === undefined ? undefined : { from: candidate.from, to: candidate.to });
      return null;
    },
  };
  const clock = new VirtualClock();
  const log = new EventLog(clock);
  const model = new ScriptedModelClient([overflow('request'), reply('ORD-1001 was delivered.'), overflow('request')], { clock });
  const loop = new AgentLoop(loopDeps({ log, model, agent: { compactor }, clock }));
  loop.send('Here is my whole email thread with the courier: ...', { id: 'first' });
  await loop.drain();
  loop.send('Where is ORD-1001?', { id: 'second' });
  await loop.drain();
  loop.send('And here is the thread again: ...', { id: 'third' });
  await loop.drain();
  const types = log.events.map((e) => e.type);
  const lastOpened = types.lastIndexOf('turn.opened');
  // At the third turn's overflow: from the first turn's opening to the last close before the third turn opened.
  const expected = [undefined, { from: types.indexOf('turn.opened'), to: types.lastIndexOf('turn.closed', lastOpened) }];
  const show = (v: unknown) => (v === undefined ? 'no candidate' : JSON.stringify(v));
  return [
    {
      name: 'first turn: no candidate',
      passed: handed.length >= 1 && handed[0] === undefined,
      message: `an overflow in the first turn, before any turn closed, handed the compactor ${handed.length >= 1 ? show(handed[0]) : 'nothing (it was not asked)'}`,
      expected: show(expected[0]),
      actual: handed.length >= 1 ? show(handed[0]) : 'not asked',
    },
    {
      name: 'later turn: the closed turns before it',
      passed: handed.length >= 2 && JSON.stringify(handed[1]) === JSON.stringify(expected[1]),
      message: `an overflow in the third turn handed the compactor ${handed.length >= 2 ? show(handed[1]) : 'nothing (it was not asked)'}`,
      expected: show(expected[1]),
      actual: handed.length >= 2 ? show(handed[1]) : 'not asked',
    },
  ];
}

/**
 * A team's own model client (the `ModelClient` interface is exported; one
 * written in JavaScript, or cast, is not held to its types) that answers with
 * what the loop does not know: a result of a newer type (`thinking`), or a
 * transport error of a kind it invented (`quota`). The turn must end
 * failed{internal} naming the answer, never take it for a reply or retry it as
 * a known kind, and store nothing of it a reader would refuse (the
 * conversation must still read back from its records).
 */
async function unknownAnswerOfAClientFailsNamingIt(): Promise<CheckResult[]> {
  const answers: [string, unknown, string][] = [
    ['a result of a type the loop does not know', { type: 'thinking', text: 'hm' }, 'Error: unhandled model result: {"type":"thinking","text":"hm"}'],
    [
      'a transport error of a kind the loop does not know',
      { type: 'transport_error', kind: 'quota', message: 'out of credit' },
      'Error: unhandled transport error kind: "quota"',
    ],
  ];
  const checks: CheckResult[] = [];
  for (const [what, answer, detail] of answers) {
    const { outcome, log, reads } = await turnAnswered(answer);
    const expected = JSON.stringify({ kind: 'failed', reason: 'internal', detail });
    const actual = `${outcome}${log.events.some((e) => e.type === 'assistant.message') ? ', an assistant message stored' : ''}`;
    checks.push({ name: `${what}: failed{internal}, naming it`, passed: actual === expected, message: actual, expected, actual });
    // Nothing of the answer is stored that a reader would refuse: the conversation reads back from its records.
    checks.push({ name: `${what}: the log reads back`, passed: reads === 'reads back', message: reads, expected: 'reads back', actual: reads });
  }
  return checks;
}

/** One turn of a loop whose own client answers `answer`: its outcome as JSON, its log, and whether the log reads back. */
async function turnAnswered(answer: unknown): Promise<{ outcome: string; log: EventLog; reads: string }> {
  const clock = new VirtualClock();
  const log = new EventLog(clock);
  const model: ModelClient = { name: 'own-client', call: async () => answer as never };
  const loop = new AgentLoop(loopDeps({ log, agent: {}, clock, model }));
  loop.send('Where is ORD-1001?', { id: 'ask' });
  const [result] = await clock.run(loop.drain());
  let reads = 'reads back';
  try {
    decodeRecords(log.events.map(toRecord), 'the case log');
  } catch (error) {
    reads = (error as Error).message;
  }
  return { outcome: JSON.stringify(result?.outcome) ?? 'no outcome', log, reads };
}

/**
 * Outside probe 35, F11: a team's own client (a gateway wrapper) that settles with a result missing its parts — no
 * result at all, a reply without content, calls that are no list, a text that is a number — ended the turn
 * failed{internal} (loopgate's own bugs) with a bare TypeError from deep in the loop. It broke the client's contract,
 * as a client that rejects does: a transport error naming the client and what is wrong, retried as a network error,
 * then failed{provider_unavailable}; never a throw, and nothing stored a reader would refuse.
 */
async function malformedResultOfAClientIsAContractViolation(): Promise<CheckResult[]> {
  const answers: [string, unknown, string][] = [
    ['no result at all', undefined, 'no result (undefined)'],
    ['a reply without content', { type: 'reply', text: 'hi' }, 'a reply whose content is not a list of blocks'],
    ['calls that are no list', { type: 'tool_use', content: [], text: '', calls: 'x' }, 'a tool_use whose calls are not a list'],
    ['a text that is a number', { type: 'reply', content: [{ type: 'text', text: 'hi' }], text: 42 }, 'a reply whose text is not a string'],
    [
      'a call block without an id',
      { type: 'tool_use', content: [{ type: 'tool_call', name: 'lookup', args: {} }], text: '', calls: [{ name: 'lookup', args: {} }] },
      'a tool_use whose content[0] is a tool_call without an id',
    ],
    // The calls list is held to the contract on its own (mutation seed 50, result-shape.ts: a call without an id in
    // `calls` passed when the content's block had one).
    [
      'a call without an id beside a block with one',
      { type: 'tool_use', content: [{ type: 'tool_call', id: 'call_1', name: 'lookup', args: {} }], text: '', calls: [{ name: 'lookup', args: {} }] },
      'a tool_use whose calls[0] is not a call with an id and a name',
    ],
  ];
  const checks: CheckResult[] = [];
  for (const [what, answer, problem] of answers) {
    const { outcome: actual, reads } = await turnAnswered(answer);
    const detail = `network: model client own-client returned a malformed result (contract violation): ${problem}`;
    const expected = JSON.stringify({ kind: 'failed', reason: 'provider_unavailable', detail });
    checks.push({
      name: `${what}: failed{provider_unavailable}, naming the client and what is wrong`,
      passed: actual === expected,
      message: actual,
      expected,
      actual,
    });
    checks.push({ name: `${what}: the log reads back`, passed: reads === 'reads back', message: reads, expected: 'reads back', actual: reads });
  }
  return checks;
}

/**
 * A team's own handler (asked before the built-in ones) that fails the turn
 * with an outcome outside the closed alphabet — one written in JavaScript, or
 * cast, is not held to `Outcome`: a kind the loop does not know, a failure
 * reason or cancel source it does not know, a missing reason, no object at all,
 * a detail or reason that is not text. The turn must still close exactly once,
 * failed{internal} naming the handler and what was wrong, the result must say
 * what the log says, and the log must read back from its records (a close with
 * a reason the catalogue does not know would leave the conversation unreadable).
 * An outcome in the alphabet with a secret in its detail stays, redacted.
 */
async function ownHandlerOutcomeOutsideTheAlphabetFailsNamingIt(): Promise<CheckResult[]> {
  const secret = 'sk-team-0451-secret';
  const outside = (what: string) => ({
    kind: 'failed',
    reason: 'internal',
    detail: `the error handler "team-handler" failed the turn with an outcome outside the alphabet: ${what}`,
  });
  const answers: [string, unknown, unknown][] = [
    ['a kind the loop does not know', { kind: 'exploded' }, outside('kind "exploded" is not an outcome kind')],
    ['a failure reason the loop does not know', { kind: 'failed', reason: 'quota' }, outside('"quota" is not a failure reason')],
    ['a failure without a reason', { kind: 'failed' }, outside('a failed outcome has no reason')],
    ['a cancel source the loop does not know', { kind: 'cancelled', by: 'robot' }, outside('"robot" is not a cancel source')],
    ['no outcome', undefined, outside('undefined is not an object')],
    ['null', null, outside('null is not an object')],
    ['a text, not an object', 'failed', outside('"failed" is not an object')],
    ['a detail that is not text', { kind: 'failed', reason: 'auth', detail: 42 }, outside('the detail 42 is not text')],
    ['a rejection reason that is not text', { kind: 'rejected', reason: { why: 'no' } }, outside('the reason {"why":"no"} is not text')],
    ['an interruption cause the loop does not know', { kind: 'interrupted', cause: 'disk' }, outside('"disk" is not an interruption cause')],
    ['a failure reason the loop does not know, with a secret', { kind: 'failed', reason: secret }, outside('"[REDACTED]" is not a failure reason')],
    [
      'an outcome in the alphabet with a secret in its detail',
      { kind: 'failed', reason: 'auth', detail: `the key ${secret} was refused` },
      { kind: 'failed', reason: 'auth', detail: 'the key [REDACTED] was refused' },
    ],
  ];
  const checks: CheckResult[] = [];
  for (const [what, outcome, expectedOutcome] of answers) {
    const handler: ModelErrorHandler = { name: 'team-handler', handle: () => ({ action: 'fail', outcome: outcome as Outcome, detail: 'the team gives up' }) };
    const { log, actual } = await closedBehind(handler, [secret]);
    const expected = JSON.stringify(expectedOutcome);
    checks.push({ name: `${what}: closed once, ${expected}`, passed: actual === expected, message: actual, expected, actual });
    let reads = 'reads back';
    try {
      decodeRecords(log.events.map(toRecord), 'the case log');
    } catch (error) {
      reads = (error as Error).message;
    }
    if (JSON.stringify(log.events).includes(secret)) reads = 'the secret is in the log';
    checks.push({
      name: `${what}: the log reads back, no secret in it`,
      passed: reads === 'reads back',
      message: reads,
      expected: 'reads back',
      actual: reads,
    });
  }
  return checks;
}

/**
 * A team's own handler whose decision is outside the shape the loop reads (one
 * written in JavaScript, or cast, is held to no type): an action the loop does
 * not know, no action, a text instead of an object, a retry whose delay is not a
 * number of milliseconds from 0 up (NaN, negative, Infinity, a text, a bigint, missing), a
 * detail that is not text, a switch with no client or with something that is not
 * one. The turn must close exactly once failed{internal}, naming the handler and
 * what was wrong — never retry on a delay it cannot honour, never store a
 * decision the log's reader refuses — the result saying what the log says, and
 * the log reading back from its records.
 */
/** An object that holds itself: JSON cannot write it. */
function selfHolding(): Record<string, unknown> {
  const value: Record<string, unknown> = { reason: 'later' };
  value.self = value;
  return value;
}

async function ownHandlerDecisionOutsideItsShapeFailsNamingIt(): Promise<CheckResult[]> {
  const outside = (what: string) => ({
    kind: 'failed',
    reason: 'internal',
    detail: `the error handler "team-handler" answered a decision outside its shape: ${what}`,
  });
  const answers: [string, unknown, string][] = [
    ['an action the loop does not know', { action: 'explode', detail: 'boom' }, 'the action "explode" is not retry, switch_client or fail'],
    ['no action', { detail: 'no idea' }, 'the action undefined is not retry, switch_client or fail'],
    // A value longer than 120 characters as JSON is named cut short, marked so (mutation seed 40, records.ts: the cut
    // text emptied, "the action  is not retry…"; no case named a long value).
    ['an action named at length', { action: 'x'.repeat(200), detail: 'long' }, `the action "${'x'.repeat(119)}… is not retry, switch_client or fail`],
    ['a text, not an object', 'retry', '"retry" is not an object'],
    // A value JSON cannot write (here a detail holding itself) is named as such, not left blank (mutation seed 41,
    // records.ts: its words emptied, "the detail  is not text"; no case gave a value JSON refuses).
    ['a detail holding itself', { action: 'retry', delayMs: 0, detail: selfHolding() }, 'the detail (an object that cannot be shown) is not text'],
    ['a retry after NaN ms', { action: 'retry', delayMs: Number.NaN, detail: 'later' }, 'the delay NaN is not a number of milliseconds from 0 up'],
    ['a retry after -5 ms', { action: 'retry', delayMs: -5, detail: 'later' }, 'the delay -5 is not a number of milliseconds from 0 up'],
    [
      'a retry after Infinity ms',
      { action: 'retry', delayMs: Number.POSITIVE_INFINITY, detail: 'later' },
      'the delay Infinity is not a number of milliseconds from 0 up',
    ],
    ['a retry after "10" ms', { action: 'retry', delayMs: '10', detail: 'later' }, 'the delay "10" is not a number of milliseconds from 0 up'],
    ['a retry with no delay', { action: 'retry', detail: 'later' }, 'the delay undefined is not a number of milliseconds from 0 up'],
    // A value JSON refuses that is no object (a bigint, as `process.hrtime.bigint()` gives) is named by its type, not
    // called an object (mutation seed 50, records.ts: any value JSON refuses named "(an object that cannot be shown)").
    ['a retry after a bigint of ms', { action: 'retry', delayMs: 10n, detail: 'later' }, 'the delay bigint is not a number of milliseconds from 0 up'],
    ['a detail that is not text', { action: 'retry', delayMs: 0, detail: 42 }, 'the detail 42 is not text'],
    ['no detail', { action: 'retry', delayMs: 0 }, 'the detail undefined is not text'],
    ['a switch with no client', { action: 'switch_client', detail: 'elsewhere' }, 'the client undefined is not a model client'],
    ['a switch to something not a client', { action: 'switch_client', client: 5, detail: 'elsewhere' }, 'the client 5 is not a model client'],
    ['a fail whose detail is not text', { action: 'fail', outcome: { kind: 'failed', reason: 'auth' }, detail: 42 }, 'the detail 42 is not text'],
  ];
  const checks: CheckResult[] = [];
  for (const [what, decision, problem] of answers) {
    // Asked once: a decision the loop wrongly carried out (a retry) then reaches the built-in handlers.
    let asked = 0;
    const handler: ModelErrorHandler = { name: 'team-handler', handle: () => (asked++ === 0 ? (decision as never) : undefined) };
    const { log, actual } = await closedBehind(handler);
    const expected = JSON.stringify(outside(problem));
    checks.push({ name: `${what}: closed once, failed{internal} naming it`, passed: actual === expected, message: actual, expected, actual });
    let reads = 'reads back';
    try {
      decodeRecords(log.events.map(toRecord), 'the case log');
    } catch (error) {
      reads = (error as Error).message;
    }
    checks.push({ name: `${what}: the log reads back`, passed: reads === 'reads back', message: reads, expected: 'reads back', actual: reads });
  }
  return checks;
}

/**
 * One turn whose first request meets a server error, behind the team's
 * `handler`: its log, and how it closed — the one outcome, when the log closed
 * the turn once and the loop returned that same outcome; else what happened.
 */
async function closedBehind(handler: ModelErrorHandler, secrets: readonly string[] = []): Promise<{ log: EventLog; actual: string }> {
  const clock = new VirtualClock();
  const log = new EventLog(clock);
  const model = new ScriptedModelClient([transportError('server_error'), reply('ORD-1001 was delivered.')], { clock });
  try {
    const loop = new AgentLoop(loopDeps({ log, model, agent: { errorHandlers: [handler], ...(secrets.length > 0 ? { secrets } : {}) }, clock }));
    loop.send('Where is ORD-1001?', { id: 'ask' });
    const results = await clock.run(loop.drain());
    const closes = log.events.filter((e) => e.type === 'turn.closed').map((e) => JSON.stringify((e.payload as { outcome: unknown }).outcome));
    const returned = results.map((r) => JSON.stringify(r.outcome));
    const actual =
      closes.length === 1 && returned.length === 1 && closes[0] === returned[0]
        ? closes[0]!
        : `closed ${closes.length} time(s) (${closes.join(', ')}), returned ${returned.join(', ') || 'nothing'}`;
    return { log, actual };
  } catch (error) {
    return { log, actual: `threw: ${(error as Error).message}` };
  }
}

/**
 * The model call's span as an exporter reads it (`tracing`, the OTLP exporter): its `result`, and for a transport
 * error its `kind` — which of nine failures it was — and for any other result no `kind` at all. No scenario's trace
 * expectation reads attributes (only kind and status), so here a turn whose model answers `overloaded` (failed at once
 * by the agent's handler) and one whose model replies are traced, and their model_call spans read.
 */
async function modelSpanNamesTheErrorKind(): Promise<CheckResult[]> {
  const spanOf = async (answer: ReturnType<typeof reply>): Promise<string> => {
    const clock = new VirtualClock();
    const model = new ScriptedModelClient([answer], { clock });
    const loop = new AgentLoop(loopDeps({ log: new EventLog(clock), model, agent: { errorHandlers: [neverRetry] }, clock }));
    loop.send('Summarise the ticket.', { id: 'ask' });
    const [result] = await loop.drain();
    const span = result?.trace.spans.find((x) => x.kind === 'model_call');
    if (!span) return '(no model_call span)';
    const { result: type, kind } = span.attributes as Record<string, unknown>;
    return `${span.status}; result ${String(type)}; kind ${'kind' in span.attributes ? JSON.stringify(kind) : '(none)'}`;
  };
  const failed = await spanOf(transportError('overloaded', { message: 'the provider is busy' }));
  const replied = await spanOf(reply('The ticket asks for a refund.'));
  const wantFailed = 'error; result transport_error; kind "overloaded"';
  const wantReplied = 'ok; result reply; kind (none)';
  return [
    { name: 'a transport error: the span names its kind', passed: failed === wantFailed, message: failed, expected: wantFailed, actual: failed },
    { name: 'a reply: the span has no kind', passed: replied === wantReplied, message: replied, expected: wantReplied, actual: replied },
  ];
}

/**
 * An error no handler of the chain decides (the built-in ones leave a transport
 * error of kind `aborted` alone: the provider, not the loop, ended the call) falls
 * to the loop's default: the turn fails with the kernel's outcome, and the log
 * says so in its `model.error_handled` (handler `default`, action `fail`, why
 * nobody retried), the one record a reader of the history has of the decision.
 */
async function unhandledErrorLoggedAsTheDefaultFail(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const log = new EventLog(clock);
  const model = new ScriptedModelClient([transportError('aborted', { message: 'the provider closed the stream' })], { clock });
  const loop = new AgentLoop(loopDeps({ log, model, agent: {}, clock }));
  loop.send('Summarise the ticket.', { id: 'ask' });
  const [result] = await loop.drain();
  const outcome = label(result?.outcome);
  const handled = log.events
    .filter((e) => e.type === 'model.error_handled')
    .map((e) => {
      const p = e.payload as { handler: string; action: string; detail: string };
      return `${p.handler}/${p.action}: ${p.detail}`;
    });
  const want = 'default/fail: no handler retried it';
  const got = handled.join('; ') || '(none)';
  return [
    {
      name: 'the turn fails provider_unavailable',
      passed: outcome === 'failed/provider_unavailable',
      message: outcome,
      expected: 'failed/provider_unavailable',
      actual: outcome,
    },
    { name: 'the log tells the default decision and why', passed: got === want, message: got, expected: want, actual: got },
  ];
}

/**
 * An authentication failure and an invalid request fail their turn at once, and the log says who decided: the
 * built-in `fail-fast` handler, with why (`authentication fails at once`, `an invalid request is not retried`), the
 * one record a reader of the history has of the decision. The outcome alone cannot tell: left to the default, each
 * fails with the same outcome, logged as `default`'s "no handler retried it" (mutation seed 42, model-errors.ts:
 * fail-fast made to answer nothing, and no case read who decided).
 */
async function authAndInvalidRequestLoggedAsFailFast(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const log = new EventLog(clock);
  const model = new ScriptedModelClient(
    [transportError('auth', { status: 401, message: 'invalid x-api-key' }), transportError('invalid_request', { status: 400, message: 'bad field' })],
    { clock },
  );
  const loop = new AgentLoop(loopDeps({ log, model, agent: {}, clock }));
  loop.send('Summarise the ticket.', { id: 'first' });
  loop.send('And the next one.', { id: 'second' });
  const results = await loop.drain();
  const outcomes = results.map((r) => label(r.outcome)).join(', ');
  const handled = log.events
    .filter((e) => e.type === 'model.error_handled')
    .map((e) => {
      const p = e.payload as { handler: string; action: string; detail: string };
      return `${p.handler}/${p.action}: ${p.detail}`;
    });
  const want = 'fail-fast/fail: authentication fails at once; fail-fast/fail: an invalid request is not retried';
  const got = handled.join('; ') || '(none)';
  const wantOutcomes = 'failed/auth, failed/invalid_request';
  return [
    { name: 'each turn fails at once with its outcome', passed: outcomes === wantOutcomes, message: outcomes, expected: wantOutcomes, actual: outcomes },
    { name: 'the log says fail-fast decided, and why', passed: got === want, message: got, expected: want, actual: got },
  ];
}

/** No retries of the loop's own; a retry-after of up to a minute waited out (the windows cases' retry settings). */
const NO_RETRIES_WAITS_UP_TO_A_MINUTE = {
  immediateRetries: 0,
  immediateDelayMs: 1_000,
  backoffRetries: 0,
  backoffBaseMs: 2_000,
  backoffMaxMs: 8_000,
  jitter: 0,
  maxRetryAfterMs: 60_000,
} as const;

/**
 * A turn that opens while the only model client is still inside its retry-after window, which ends later than the
 * loop waits (`maxRetryAfterMs`), fails `rate_limited` at once, before any request, and says why: every client is
 * inside its window, the first ends in so many ms, longer than the limit. The turn before failed on the 429 itself,
 * with the handler's own detail; only this second turn reaches the check of the windows, and no case read what it
 * says (mutation seed 43, runner.ts: the detail emptied).
 */
async function turnInsideALongWindowFailsSayingWhy(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const log = new EventLog(clock);
  const model = new ScriptedModelClient([transportError('rate_limited', { status: 429, retryAfterMs: 70_000 }), reply('never requested')], { clock });
  const loop = new AgentLoop(
    loopDeps({
      log,
      model,
      agent: {},
      clock,
      config: {
        retry: NO_RETRIES_WAITS_UP_TO_A_MINUTE,
      },
    }),
  );
  loop.send('Where is ORD-1001?', { id: 'first' });
  loop.send('Hello? Where is my kettle?', { id: 'second' });
  const results = await clock.run(loop.drain());
  const second = results[1]?.outcome;
  const got = second === undefined ? 'no second turn' : JSON.stringify(second);
  const want = JSON.stringify({
    kind: 'failed',
    reason: 'rate_limited',
    detail: 'every model client is inside its retry-after window; the first ends in 70000 ms, longer than the 60000 ms limit',
  });
  return [
    {
      name: 'one request: the second turn sends none',
      passed: model.calls === 1,
      message: `${model.calls} request(s)`,
      expected: '1',
      actual: String(model.calls),
    },
    { name: 'the second turn fails rate_limited, saying every window ends too late', passed: got === want, message: got, expected: want, actual: got },
  ];
}

/**
 * Both clients inside their retry-after windows, the primary's ending first: the next turn waits for the window that
 * ends first — the primary's, 55 s, within the loop's 60 s — and asks the primary. The bundled scenario
 * `retries/every-client-in-window-waits-for-the-first` has the fallback's end first, the chain's last client, so a
 * loop that always picks the last client passed it (mutation seed 47, runner.ts:568: `until(c) ?? 0` → `&& 0` made
 * every client look sooner than the one chosen; it waited for the fallback's 65 s, past the limit, and failed the
 * turn rate_limited).
 */
async function firstWindowToEndIsThePrimarys(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const log = new EventLog(clock);
  const model = new ScriptedModelClient([transportError('rate_limited', { status: 429, retryAfterMs: 65_000 }), reply('ORD-1001 was delivered on Monday.')], {
    clock,
  });
  const fallback = new ScriptedModelClient([transportError('rate_limited', { status: 429, retryAfterMs: 75_000 }), reply('never requested')], {
    clock,
    name: 'fallback',
  });
  const loop = new AgentLoop(
    loopDeps({
      log,
      model,
      fallbackModels: [fallback],
      agent: {},
      clock,
      config: {
        retry: NO_RETRIES_WAITS_UP_TO_A_MINUTE,
      },
    }),
  );
  loop.send('Where is ORD-1001?', { id: 'first' });
  const first = await clock.run(loop.drain());
  await clock.advance(10_000);
  loop.send('Hello? Where is my kettle?', { id: 'second' });
  const second = await clock.run(loop.drain());
  const outcomes = [...first, ...second].map((r) => (r.outcome.kind === 'failed' ? `failed{${r.outcome.reason}}` : r.outcome.kind)).join(', ');
  const asked = `primary ${model.calls}, fallback ${fallback.calls}`;
  return [
    {
      name: 'the first turn fails rate_limited, the second replies',
      passed: outcomes === 'failed{rate_limited}, replied',
      message: outcomes,
      expected: 'failed{rate_limited}, replied',
      actual: outcomes,
    },
    {
      name: 'the second turn asks the primary, whose window ends first',
      passed: asked === 'primary 2, fallback 1',
      message: asked,
      expected: 'primary 2, fallback 1',
      actual: asked,
    },
    {
      name: 'it waited 55 s, to the end of that window',
      passed: clock.now() === 65_000,
      message: `${clock.now()} ms`,
      expected: '65000 ms',
      actual: `${clock.now()} ms`,
    },
  ];
}

export function modelErrorCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:model-errors/malformed-result-of-a-client-is-a-contract-violation',
        title:
          "model errors: a team's client settling with a result missing its parts is a transport error naming the client and what is wrong, not failed{internal}",
        file: 'src/harness/model-error-cases.ts',
      },
      malformedResultOfAClientIsAContractViolation,
    ),
    checksCase(
      {
        id: 'contract:model-errors/unhandled-error-logged-as-the-default-fail',
        title: "model errors: an error no handler decides fails the turn with the kernel's outcome, logged as the default's fail and why",
        file: 'src/harness/model-error-cases.ts',
      },
      unhandledErrorLoggedAsTheDefaultFail,
    ),
    checksCase(
      {
        id: 'contract:model-errors/model-span-names-the-error-kind',
        title: "model errors: a model call's span carries its result, and a transport error's kind; a reply's span no kind",
        file: 'src/harness/model-error-cases.ts',
      },
      modelSpanNamesTheErrorKind,
    ),
    checksCase(
      {
        id: 'contract:model-errors/own-handler-fails-each-kind-with-its-outcome',
        title: "model errors: an agent's handler that fails every transport error with outcomeForTransport ends each turn with that kind's outcome",
        file: 'src/harness/model-error-cases.ts',
      },
      ownHandlerFailsEachKindWithItsOutcome,
    ),
    checksCase(
      {
        id: 'contract:model-errors/overflow-hands-the-compactor-whole-closed-turns',
        title: 'model errors: a context overflow hands the compactor whole closed turns, and no range while none has closed',
        file: 'src/harness/model-error-cases.ts',
      },
      overflowHandsTheCompactorWholeClosedTurns,
    ),
    checksCase(
      {
        id: 'contract:model-errors/unknown-answer-of-a-client-fails-naming-it',
        title: "model errors: a team's client answering a result type or transport error kind the loop does not know fails the turn internal, naming it",
        file: 'src/harness/model-error-cases.ts',
      },
      unknownAnswerOfAClientFailsNamingIt,
    ),
    checksCase(
      {
        id: 'contract:model-errors/own-handler-outcome-outside-the-alphabet-fails-naming-it',
        title: "model errors: an agent's handler failing the turn with an outcome outside the alphabet closes it once failed{internal}, naming it",
        file: 'src/harness/model-error-cases.ts',
      },
      ownHandlerOutcomeOutsideTheAlphabetFailsNamingIt,
    ),
    checksCase(
      {
        id: 'contract:model-errors/own-handler-decision-outside-its-shape-fails-naming-it',
        title:
          "model errors: an agent's handler answering a decision outside its shape (action, delay, detail, client) closes the turn once failed{internal}, naming it",
        file: 'src/harness/model-error-cases.ts',
      },
      ownHandlerDecisionOutsideItsShapeFailsNamingIt,
    ),
    checksCase(
      {
        id: 'contract:model-errors/auth-and-invalid-request-logged-as-fail-fast',
        title: "model errors: an auth failure and an invalid request fail at once, logged as the fail-fast handler's decision and why",
        file: 'src/harness/model-error-cases.ts',
      },
      authAndInvalidRequestLoggedAsFailFast,
    ),
    checksCase(
      {
        id: 'contract:model-errors/turn-inside-a-long-window-fails-saying-why',
        title: "model errors: a turn opening while every client's retry-after window ends past the limit fails rate_limited at once, saying so",
        file: 'src/harness/model-error-cases.ts',
      },
      turnInsideALongWindowFailsSayingWhy,
    ),
    checksCase(
      {
        id: 'contract:model-errors/every-client-in-window-waits-for-the-first-to-end',
        title: "model errors: every client inside its retry-after window, the primary's ending first: the next turn waits for it and asks the primary",
        file: 'src/harness/model-error-cases.ts',
      },
      firstWindowToEndIsThePrimarys,
    ),
  ];
}
