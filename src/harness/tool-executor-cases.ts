/**
 * The tool pipeline's public contract, as a team that builds its own executor
 * meets it, as cases of `loopgate run`: `contract:tool-executor/<id>`.
 *
 * `createToolExecutor`, `ToolCallRecorder` and `loopDeps({ toolOptions })` are
 * exported (src/kernel/tools/index.ts): a team wraps the pipeline in an executor
 * of its own (`LoopDepsInput.tools`) with a recorder of its own — one writing
 * the start of a STATEFUL call to its database first, one whose ledger knows the
 * calls a previous process started. The loop's own recorder never throws and
 * gives every call a fresh id, so no scenario reaches these paths; what the
 * recorder contract promises there (types.ts) is checked here directly:
 *
 * - a recorder whose `started` throws (not only rejects): the tool does not run,
 *   the call is failed / NOT_RECORDED, with the recorder's reason;
 * - a recorder that refuses a retry's start: failed / NOT_RECORDED after an attempt
 *   that failed, unknown after one that timed out (it may have run);
 * - a recorder whose ledger says the call id already started: a STATEFUL call is
 *   unknown / ALREADY_STARTED, not run;
 * - a recorder whose `alreadyStarted` throws: `execute` still settles (never
 *   rejects), failed / INTERNAL_ERROR, not run;
 * - a recorder whose `stored` throws before an approver is asked: no one is
 *   asked, failed / NOT_RECORDED;
 * - a repeat whose recorder cannot `describe` the first call: still not run,
 *   and the model is told the first call started;
 * - a tool that throws an error with no message: the model reads its name;
 * - `toolOptions.defaultMaxRetries` that is not an integer, a `maxOutputChars` of 0, a
 *   negative `defaultTimeoutMs`: refused, naming the option.
 */
import { z } from 'zod';
import { call, reply, toolUse } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import {
  AgentLoop,
  createToolExecutor,
  defineTool,
  EventLog,
  loopDeps,
  ToolRegistry,
  type AnyToolDeclaration,
  type SettledToolCall,
  type ToolCallRecorder,
  type ToolExecutionContext,
  type SpanHandle,
  Tracer,
  decide,
} from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { checksCase, type Case } from './cases.ts';
import { VirtualClock } from './virtual-clock.ts';

const FILE = 'src/harness/tool-executor-cases.ts';
/** What a timer cannot hold, as the refusal words it. */
const TOO_LONG = 'must be at most 2147483647 ms, about 24.8 days: a timer fires a longer delay at once';
const check = (name: string, passed: boolean, actual: string, expected: string): CheckResult => ({ name, passed, message: actual, expected, actual });

/** A STATEFUL refund tool that counts its runs, and a NONE lookup that throws a bare error. */
function tools(): { runs: { refund: number; lookup: number; tag: number }; declarations: AnyToolDeclaration[] } {
  const runs = { refund: 0, lookup: 0, tag: 0 };
  const declarations = [
    defineTool({
      name: 'issue_refund',
      description: 'Refund an order.',
      input: z.object({ order_id: z.string(), amount: z.number() }),
      sideEffect: 'STATEFUL',
      run: () => {
        runs.refund++;
        return { refunded: true };
      },
    }),
    defineTool({
      name: 'lookup_order',
      description: 'Look an order up.',
      input: z.object({ order_id: z.string() }),
      sideEffect: 'NONE',
      maxRetries: 0,
      run: () => {
        runs.lookup++;
        // A library that throws a bare error: no message, only its class.
        throw new RangeError();
      },
    }),
    defineTool({
      name: 'tag_orders',
      description: 'Put a label on many orders at once.',
      input: z.strictObject({
        orders: z.array(z.object({ id: z.string() })),
        label: z.union([z.string(), z.number()]),
        code: z.union([z.string().regex(/^[A-Z]{3}$/), z.string().regex(/^\d{6}$/)]).optional(),
      }),
      sideEffect: 'IDEMPOTENT',
      run: (args) => {
        runs.tag++;
        return { tagged: args.orders.length };
      },
    }),
  ] as AnyToolDeclaration[];
  return { runs, declarations };
}

/** A recorder that keeps nothing, with the given parts replaced. */
function recorder(over: Partial<ToolCallRecorder> = {}): ToolCallRecorder {
  return { policy: () => {}, started: () => {}, alreadyStarted: () => false, ...over };
}

const REFUND = { id: 'r1', name: 'issue_refund', args: { order_id: 'ORD-1001', amount: 120 } };

async function runOne(
  over: Partial<ToolCallRecorder>,
  extra: { call?: { id: string; name: string; args: unknown }; repeatOf?: string; ask?: boolean; trace?: SpanHandle } = {},
): Promise<{ settled: SettledToolCall | undefined; rejected: unknown; runs: { refund: number; lookup: number; tag: number }; asked: number }> {
  const { runs, declarations } = tools();
  let asked = 0;
  const executor = createToolExecutor({
    registry: new ToolRegistry(declarations),
    ...(extra.ask
      ? {
          policy: { rules: [{ id: 'refunds-ask', tools: ['issue_refund'], decision: 'ask' as const }] },
          approver: {
            approve: async () => {
              asked++;
              return 'approve' as const;
            },
          },
        }
      : {}),
  });
  const ctx: ToolExecutionContext = {
    signal: new AbortController().signal,
    clock: new VirtualClock(),
    recorder: recorder(over),
    ...(extra.repeatOf !== undefined ? { repeatOf: extra.repeatOf } : {}),
    ...(extra.trace !== undefined ? { trace: extra.trace } : {}),
  };
  try {
    const settled = await executor.execute(extra.call ?? REFUND, ctx);
    return { settled, rejected: undefined, runs, asked };
  } catch (error) {
    return { settled: undefined, rejected: error, runs, asked };
  }
}

function resultChecks(
  got: { settled: SettledToolCall | undefined; rejected: unknown },
  want: { status: string; code: string; message: string },
): CheckResult[] {
  const s = got.settled;
  const actual = s ? `${s.status} / ${s.error?.error_code ?? '-'}` : `rejected: ${String(got.rejected)}`;
  const message = s?.error?.error_message ?? '';
  return [
    {
      name: `settled ${want.status} / ${want.code}`,
      passed: s?.status === want.status && s.error?.error_code === want.code,
      message: actual,
      expected: `${want.status} / ${want.code}`,
      actual,
    },
    {
      name: `the model reads "${want.message}"`,
      passed: message.includes(want.message),
      message: message || '(no error message)',
      expected: want.message,
      actual: message,
    },
  ];
}

function ranNot(count: number, tool: string): CheckResult {
  return { name: `${tool} did not run`, passed: count === 0, message: `ran ${count} time(s)`, expected: '0', actual: String(count) };
}

async function startedThrows(): Promise<CheckResult[]> {
  const got = await runOne({
    started: () => {
      throw new Error('orders database refused the write: disk full');
    },
  });
  return [...resultChecks(got, { status: 'failed', code: 'NOT_RECORDED', message: 'disk full' }), ranNot(got.runs.refund, 'issue_refund')];
}

/**
 * An IDEMPOTENT sync whose first attempt ends as `first` says, and whose retry's start the recorder refuses (its
 * `started()` throws for attempt 2): the call is `status` / NOT_RECORDED, the model reads that this attempt was not run
 * again and that the earlier one may have run, and the tool ran once.
 */
async function retryStartRefused(first: 'throws' | 'times out', status: 'failed' | 'unknown'): Promise<CheckResult[]> {
  let runs = 0;
  const attempts: number[] = [];
  const clock = new VirtualClock();
  const executor = createToolExecutor({
    registry: new ToolRegistry([
      defineTool({
        name: 'sync_inventory',
        description: 'Push the stock count to the warehouse.',
        input: z.object({ sku: z.string() }),
        sideEffect: 'IDEMPOTENT',
        maxRetries: 1,
        timeoutMs: 1_000,
        run: (_args, ctx) => {
          runs++;
          if (first === 'throws') throw new Error('warehouse gateway reset the connection');
          // The warehouse never answers: the attempt times out, having perhaps pushed the count.
          return new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('gave up'), { once: true }));
        },
      }),
    ] as AnyToolDeclaration[]),
    retryBackoffMs: 0,
  });
  const ctx: ToolExecutionContext = {
    signal: new AbortController().signal,
    clock,
    recorder: recorder({
      started: (start) => {
        attempts.push(start.attempt);
        if (start.attempt > 1) throw new Error('orders database refused the write: disk full');
      },
    }),
  };
  let got: { settled: SettledToolCall | undefined; rejected: unknown };
  try {
    got = { settled: await clock.run(executor.execute({ id: 's1', name: 'sync_inventory', args: { sku: 'SKU-7' } }, ctx)), rejected: undefined };
  } catch (error) {
    got = { settled: undefined, rejected: error };
  }
  return [
    ...resultChecks(got, {
      status,
      code: 'NOT_RECORDED',
      message:
        'sync_inventory was not run again: its start could not be recorded (orders database refused the write: disk full). An earlier attempt may have run.',
    }),
    check(
      'the recorder was asked for attempts 1 and 2, the tool ran once',
      attempts.join(',') === '1,2' && runs === 1,
      `attempts ${attempts.join(',')}, ran ${runs}`,
      'attempts 1,2, ran 1',
    ),
  ];
}

/**
 * After an attempt that threw: failed / NOT_RECORDED, and the model must read that this attempt was not run again and
 * that the earlier one may have run (it did): told only "was not run again", a model would take the earlier attempt's
 * effect as never made (mutation seed 38, tool-errors.ts: the sentence emptied, and no case reached a refused start
 * after an attempt).
 */
const retryStartNotRecorded = () => retryStartRefused('throws', 'failed');

/**
 * After an attempt that timed out (unknown: it may have taken effect): the call stays unknown / NOT_RECORDED, never
 * failed, which would tell the model nothing happened (outside probe 65, P17: the status taken as failed passed every
 * case; no scenario reaches a refused start after a timed-out attempt, the loop's own recorder never refusing an
 * IDEMPOTENT call's start).
 */
const retryStartNotRecordedAfterTimeout = () => retryStartRefused('times out', 'unknown');

/**
 * Arguments that hold one object twice (a caller of `createToolExecutor` handing its own object graph, not JSON text):
 * the tool gets a copy that shares nothing with the caller's, with the sharing kept, as `structuredClone` keeps it —
 * one address object reached as both `from` and `to` is one object in the tool's arguments too, not two copies
 * (mutation seed 40, pipeline.ts: the copy's `seen.push` removed, so the shared object was copied twice; every case's
 * arguments were a tree).
 */
async function sharedArgumentObjectStaysShared(): Promise<CheckResult[]> {
  const address = { street: '1 Quay Lane', city: 'Leith' };
  let seen: { sameObject: boolean; callersObject: boolean; equal: boolean } | undefined;
  const executor = createToolExecutor({
    registry: new ToolRegistry([
      defineTool({
        name: 'book_courier',
        description: 'Book a courier between two addresses.',
        input: z.object({ from: z.unknown(), to: z.unknown() }),
        sideEffect: 'IDEMPOTENT',
        run: (args: { from: unknown; to: unknown }) => {
          seen = {
            sameObject: args.from === args.to,
            callersObject: args.from === address,
            equal: JSON.stringify(args.from) === JSON.stringify(address),
          };
          return 'booked';
        },
      }),
    ] as AnyToolDeclaration[]),
  });
  const ctx: ToolExecutionContext = { signal: new AbortController().signal, clock: new VirtualClock(), recorder: recorder() };
  let status: string;
  try {
    status = (await executor.execute({ id: 'c1', name: 'book_courier', args: { from: address, to: address } }, ctx)).status;
  } catch (error) {
    status = `rejected: ${String(error)}`;
  }
  const actual = seen ? JSON.stringify(seen) : '(the tool did not run)';
  const wanted = JSON.stringify({ sameObject: true, callersObject: false, equal: true });
  return [
    check('settled ok', status === 'ok', status, 'ok'),
    check("the tool's from and to are one copy, not the caller's object", actual === wanted, actual, wanted),
  ];
}

/**
 * Arguments handed in-process may hold a cycle (a tree node pointing at itself): a cycle is not depth, so the depth
 * check lets them through and the tool runs with them (mutation seed 41, argument-depth.ts: the exact walk's
 * `path.add` removed, so a cycle was walked round until it passed the limit and the call was refused as nested
 * deeper than 64 levels; every case's arguments were a tree, or deep without a cycle).
 */
async function cyclicArgumentsAreNotDepth(): Promise<CheckResult[]> {
  const node: Record<string, unknown> = { name: 'root' };
  node.self = node;
  let ran = 0;
  const executor = createToolExecutor({
    registry: new ToolRegistry([
      defineTool({
        name: 'walk_tree',
        description: 'Walk a tree of nodes.',
        input: z.object({ tree: z.unknown() }),
        sideEffect: 'IDEMPOTENT',
        run: () => {
          ran++;
          return 'walked';
        },
      }),
    ] as AnyToolDeclaration[]),
  });
  const ctx: ToolExecutionContext = { signal: new AbortController().signal, clock: new VirtualClock(), recorder: recorder() };
  let actual: string;
  try {
    const settled = await executor.execute({ id: 'w1', name: 'walk_tree', args: { tree: node } }, ctx);
    actual = `${settled.status}${settled.error ? ` / ${settled.error.error_code}: ${settled.error.error_message}` : ''}`;
  } catch (error) {
    actual = `rejected: ${String(error)}`;
  }
  return [check('settled ok, not refused as too deep', actual === 'ok', actual, 'ok'), check('the tool ran once', ran === 1, `ran ${ran} time(s)`, '1')];
}

/**
 * The turn cancelled after the policy decided but before the first attempt (here, while the decision was recorded):
 * the call settles failed / CANCELLED, the tool does not run, and the model reads when it was cancelled (mutation
 * seed 41, pipeline.ts: "before the tool ran" emptied in the attempt's check; no case read that message there).
 */
async function cancelledAfterTheDecision(): Promise<CheckResult[]> {
  const controller = new AbortController();
  const got = await (async () => {
    const { runs, declarations } = tools();
    const executor = createToolExecutor({ registry: new ToolRegistry(declarations) });
    const ctx: ToolExecutionContext = {
      signal: controller.signal,
      clock: new VirtualClock(),
      recorder: recorder({ policy: () => controller.abort() }),
    };
    try {
      return { settled: await executor.execute(REFUND, ctx), rejected: undefined, runs };
    } catch (error) {
      return { settled: undefined, rejected: error, runs };
    }
  })();
  return [
    ...resultChecks(got, { status: 'failed', code: 'CANCELLED', message: 'The turn was cancelled before the tool ran; issue_refund did not run.' }),
    ranNot(got.runs.refund, 'issue_refund'),
  ];
}

async function ledgerKnowsTheCall(): Promise<CheckResult[]> {
  // Refunds ask a human first: a call that may have run is not put to anyone again.
  const got = await runOne({ alreadyStarted: (id) => id === 'r1' }, { ask: true });
  return [
    ...resultChecks(got, { status: 'unknown', code: 'ALREADY_STARTED', message: 'An execution of this call (r1) already started earlier' }),
    ranNot(got.runs.refund, 'issue_refund'),
    { name: 'the approver was not asked', passed: got.asked === 0, message: `asked ${got.asked} time(s)`, expected: '0', actual: String(got.asked) },
  ];
}

async function ledgerThrows(): Promise<CheckResult[]> {
  const got = await runOne({
    alreadyStarted: () => {
      throw new Error('ledger connection reset');
    },
  });
  return [
    ...resultChecks(got, {
      status: 'failed',
      code: 'INTERNAL_ERROR',
      message: 'The tool pipeline failed while handling issue_refund: ledger connection reset. It did not run.',
    }),
    ranNot(got.runs.refund, 'issue_refund'),
  ];
}

async function storedThrowsBeforeAsking(): Promise<CheckResult[]> {
  const got = await runOne(
    {
      stored: () => {
        throw new Error('step not stored: connection lost');
      },
    },
    { ask: true },
  );
  return [
    ...resultChecks(got, { status: 'failed', code: 'NOT_RECORDED', message: 'connection lost' }),
    ranNot(got.runs.refund, 'issue_refund'),
    { name: 'the approver was not asked', passed: got.asked === 0, message: `asked ${got.asked} time(s)`, expected: '0', actual: String(got.asked) },
  ];
}

/**
 * A recorder whose ledger (`alreadyStarted`) throws only when asked again once the approver has answered: the throw
 * comes in the pipeline's asynchronous part (after an await), not at once as in `ledger-throws`. `execute` still settles failed / INTERNAL_ERROR, the tool not run (mutation seed
 * 52: the late failure's handler made `() => undefined`, and `execute` resolved with no settled call at all).
 */
async function ledgerThrowsAfterApproval(): Promise<CheckResult[]> {
  let asks = 0;
  const got = await runOne(
    {
      alreadyStarted: () => {
        if (++asks > 1) throw new Error('ledger connection reset');
        return false;
      },
    },
    { ask: true },
  );
  return [
    ...resultChecks(got, { status: 'failed', code: 'INTERNAL_ERROR', message: 'ledger connection reset' }),
    ranNot(got.runs.refund, 'issue_refund'),
    { name: 'the approver was asked once', passed: got.asked === 1, message: `asked ${got.asked} time(s)`, expected: '1', actual: String(got.asked) },
  ];
}

/**
 * A recorder whose `policy` (the decision's record) throws once the approver has answered: the decision cannot be
 * kept, so the call must not run — failed / INTERNAL_ERROR, as the same throw on the synchronous path (no approver)
 * settles it (mutation seed 52's analysis: on the asynchronous path the throw was swallowed and the tool ran).
 */
async function policyRecordThrowsAfterApproval(): Promise<CheckResult[]> {
  const got = await runOne(
    {
      policy: () => {
        throw new Error('decision log unavailable');
      },
    },
    { ask: true },
  );
  return [...resultChecks(got, { status: 'failed', code: 'INTERNAL_ERROR', message: 'decision log unavailable' }), ranNot(got.runs.refund, 'issue_refund')];
}

async function repeatUndescribed(): Promise<CheckResult[]> {
  const got = await runOne(
    {
      alreadyStarted: (id) => id === 'r1',
      describe: () => {
        throw new Error('history unavailable');
      },
    },
    { call: { ...REFUND, id: 'r1_2' }, repeatOf: 'r1' },
  );
  return [
    ...resultChecks(got, { status: 'unknown', code: 'ALREADY_STARTED', message: 'it started; its result is not known here' }),
    ranNot(got.runs.refund, 'issue_refund'),
  ];
}

/**
 * A repeat (the model reused a started call's id) naming a tool the registry no longer declares — an agent
 * redeployed without it, a process that resumes a conversation another version started: not run, settled unknown,
 * and the model is told the tool counts as STATEFUL, as a tool nobody declared must (mutation seed 36, pipeline.ts:
 * the message read "retired_refund is  and call r1 already started"). The suggestion tells the model what to do
 * instead: use call r1's result, and call again only with a new id after checking (mutation seed 40, tool-errors.ts:
 * the suggestion emptied; no case read a repeat's suggestion).
 */
async function repeatOfAnUndeclaredTool(): Promise<CheckResult[]> {
  const got = await runOne(
    { alreadyStarted: (id) => id === 'r1', describe: () => 'it refunded 120.' },
    { call: { id: 'r1_2', name: 'retired_refund', args: { order_id: 'ORD-1001' } }, repeatOf: 'r1' },
  );
  const suggestion = got.settled?.error?.suggestion ?? '(no suggestion)';
  const wanted =
    'Use the result of call r1. If another retired_refund is really wanted, call it with a new id after checking that the first did not already do it.';
  return [
    ...resultChecks(got, {
      status: 'unknown',
      code: 'ALREADY_STARTED',
      message:
        'retired_refund is no longer declared (its side effects unknown, so taken as STATEFUL) and call r1 already started, so it is not run again. What is known of call r1: it refunded 120.',
    }),
    check("the model is told to use call r1's result", suggestion === wanted, suggestion, wanted),
  ];
}

async function startedCallOfAnUndeclaredTool(): Promise<CheckResult[]> {
  const got = await runOne({ alreadyStarted: (id) => id === 'r1' }, { call: { id: 'r1', name: 'retired_refund', args: { order_id: 'ORD-1001' } } });
  return resultChecks(got, {
    status: 'unknown',
    code: 'ALREADY_STARTED',
    message:
      'An execution of this call (r1) already started earlier, for example before a restart; retired_refund is no longer declared (its side effects unknown, so taken as STATEFUL), so it is not run a second time.',
  });
}

async function bareErrorNamed(): Promise<CheckResult[]> {
  const got = await runOne({}, { call: { id: 'l1', name: 'lookup_order', args: { order_id: 'ORD-1001' } as never } });
  const ran = got.runs.lookup;
  return [
    ...resultChecks(got, { status: 'failed', code: 'TOOL_ERROR', message: 'lookup_order failed: RangeError' }),
    { name: 'lookup_order ran once', passed: ran === 1, message: `ran ${ran} time(s)`, expected: '1', actual: String(ran) },
  ];
}

const tag = (args: Record<string, unknown>) => ({ call: { id: 't1', name: 'tag_orders', args: { orders: [{ id: 'ORD-1001' }], label: 'late', ...args } } });

async function unexpectedField(): Promise<CheckResult[]> {
  const got = await runOne({}, tag({ colour: 'red' }));
  // A field at the top level is named alone: "in arguments" would send the model looking for an object of that name.
  const message = got.settled?.error?.error_message ?? '';
  const expected = 'Invalid arguments for tag_orders: unexpected field "colour"';
  return [
    ...resultChecks(got, { status: 'failed', code: 'INVALID_ARGUMENTS', message: 'unexpected field "colour"' }),
    { name: 'a top-level field named with no parent', passed: message === expected, message, expected, actual: message },
    ranNot(got.runs.tag, 'tag_orders'),
  ];
}

async function unionOfTypes(): Promise<CheckResult[]> {
  const got = await runOne({}, tag({ label: true }));
  return [
    ...resultChecks(got, { status: 'failed', code: 'INVALID_ARGUMENTS', message: 'label: expected string | number, received boolean' }),
    ranNot(got.runs.tag, 'tag_orders'),
  ];
}

async function unionOfShapes(): Promise<CheckResult[]> {
  const got = await runOne({}, tag({ code: 'ab' }));
  return [
    ...resultChecks(got, { status: 'failed', code: 'INVALID_ARGUMENTS', message: '(matches none of the allowed shapes)' }),
    ranNot(got.runs.tag, 'tag_orders'),
  ];
}

/**
 * A team's executor handed arguments it built itself (not parsed from JSON) with a count that is `NaN` (a sum over a
 * missing price): refused INVALID_ARGUMENTS, the model told the value is NaN, not "a number" where a number is
 * expected (mutation seed 37, validate.ts).
 */
async function notANumberNamedNaN(): Promise<CheckResult[]> {
  const got = await runOne({}, { call: { ...REFUND, args: { order_id: 'ORD-1001', amount: Number.NaN } } });
  return [
    ...resultChecks(got, { status: 'failed', code: 'INVALID_ARGUMENTS', message: 'amount: expected number, received NaN' }),
    ranNot(got.runs.refund, 'issue_refund'),
  ];
}

/** More objects than the quick depth walk visits (10 000): the exact walk must still find them shallow. */
async function manySmallObjects(): Promise<CheckResult[]> {
  const orders = Array.from({ length: 12_000 }, (_, i) => ({ id: `ORD-${i}` }));
  const got = await runOne({}, tag({ orders }));
  const s = got.settled;
  const actual = s ? `${s.status} / ${s.error?.error_code ?? '-'}` : `rejected: ${String(got.rejected)}`;
  return [
    { name: 'settled ok', passed: s?.status === 'ok', message: `${actual} ${s?.error?.error_message ?? ''}`, expected: 'ok / -', actual },
    {
      name: 'tag_orders ran once, with the 12 000 orders',
      passed: got.runs.tag === 1 && s?.content.includes('12000') === true,
      message: `ran ${got.runs.tag} time(s): ${s?.content ?? ''}`,
      expected: '1',
      actual: String(got.runs.tag),
    },
  ];
}

/** A dev-mode trace a team's executor ended too early: the span the call gets cannot have children (dev mode throws). */
async function traceEndedInDevMode(): Promise<CheckResult[]> {
  const tracer = new Tracer({ clock: new VirtualClock(), traceId: 'turn-0', mode: 'dev' });
  const root = tracer.startSpan('turn', 'turn 0');
  root.end('ok');
  tracer.end();
  const got = await runOne({}, { ...tag({}), trace: root });
  const s = got.settled;
  const actual = s ? `${s.status}: ${s.content}` : `rejected: ${String(got.rejected)}`;
  return [
    check('settled ok all the same', s?.status === 'ok' && s.content.includes('"tagged":1'), actual, 'ok: {"tagged":1}'),
    check('tag_orders ran once', got.runs.tag === 1, `ran ${got.runs.tag} time(s)`, '1'),
  ];
}

/** `decide` (exported): the rules, then the approver for an ask. */
async function decideAsks(): Promise<CheckResult[]> {
  const asked: string[] = [];
  const outcome = await decide({
    policy: { rules: [{ id: 'refunds-ask', tools: ['issue_refund'], decision: 'ask', reason: 'refunds move money' }] },
    approver: {
      approve: async (request) => {
        asked.push(`${request.tool}: ${request.reason}`);
        return 'deny';
      },
    },
    clock: new VirtualClock(),
    signal: new AbortController().signal,
    request: { callId: 'r1', tool: 'issue_refund', args: { order_id: 'ORD-1001', amount: 120 }, sideEffect: 'STATEFUL' },
    args: { order_id: 'ORD-1001', amount: 120 },
  });
  const got = `${outcome.decision} by ${outcome.by}`;
  return [
    check(
      "the approver was asked, with the rule's reason",
      asked.join('; ') === 'issue_refund: refunds move money',
      asked.join('; ') || '(not asked)',
      'issue_refund: refunds move money',
    ),
    check('its deny decides', got === 'deny by approver', got, 'deny by approver'),
  ];
}

/**
 * A tool whose HTTP client throws a plain object with a message (axios-style: `{ message, config, response }`, not an
 * Error): the model reads its message, not "[object Object]", and nothing else of it (outside probe 35, F6).
 */
async function thrownPlainObjectToldByItsMessage(): Promise<CheckResult[]> {
  const flaky = defineTool({
    name: 'carrier_status',
    description: 'Where the carrier says a parcel is.',
    input: z.object({ parcel: z.string() }),
    sideEffect: 'NONE',
    run: () => {
      throw { message: 'Request failed with status code 502', config: { headers: { Authorization: 'Bearer carrier-token-123' } }, response: { status: 502 } };
    },
  });
  const clock = new VirtualClock();
  const model = new ScriptedModelClient([toolUse([call('c1', 'carrier_status', { parcel: 'P-1' })]), reply('The carrier is not answering.')], { clock });
  const log = new EventLog(clock);
  const loop = new AgentLoop(loopDeps({ log, model, agent: { tools: [flaky as AnyToolDeclaration] }, clock, toolOptions: { defaultMaxRetries: 0 } }));
  loop.send('Where is parcel P-1?', { id: 'ask' });
  await loop.drain();
  const r = log.events.find((e) => e.type === 'tool.result')?.payload as { error?: { error_message: string } } | undefined;
  const said = r?.error?.error_message ?? '(no error)';
  return [
    check(
      'the model reads the thrown message, and nothing else of the object',
      said === 'carrier_status failed: Request failed with status code 502',
      said,
      'carrier_status failed: Request failed with status code 502',
    ),
  ];
}

/** `toolOptions.defaultMaxRetries: 0` (a valid value, not only a refused one): a NONE tool that fails runs once. */
async function zeroDefaultRetries(): Promise<CheckResult[]> {
  let runs = 0;
  const flaky = defineTool({
    name: 'stock_level',
    description: 'Stock level of a product.',
    input: z.object({ sku: z.string() }),
    sideEffect: 'NONE',
    run: () => {
      runs++;
      // A library that throws a string, not an Error.
      throw 'inventory service: 503';
    },
  });
  const clock = new VirtualClock();
  const model = new ScriptedModelClient([toolUse([call('s1', 'stock_level', { sku: 'KETTLE-1' })]), reply('I cannot see the stock right now.')], { clock });
  const log = new EventLog(clock);
  const loop = new AgentLoop(loopDeps({ log, model, agent: { tools: [flaky as AnyToolDeclaration] }, clock, toolOptions: { defaultMaxRetries: 0 } }));
  loop.send('Is the kettle in stock?', { id: 'ask' });
  const [result] = await loop.drain();
  const r = log.events.find((e) => e.type === 'tool.result')?.payload as { status: string; error?: { error_code: string; error_message: string } } | undefined;
  const line = r ? `${r.status} / ${r.error?.error_code ?? '-'}: ${r.error?.error_message ?? ''}` : '(no result)';
  return [
    check('replied', result?.outcome.kind === 'replied', String(result?.outcome.kind), 'replied'),
    check('the tool ran once (no retry)', runs === 1, `ran ${runs} time(s)`, '1'),
    check(
      'the model reads the thrown string',
      r?.error?.error_code === 'TOOL_ERROR' && r.error.error_message.includes('stock_level failed: inventory service: 503'),
      line,
      'failed / TOOL_ERROR: stock_level failed: inventory service: 503',
    ),
  ];
}

/**
 * A tool whose package has its own copy of loopgate throws a ToolFailure that is not an instance of the loop's class,
 * and that says it may be retried (`retryable: true`): the loop knows it by its name and fields, and runs the NONE tool
 * again, which then answers. The bundled look-alike scenarios all fail without a retry, so a loop that read every
 * look-alike as not retryable passed them (mutation seed 47, retry-policy.ts:44: `e.retryable === true` → `false`).
 */
async function lookAlikeFailureThatMayBeRetried(): Promise<CheckResult[]> {
  const { runs, got } = await carrierFailingOnce(() =>
    Object.assign(new Error('the carrier is busy'), { name: 'ToolFailure', code: 'CARRIER_BUSY', suggestion: 'Try again.', retryable: true }),
  );
  return [
    check('the tool ran twice: the look-alike said it may be retried', runs === 2, `ran ${runs} time(s)`, '2'),
    check('the call settled ok', got === 'ok', got, 'ok'),
  ];
}

/**
 * A NONE tool (one retry, no backoff) that throws `first()` on its first run and answers on the next, called once by
 * the model: how many times it ran, and how its call settled (`status`, ` / error_code` when it failed).
 */
async function carrierFailingOnce(first: () => Error): Promise<{ runs: number; got: string }> {
  let runs = 0;
  const carrier = defineTool({
    name: 'carrier_status',
    description: 'Where the carrier says a parcel is.',
    input: z.object({ parcel: z.string() }),
    sideEffect: 'NONE',
    maxRetries: 1,
    run: () => {
      runs++;
      if (runs === 1) throw first();
      return { parcel: 'P-1', at: 'depot' };
    },
  });
  const clock = new VirtualClock();
  const model = new ScriptedModelClient([toolUse([call('c1', 'carrier_status', { parcel: 'P-1' })]), reply('P-1 is at the depot.')], { clock });
  const log = new EventLog(clock);
  const loop = new AgentLoop(loopDeps({ log, model, agent: { tools: [carrier as AnyToolDeclaration] }, clock, toolOptions: { retryBackoffMs: 0 } }));
  loop.send('Where is parcel P-1?', { id: 'ask' });
  await clock.run(loop.drain());
  const r = log.events.find((e) => e.type === 'tool.result')?.payload as { status: string; error?: { error_code: string } } | undefined;
  return { runs, got: r ? `${r.status}${r.error ? ` / ${r.error.error_code}` : ''}` : '(no result)' };
}

/**
 * A tool whose Node call fails with a system error — an `Error` with a string `code` (`ECONNRESET`, `ENOENT`), named
 * `Error` — threw no ToolFailure: the loop knows a look-alike by its name `ToolFailure`, not by a `code` alone. So the
 * NONE tool is retried as for any thrown error, and answers the second time. A loop that took every Error with a code
 * for a ToolFailure read this one as not retryable (a look-alike's `retryable` is false unless it says true): it ran
 * once and the model read `ECONNRESET` as the tool's own error code (mutation seed 51, retry-policy.ts:42:
 * `error.name === 'ToolFailure'` → `true`).
 */
async function systemErrorWithACodeIsRetried(): Promise<CheckResult[]> {
  // As Node's net module throws it: an Error with code, errno and syscall.
  const { runs, got } = await carrierFailingOnce(() => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', errno: -104, syscall: 'read' }));
  return [
    check('the tool ran twice: a system error is no ToolFailure, so it may be retried', runs === 2, `ran ${runs} time(s)`, '2'),
    check('the call settled ok', got === 'ok', got, 'ok'),
  ];
}

/**
 * createToolExecutor (exported): a result cut to `maxOutputChars` settles ok with `truncatedFrom`, and its
 * optional fields are left out, never set to undefined (the settled call is plain JSON: `'error' in` it is false).
 */
async function truncatedResultHasNoUndefinedField(): Promise<CheckResult[]> {
  const report = defineTool({
    name: 'order_report',
    description: 'A long report on an order.',
    input: z.object({ order_id: z.string() }),
    sideEffect: 'NONE',
    run: (args) => `Report for ${args.order_id}: ${'line item, '.repeat(40)}end.`,
  }) as AnyToolDeclaration;
  const executor = createToolExecutor({ registry: new ToolRegistry([report]), maxOutputChars: 64 });
  const ctx: ToolExecutionContext = { signal: new AbortController().signal, clock: new VirtualClock(), recorder: recorder() };
  const settled = await executor.execute({ id: 'rep1', name: 'order_report', args: { order_id: 'ORD-1001' } }, ctx);
  const undefinedKeys = Object.entries(settled)
    .filter(([, value]) => value === undefined)
    .map(([key]) => key);
  const shape = `${settled.status}, truncatedFrom ${String(settled.truncatedFrom)}`;
  return [
    check('settled ok, cut', settled.status === 'ok' && typeof settled.truncatedFrom === 'number', shape, 'ok, truncatedFrom a number'),
    check('no field set to undefined', undefinedKeys.length === 0, undefinedKeys.length === 0 ? 'none' : undefinedKeys.join(', '), 'none'),
  ];
}

/** A tool executor option out of its range: the loop is refused at construction, naming the option and the value. */
function optionRefused(toolOptions: Record<string, number>, want: string): () => CheckResult[] {
  return optionJudged(toolOptions, `refused: ${want}`, 'refused, naming the option');
}

/** An option at the edge of what it takes (the default itself): the loop is built. */
function optionAccepted(toolOptions: Record<string, number>): () => CheckResult[] {
  return optionJudged(toolOptions, 'accepted', 'accepted');
}

function optionJudged(toolOptions: Record<string, number>, want: string, name: string): () => CheckResult[] {
  return () => {
    const { declarations } = tools();
    let got = 'accepted';
    try {
      new AgentLoop(
        loopDeps({
          log: new EventLog(new VirtualClock()),
          model: new ScriptedModelClient([]),
          agent: { tools: declarations },
          toolOptions,
        }),
      );
    } catch (error) {
      got = `refused: ${error instanceof Error ? error.message : String(error)}`;
    }
    return [{ name, passed: got === want, message: got, expected: want, actual: got }];
  };
}

export function toolExecutorCases(): Case[] {
  const rows: [string, string, () => CheckResult[] | Promise<CheckResult[]>][] = [
    [
      'recorder-started-throws',
      "a recorder whose started() throws: the STATEFUL tool does not run; failed / NOT_RECORDED with the recorder's reason",
      startedThrows,
    ],
    [
      'retry-start-not-recorded',
      'a retry whose start the recorder refuses: failed / NOT_RECORDED, not run again, and the model reads that an earlier attempt may have run',
      retryStartNotRecorded,
    ],
    [
      'retry-start-not-recorded-after-a-timeout',
      'a retry whose start the recorder refuses after an attempt that timed out: unknown / NOT_RECORDED (the earlier attempt may have run), not failed',
      retryStartNotRecordedAfterTimeout,
    ],
    [
      'ledger-knows-the-call',
      'a recorder whose ledger says the call id started: the STATEFUL call is unknown / ALREADY_STARTED, not run, no approver asked',
      ledgerKnowsTheCall,
    ],
    ['ledger-throws', 'a recorder whose alreadyStarted() throws: execute still settles, failed / INTERNAL_ERROR, the tool not run', ledgerThrows],
    [
      'policy-record-throws-after-approval',
      'a recorder whose policy() throws once the approver has answered (after an await): the decision unkept, failed / INTERNAL_ERROR, not run',
      policyRecordThrowsAfterApproval,
    ],
    [
      'ledger-throws-after-approval',
      'a recorder whose alreadyStarted() throws once the approver has answered (after an await): failed / INTERNAL_ERROR, not run',
      ledgerThrowsAfterApproval,
    ],
    [
      'stored-throws-before-asking',
      'a recorder whose stored() throws before an approver is asked: no one is asked, failed / NOT_RECORDED',
      storedThrowsBeforeAsking,
    ],
    [
      'repeat-of-undescribed-call',
      'a repeat of a started STATEFUL call whose recorder cannot describe it: not run, the model told it started',
      repeatUndescribed,
    ],
    [
      'shared-argument-object-stays-shared',
      "arguments holding one object twice: the tool gets a copy, not the caller's object, with the sharing kept",
      sharedArgumentObjectStaysShared,
    ],
    [
      'repeat-of-an-undeclared-tool',
      'a repeat of a started call of a tool no longer declared: not run, settled unknown, the model told the tool counts as STATEFUL',
      repeatOfAnUndeclaredTool,
    ],
    [
      'started-call-of-an-undeclared-tool',
      'a call already started (before a restart) of a tool no longer declared: not run, settled unknown, the model told the tool counts as STATEFUL',
      startedCallOfAnUndeclaredTool,
    ],
    ['cyclic-arguments-are-not-depth', 'arguments holding a cycle, handed in-process: not refused as too deep, the tool runs', cyclicArgumentsAreNotDepth],
    [
      'cancelled-after-the-decision',
      'the turn cancelled while the policy decision is recorded: failed / CANCELLED before the tool ran, not run',
      cancelledAfterTheDecision,
    ],
    ['bare-error-named', 'a tool that throws an error with no message: the model reads the error class', bareErrorNamed],
    ['unexpected-field', 'a strict input given a field it does not declare: INVALID_ARGUMENTS naming the field', unexpectedField],
    ['union-of-types', 'a union of types given another type: INVALID_ARGUMENTS listing the types allowed', unionOfTypes],
    ['not-a-number-named-nan', 'arguments with a NaN where a number is expected: INVALID_ARGUMENTS saying it received NaN', notANumberNamedNaN],
    ['union-of-shapes', 'a union whose branches failed on more than their type: INVALID_ARGUMENTS saying no shape matched', unionOfShapes],
    ['many-small-objects', 'arguments holding 12 000 small objects, two levels deep: not too deep, the tool runs', manySmallObjects],
    ['trace-ended-in-dev-mode', 'a call handed a span of a dev-mode trace that already ended: the tool still runs and settles ok', traceEndedInDevMode],
    ['decide-asks-the-approver', 'decide (exported): an ask rule puts the call to the approver, with its reason; its deny decides', decideAsks],
    [
      'thrown-plain-object-told-by-its-message',
      'a tool that throws a plain object with a message (axios-style): the model reads the message',
      thrownPlainObjectToldByItsMessage,
    ],
    [
      'zero-default-retries',
      'toolOptions.defaultMaxRetries of 0: a NONE tool that throws a string runs once, and the model reads the string',
      zeroDefaultRetries,
    ],
    [
      'look-alike-failure-that-may-be-retried',
      'a ToolFailure of another copy of the module that says it may be retried: the NONE tool runs again',
      lookAlikeFailureThatMayBeRetried,
    ],
    [
      'system-error-with-a-code-is-retried',
      'a tool that throws a Node system error (an Error with code ECONNRESET): no ToolFailure, so the NONE tool runs again',
      systemErrorWithACodeIsRetried,
    ],
    [
      'fractional-default-retries',
      'toolOptions.defaultMaxRetries of 1.5: the loop is refused, naming the option',
      optionRefused({ defaultMaxRetries: 1.5 }, 'tool executor option defaultMaxRetries must be a non-negative integer (got 1.5)'),
    ],
    [
      'truncated-result-has-no-undefined-field',
      'createToolExecutor: a result cut to maxOutputChars settles ok with truncatedFrom and no field set to undefined',
      truncatedResultHasNoUndefinedField,
    ],
    [
      'zero-max-output-chars',
      'toolOptions.maxOutputChars of 0: the loop is refused, naming the option',
      optionRefused({ maxOutputChars: 0 }, 'tool executor option maxOutputChars must be a positive number (got 0)'),
    ],
    [
      'negative-default-timeout',
      'toolOptions.defaultTimeoutMs of -1: the loop is refused, naming the option',
      optionRefused({ defaultTimeoutMs: -1 }, 'tool executor option defaultTimeoutMs must be a positive number (got -1)'),
    ],
    [
      'negative-retry-backoff',
      'toolOptions.retryBackoffMs of -1: the loop is refused, naming the option',
      optionRefused({ retryBackoffMs: -1 }, 'tool executor option retryBackoffMs must be a non-negative number (got -1)'),
    ],
    [
      'retry-backoff-past-a-timer',
      "toolOptions.retryBackoffMs past a timer's limit: the loop is refused, naming the option (a timer fires it at once)",
      optionRefused({ retryBackoffMs: 2 ** 31 }, `tool executor option retryBackoffMs ${TOO_LONG} (got ${2 ** 31})`),
    ],
    [
      'default-timeout-past-a-timer',
      "toolOptions.defaultTimeoutMs past a timer's limit: the loop is refused, naming the option (a timer fires it at once)",
      optionRefused({ defaultTimeoutMs: 2 ** 31 }, `tool executor option defaultTimeoutMs ${TOO_LONG} (got ${2 ** 31})`),
    ],
    ['zero-retry-backoff', 'toolOptions.retryBackoffMs of 0 (its default, no wait): the loop is built', optionAccepted({ retryBackoffMs: 0 })],
  ];
  return rows.map(([id, title, check]) => checksCase({ id: `contract:tool-executor/${id}`, title: `tool executor: ${title}`, file: FILE }, check));
}
