/**
 * A team's own loop behind the port, judged by the default gate: `contract:own-loop/<id>`.
 *
 * A team gating a hand-written loop runs `loopgate run` with no framework installed; the peer runner, the port and
 * the invariants' outside views are then reached only by these cases (outside probe 45, F12: six plants on that path
 * — a cancel `cancelOf` no longer read, tool keys without the conversation, pinned history lines unredacted, the
 * outside views of invariants 9 and 14 blind to a cancelled turn, an `executions` expectation capped — were caught
 * only with `ai` installed and `--loop ai-sdk`). Each case runs the hand-written loop (hand-written-loop.ts) as the
 * gate runs a team's, and reads what the gate would report.
 */
import { z } from 'zod';
import { createRedactor, defineTool, outcomeLabel, type Message } from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { checksCase, type Case } from './cases.ts';
import { handWritten, type HandWrittenOptions } from './hand-written-loop.ts';
import { checkInvariants, INVARIANTS } from './invariants/index.ts';
import type { Invariant } from './invariants/invariant.ts';
import { inboxDeliveredOnce } from './invariants/invariant-09-inbox-delivered-once.ts';
import { sideEffectsTold } from './invariants/invariant-14-side-effects-told.ts';
import { runPeerCase } from './loop-port/peer-case.ts';
import { runPeerScenario } from './loop-port/peer-host.ts';
import type { PeerRun } from './loop-port/peer-run.ts';
import type { LoopUnderTestFactory } from './loop-port/peer-world.ts';
import { stepRequestSchema } from '../report/results-schema.ts';
import { parseScenario } from './scenario/load.ts';
import { runScenario } from './second-host.ts';
import { EMPTY_REGISTRY, type AgentRegistry } from './world/agent-under-test.ts';

const FILE = 'src/harness/own-loop-cases.ts';
const SECRET = 'ledger-key-Vt82nQx4Lm7Rp3Ks';
const LOOP = handWritten();

const TOOLS = `tools:
  - name: issue_refund
    description: Refund an order.
    sideEffect: STATEFUL
    behaviour: [{ return: { refunded: 120 } }]
`;

/** A refund runs, then the user cancels while the model thinks; the next message asks whether it went through. */
const CANCELLED_AFTER_REFUND = `name: a refund, then a cancel while the model thinks, then a question
${TOOLS}provider:
  script:
    - tool_use: [{ id: refund, name: issue_refund, args: { order_id: ORD-1001, amount: 120 } }]
    - reply: never seen
      latencyMs: 5000
    - reply: Your refund of ORD-1001 went through.
inbox:
  - say: Please refund ORD-1001.
  - cancel: user
    at: { time: 1000 }
  - say: Did it go through?
expect: {}
`;

/** `run` with each message `drop` names taken out of every request of turn 1 and every history kept. */
function dropped(run: PeerRun, drop: (m: Message) => boolean): PeerRun {
  return {
    ...run,
    requests: run.requests.map((r, i) => (run.requestTurns[i] === 1 ? { ...r, messages: r.messages.filter((m) => !drop(m)) } : r)),
    histories: run.histories.map((h) => h.filter((m) => !drop(m))),
  };
}

const says = (m: Message, text: string) => m.content.some((b) => b.type === 'text' && b.text === text);
const holdsRefund = (m: Message) => m.content.some((b) => (b.type === 'tool_call' && b.id === 'refund') || (b.type === 'tool_result' && b.callId === 'refund'));

/**
 * The scenario's cancel reaches the loop as `cancelOf(signal)` names it: the turn ends `cancelled{user}` after the
 * refund ran, and the next turn is told the refund and still holds the cancelled turn's message — invariants 9 and
 * 14 hold from outside, and each catches the history that drops what it guards.
 */
async function cancelledTurnFromOutside(): Promise<CheckResult[]> {
  const run = await runPeerScenario(parseScenario(CANCELLED_AFTER_REFUND, 'own-loop-cancel.yaml'), LOOP, { seed: 1 });
  const outcomes = run.reports.map((r) => outcomeLabel(r.outcome)).join(', ');
  const got = `${outcomes}; ${run.executions.get('issue_refund') ?? 0} refund(s) ran; cancels delivered: ${(run.cancels ?? []).map((c) => `turn ${c.turn} by ${c.by}`).join(', ')}`;
  const want = 'cancelled{user}, replied; 1 refund(s) ran; cancels delivered: turn 0 by user';
  const broken = (await checkInvariants(run, INVARIANTS)).filter((c) => !c.passed).map((c) => `${c.name}: ${c.message}`);
  const checks: CheckResult[] = [
    {
      name: 'the cancel, read by cancelOf, ends the turn cancelled{user} after the refund ran',
      passed: got === want,
      message: got,
      expected: want,
      actual: got,
    },
    { name: 'every invariant holds from outside', passed: broken.length === 0, message: broken.join('; ') || 'every invariant holds' },
  ];
  const rows: readonly [Invariant, string, (m: Message) => boolean, RegExp][] = [
    [
      inboxDeliveredOnce,
      "the cancelled turn's message",
      (m) => says(m, 'Please refund ORD-1001.'),
      /turn 0 was cancelled and its message "Please refund ORD-1001\." is lost/,
    ],
    [
      sideEffectsTold,
      'the refund the cancelled turn ran',
      holdsRefund,
      /issue_refund \(call refund\) ran in turn 0, which ended cancelled\{user\}, but the first request of turn 1 did not tell the model/,
    ],
  ];
  for (const [invariant, what, drop, said] of rows) {
    const [verdict] = await checkInvariants(dropped(run, drop), [invariant]);
    const message = verdict === undefined ? 'not judged' : verdict.passed ? 'holds' : verdict.message;
    checks.push({ name: `${invariant.id} catches a next turn that lost ${what}`, passed: said.test(message), message, expected: said.source, actual: message });
  }
  return checks;
}

/**
 * What a team's loop did, judged from outside (outside probe 54): a loop that gave its tools no abort signal (the
 * body wrote after the user's Stop), one that waited a second where the provider's 429 asked for seven, one that
 * reported a cancelled turn failed{internal}, one that reported a turn its step limit stopped as replied — each
 * passed `loopgate run` (where no scenario expected the outcome) and `loopgate fuzz`, every invariant "not judged"
 * or holding. Each row runs the hand-written loop as it should be and with the bug planted: the first passes every
 * invariant, the second fails the one named.
 */
const SLOW_REFUND_CANCELLED = `name: a refund the user stops while it runs
tools:
  - name: issue_refund
    description: Refund an order.
    sideEffect: STATEFUL
    behaviour: [{ slow: 3000, then: { refunded: 120 } }]
provider:
  script:
    - tool_use: [{ id: refund, name: issue_refund, args: { order_id: ORD-1001, amount: 120 } }]
    - reply: never seen
inbox:
  - say: Please refund ORD-1001.
  - cancel: user
    at: { time: 1000 }
expect: {}
`;

/** The same, the refund slower than the loop's own tool timeout, and a question 25 s on: the case still runs then. */
const SLOW_REFUND_CANCELLED_THEN_ASKED = SLOW_REFUND_CANCELLED.replace('slow: 3000', 'slow: 30000')
  .replace('    - reply: never seen\n', '    - reply: never seen\n    - reply: It may have gone through.\n')
  .replace('expect: {}', '  - say: Did it go through?\n    at: { time: 25000 }\nexpect: {}');

const RATE_LIMITED = `name: a 429 asking for seven seconds, then a reply
config: { retry: { jitter: 0 } }
provider:
  script:
    - error: { kind: rate_limited, status: 429, retryAfterMs: 7000 }
    - reply: Your order ORD-1001 is on its way.
inbox:
  - say: Where is ORD-1001?
expect: {}
`;

const STEP_LIMIT = `name: the model calls tools until the step limit stops the turn
config: { maxSteps: 2 }
${TOOLS}provider:
  script:
    - tool_use: [{ id: r1, name: issue_refund, args: { order_id: ORD-1001, amount: 120 } }]
    - tool_use: [{ id: r2, name: issue_refund, args: { order_id: ORD-1002, amount: 80 } }]
inbox:
  - say: Refund both orders.
expect: {}
`;

async function judgedOnWhatItDid(): Promise<CheckResult[]> {
  const rows: readonly { name: string; scenario: string; plant: HandWrittenOptions; invariant: string; says: RegExp; base?: HandWrittenOptions }[] = [
    {
      name: 'a loop that gives its tools no abort signal',
      scenario: SLOW_REFUND_CANCELLED,
      plant: { givesToolsNoSignal: true },
      invariant: 'tools-told-to-stop',
      says: /^turn 0: the loop gave the body of issue_refund \(call refund\) no abort signal: the case cancelled the turn at 1000 ms while it ran, and it was still running when the case ended/,
    },
    {
      // Review of stop 58, M1: any abort before the body ended counted, however long after the cancel it came.
      name: "a loop whose tools' signals only its own 20 s tool timeout aborts, not the cancel",
      scenario: SLOW_REFUND_CANCELLED_THEN_ASKED,
      plant: { toolSignalOnlyTimesOutAfterMs: 20_000 },
      invariant: 'tools-told-to-stop',
      says: /^turn 0: the loop aborted the signal it gave the body of issue_refund \(call refund\) only at 20000 ms, 19000 ms after the case cancelled the turn \(at 1000 ms\) while it ran/,
    },
    {
      name: "a loop that waits its own second where the provider's 429 asked for seven",
      scenario: RATE_LIMITED,
      base: { retries: 'honours-retry-after' },
      plant: { retries: 'ignores-retry-after' },
      invariant: 'retry-after-honoured',
      says: /^request 2 was sent at 1000 ms, inside the retry-after window request 1 was given \(7000 ms at 0 ms\) until 7000 ms$/,
    },
    {
      name: 'a loop that reports a cancelled turn failed{internal}',
      scenario: SLOW_REFUND_CANCELLED,
      plant: { reportsCancelAsFailed: true },
      invariant: 'outcome-fits-what-happened',
      says: /^turn 0 ended failed\{internal\}, but the case cancelled it \(user, at 1000 ms\) while the body of issue_refund \(call refund\) ran: a turn stopped mid-work ends cancelled\{user\}$/,
    },
    {
      name: 'a loop that reports a turn its step limit stopped as replied',
      scenario: STEP_LIMIT,
      plant: { reportsMaxStepsAsReplied: true },
      invariant: 'outcome-fits-what-happened',
      says: /^turn 0 ended replied, but the last answer of the model in it \(request 2\) was tool_use, not a reply, and the turn gave none$/,
    },
  ];
  const checks: CheckResult[] = [];
  for (const row of rows) {
    for (const planted of [false, true]) {
      const loop = handWritten({ ...(row.base ?? {}), ...(planted ? row.plant : {}) });
      const run = await runPeerScenario(parseScenario(row.scenario, 'own-loop-judged.yaml'), loop, { seed: 1 });
      const verdicts = await checkInvariants(run, INVARIANTS);
      const failed = verdicts.filter((c) => !c.passed);
      const said = failed.map((c) => `${c.name}: ${c.message}`).join('; ') || 'every invariant holds';
      if (!planted) {
        checks.push({ name: `${row.name} — without the bug: every invariant holds`, passed: failed.length === 0, message: said });
        continue;
      }
      const caught = failed.find((c) => c.name === row.invariant);
      checks.push({
        name: `${row.name}: caught by ${row.invariant}`,
        passed: failed.length === 1 && caught !== undefined && row.says.test(caught.message),
        message: said,
        expected: `${row.invariant}: ${row.says.source}`,
        actual: said,
      });
    }
  }
  return checks;
}

/** The key a tool body is given behind the port is loopgate's own: `<conversation>/<tool>:<call id>`. */
async function toolKeysCarryTheConversation(): Promise<CheckResult[]> {
  const keys: string[] = [];
  const refund = defineTool({
    name: 'issue_refund',
    description: 'Refund an order.',
    input: z.object({ order_id: z.string() }),
    sideEffect: 'STATEFUL',
    run: async ({ order_id }, ctx) => {
      keys.push(ctx.idempotencyKey);
      return { refunded: order_id };
    },
  });
  const registry: AgentRegistry = { agents: new Map([['shop', () => ({ system: 'You refund orders.', tools: [refund] })]]), defaultAgent: 'shop' };
  const scenario = parseScenario(
    `name: a refund
provider:
  script:
    - tool_use: [{ id: r1, name: issue_refund, args: { order_id: ORD-1 } }]
    - reply: Refunded.
inbox:
  - say: Refund ORD-1.
expect: {}
`,
    'own-loop-keys.yaml',
  );
  const checks: CheckResult[] = [];
  for (const conversation of ['customer-7', 'customer-8']) {
    keys.length = 0;
    await runScenario(scenario, { seed: 1, agents: registry, conversation });
    const ours = keys.join(', ');
    keys.length = 0;
    await runPeerScenario(scenario, LOOP, { seed: 1, agents: registry, conversation });
    const theirs = keys.join(', ');
    const want = `${conversation}/issue_refund:r1`;
    checks.push({
      name: `conversation ${conversation}: the body's key behind the port is loopgate's own`,
      passed: ours === want && theirs === want,
      message: `loopgate's loop: ${ours}; behind the port: ${theirs}`,
      expected: want,
      actual: theirs,
    });
  }
  return checks;
}

/** The persisted lines a pinned verdict keeps of a peer's history are redacted: a tool output's secret never reaches a verdicts file. */
async function pinnedHistoryLinesRedacted(): Promise<CheckResult[]> {
  const text = `name: a refund whose output holds a ledger key
secrets: ['${SECRET}']
${TOOLS.replace('{ refunded: 120 }', `{ refunded: 120, token: '${SECRET}' }`)}provider:
  script:
    - tool_use: [{ id: refund, name: issue_refund, args: { order_id: ORD-1001, amount: 120 } }]
    - reply: Refunded.
inbox:
  - say: Please refund ORD-1001.
expect: {}
`;
  const out = await runPeerCase(parseScenario(text, 'own-loop-secret.yaml'), { loop: LOOP, registry: EMPTY_REGISTRY, invariants: INVARIANTS }, 1);
  const lines = out.checks.filter((c) => c.name.startsWith('persisted '));
  const result = lines.find((c) => c.message.startsWith('user: result#refund'));
  const leaks = lines.filter((c) => c.message.includes(SECRET) || c.message.includes(SECRET.slice(0, 12)));
  // What the model saw, in the same report: the next request carried the result, redacted as the pinned lines are.
  const saw = (out.requests ?? []).flatMap((r) => r.lines);
  const shown = saw.find((l) => l.startsWith('user: result#refund'));
  return [
    {
      name: 'the result the loop kept is pinned, its secret redacted',
      passed: result !== undefined && leaks.length === 0,
      message: leaks.length > 0 ? `the secret is in ${leaks.map((c) => c.name).join(', ')}` : (result?.message ?? 'no persisted line of the refund result'),
    },
    {
      name: 'what the model saw, in the report, has the secret redacted',
      passed: shown !== undefined && !saw.some((l) => l.includes(SECRET.slice(0, 12))),
      message: shown ?? 'no request line of the refund result',
    },
  ];
}

/** `executions` on the config's own loop counts every run of the body: one too many fails the case, saying how many. */
async function executionsCountedInFull(): Promise<CheckResult[]> {
  const text = (expected: number) => `name: two refunds
${TOOLS}provider:
  script:
    - tool_use: [{ id: r1, name: issue_refund, args: { order_id: ORD-1, amount: 10 } }]
    - tool_use: [{ id: r2, name: issue_refund, args: { order_id: ORD-2, amount: 10 } }]
    - reply: Refunded both.
inbox:
  - say: Refund ORD-1 and ORD-2.
expect:
  outcome: replied
  executions: { issue_refund: ${expected} }
`;
  const checks: CheckResult[] = [];
  for (const [expected, want] of [
    [1, 'failed; executions issue_refund: expected 1, got 2'],
    [2, 'passed; executions issue_refund: issue_refund ran 2 time(s)'],
    [3, 'failed; executions issue_refund: expected 3, got 2'],
  ] as const) {
    const out = await runPeerCase(
      parseScenario(text(expected), 'own-loop-executions.yaml'),
      {
        loop: LOOP,
        registry: EMPTY_REGISTRY,
        invariants: INVARIANTS,
        judged: 'all',
      },
      1,
    );
    const check = out.checks.find((c) => c.name === 'executions issue_refund');
    const got = `${out.status}; ${check ? `${check.name}: ${check.message}` : 'no executions check'}`;
    checks.push({ name: `ran 2, expected ${expected}`, passed: got === want, message: got, expected: want, actual: got });
  }
  return checks;
}

/**
 * A loop that calls the model outside any turn (a warm-up in `create`, or work a cancelled turn left running) still
 * gets its report: what the model saw is told per turn, and a request of no turn is no step of one (review of stop
 * 54: such a request went into the report as turn -1, which results.json refuses, and the run lost its report).
 */
async function requestOutsideATurnKeepsTheReport(): Promise<CheckResult[]> {
  const warming: LoopUnderTestFactory = {
    ...LOOP,
    create: async (world) => {
      await world.model.call({
        model: 'm',
        system: world.system,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'ping' }] }],
        tools: [],
        maxTokens: world.maxTokens,
      });
      return LOOP.create(world);
    },
  };
  const text = `name: a refund after a warm-up call
${TOOLS}provider:
  script:
    - reply: pong
    - tool_use: [{ id: refund, name: issue_refund, args: { order_id: ORD-1001, amount: 120 } }]
    - reply: Refunded.
inbox:
  - say: Please refund ORD-1001.
expect: {}
`;
  const out = await runPeerCase(parseScenario(text, 'own-loop-warm-up.yaml'), { loop: warming, registry: EMPTY_REGISTRY, invariants: INVARIANTS }, 1);
  const refused = (out.requests ?? []).flatMap((r, i) => {
    const checked = stepRequestSchema.safeParse(r);
    return checked.success ? [] : [`requests[${i}]: ${checked.error.issues.map((x) => `${x.path.join('.')} ${x.message}`).join('; ')}`];
  });
  const steps = (out.requests ?? []).map((r) => `turn ${r.turn} step ${r.step}`).join(', ');
  return [
    {
      name: "the report's requests are each a step of a turn, as results.json takes them",
      passed: refused.length === 0 && steps === 'turn 0 step 1, turn 0 step 2',
      message: refused.join('; ') || steps,
      expected: 'turn 0 step 1, turn 0 step 2',
      actual: steps,
    },
  ];
}

/**
 * A loop that keeps the case's secrets out of all it keeps and sends (`world.secrets`, redacted as they come in, as
 * invariant 15 asks) sends the model each message redacted: invariant 9 from outside must know that message for
 * the one sent — its first request, and the next turn's after a cancel — and invariant 15 holds (fuzzing a redacting
 * team loop: every case with a secret or a credential-shaped text in the message failed invariant 9).
 */
async function secretsKeptOutStillDelivered(): Promise<CheckResult[]> {
  const text = `name: a message holding a secret and a key-shaped text, cancelled while the model thinks, then another
secrets: ['${SECRET}']
${TOOLS}provider:
  script:
    - tool_use: [{ id: refund, name: issue_refund, args: { order_id: ORD-1001, amount: 120 } }]
    - reply: never seen
      latencyMs: 5000
    - reply: Your refund of ORD-1001 went through.
inbox:
  - say: Please refund ORD-1001, my ledger key is ${SECRET} and my old API key sk_live_AbC123dEf456GhI789jKl0.
  - cancel: user
    at: { time: 1000 }
  - say: Did it go through?
expect: {}
`;
  const run = await runPeerScenario(parseScenario(text, 'own-loop-redacting.yaml'), handWritten({ redacts: true }), { seed: 1 });
  const verdicts = await checkInvariants(run, INVARIANTS);
  const judged = (id: string) => verdicts.find((c) => c.name === id);
  const broken = verdicts.filter((c) => !c.passed).map((c) => `${c.name}: ${c.message}`);
  const sent =
    (run.requests[0]?.messages ?? []).flatMap((m) => (m.role === 'user' ? m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])) : []))[0] ?? '';
  // A refund whose call id holds the secret runs, then the turn fails: the notice the loop keeps names the call redacted.
  const failing = `name: a refund whose call id holds the secret, then a refusal
secrets: ['${SECRET}']
${TOOLS}provider:
  script:
    - tool_use: [{ id: 'key-${SECRET}', name: issue_refund, args: { order_id: ORD-1001, amount: 120 } }]
    - refusal: I cannot continue.
inbox:
  - say: Please refund ORD-1001.
expect: {}
`;
  const told = await runPeerScenario(parseScenario(failing, 'own-loop-redacting-told.yaml'), handWritten({ redacts: true }), { seed: 1 });
  const toldBroken = (await checkInvariants(told, INVARIANTS)).filter((c) => !c.passed).map((c) => `${c.name}: ${c.message}`);
  // A lookup whose call id holds the secret, then the step limit: its result, redacted, reached the model (invariant 11).
  const limited = `name: a lookup whose call id holds the secret, then the step limit
secrets: ['${SECRET}']
config: { maxSteps: 2 }
tools:
  - name: lookup
    description: Look an order up.
    behaviour: [{ return: { status: shipped } }]
provider:
  script:
    - tool_use: [{ id: 'key-${SECRET}', name: lookup, args: { order_id: ORD-1001 } }]
    - tool_use: [{ name: lookup, args: { order_id: ORD-1002 } }]
inbox:
  - say: Where are ORD-1001 and ORD-1002?
expect: {}
`;
  // A message that is only a second secret, after one holding the first: redacted, it reads as a piece of the first
  // message — not a second copy of it (review of stop 55, M1: "carries its message 2 times").
  const alone = `name: a message that is only a secret, after one holding another
secrets: ['${SECRET}', 'ledger-key-Bm4Wq9Zs1Tx6']
provider:
  script:
    - reply: Noted.
    - reply: Noted again.
inbox:
  - say: My ledger key is ${SECRET}.
  - say: ledger-key-Bm4Wq9Zs1Tx6
expect: {}
`;
  const onlySecret = await runPeerScenario(parseScenario(alone, 'own-loop-redacting-alone.yaml'), handWritten({ redacts: true }), { seed: 1 });
  const aloneBroken = (await checkInvariants(onlySecret, INVARIANTS)).filter((c) => !c.passed).map((c) => `${c.name}: ${c.message}`);
  // A customer who asks the same thing twice: turn 1's first request holds it twice, once for each turn (probe 49, HIGH-1).
  const twice = `name: the same question twice
provider:
  script:
    - reply: Your refill is being prepared.
    - reply: Still being prepared.
inbox:
  - say: Is my refill ready?
  - say: Is my refill ready?
expect: {}
`;
  const asked = await runPeerScenario(parseScenario(twice, 'own-loop-twice.yaml'), handWritten({ redacts: true }), { seed: 1 });
  const twiceBroken = (await checkInvariants(asked, INVARIANTS)).filter((c) => !c.passed).map((c) => `${c.name}: ${c.message}`);
  const atLimit = await runPeerScenario(parseScenario(limited, 'own-loop-redacting-limit.yaml'), handWritten({ redacts: true }), { seed: 1 });
  const limitBroken = (await checkInvariants(atLimit, INVARIANTS)).filter((c) => !c.passed).map((c) => `${c.name}: ${c.message}`);
  const ended = atLimit.reports.map((r) => outcomeLabel(r.outcome)).join(', ');
  return [
    {
      name: 'the failed turn after the refund: every invariant holds from outside (the notice names the call redacted)',
      passed: toldBroken.length === 0 && told.waiting.length === 1,
      message: toldBroken.join('; ') || `kept for the next turn: ${JSON.stringify(told.waiting)}`,
    },
    {
      name: 'the same question asked twice: every invariant holds from outside',
      passed: twiceBroken.length === 0 && asked.reports.length === 2,
      message: twiceBroken.join('; ') || `${asked.reports.length} turns`,
    },
    {
      name: 'a message that is only a secret, after one holding another: every invariant holds from outside',
      passed: aloneBroken.length === 0,
      message: aloneBroken.join('; ') || 'every invariant holds',
    },
    {
      name: 'the step limit after the lookup: every invariant holds from outside (its result reached the model, redacted)',
      passed: limitBroken.length === 0 && ended === 'failed{max_steps}',
      message: limitBroken.join('; ') || ended,
    },
    {
      name: 'the loop sent the message redacted',
      passed: !sent.includes(SECRET) && !sent.includes('sk_live_AbC123') && sent.startsWith('Please refund ORD-1001'),
      message: sent,
    },
    {
      name: 'invariants 9 and 15 judged it',
      passed: judged(inboxDeliveredOnce.id) !== undefined && judged('invariant-15-secrets-never-leave') !== undefined,
      message: verdicts.map((c) => c.name).join(', '),
    },
    { name: 'every invariant holds from outside', passed: broken.length === 0, message: broken.join('; ') || 'every invariant holds' },
  ];
}

/**
 * A team's loop that speaks the wire itself (its own HTTP call to `world.wire`, with the key it is given) and redacts
 * `world.secrets` keeps a reply quoting that key out of all it keeps: the key it is judged on (invariant 15) is among
 * the secrets it is told (review of stop 68: a port loop was judged on the wire key but not told it).
 */
async function wireKeyAmongTheSecrets(): Promise<CheckResult[]> {
  const text = `name: a wire reply that quotes the key the request carried
provider:
  kind: wire
  provider: openai-chat
  script:
    - reply: ORD-1001 has shipped.
      quotesKey: true
inbox:
  - say: Where is ORD-1001?
expect: {}
`;
  let told: { readonly secrets: readonly string[]; readonly apiKey?: string } = { secrets: [] };
  const heard: string[] = [];
  const loop: LoopUnderTestFactory = {
    id: 'wire-team',
    version: 'wire-team 1.0.0',
    capabilities: { supports: [], history: 'session', time: 'patched-timers' },
    create: (world) => {
      told = { secrets: world.secrets, ...(world.wire ? { apiKey: world.wire.apiKey } : {}) };
      const redact = createRedactor({ secrets: world.secrets });
      const history: Message[] = [];
      return {
        runTurn: async ({ turn, text: said, signal }) => {
          const wire = world.wire;
          if (!wire) throw new Error('no wire address');
          history.push({ role: 'user', content: [{ type: 'text', text: redact(said) }] });
          const sent = history.map((m) => ({ role: m.role, content: m.content.map((b) => (b.type === 'text' ? b.text : '')).join('') }));
          const response = await fetch(`${wire.baseURL}/chat/completions`, {
            method: 'POST',
            signal,
            headers: { authorization: `Bearer ${wire.apiKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({ model: wire.model, messages: sent }),
          });
          const body = (await response.json()) as { choices: { message: { content: string } }[] };
          heard.push(body.choices[0]?.message.content ?? '');
          const reply = redact(heard.at(-1) ?? '');
          history.push({ role: 'assistant', content: [{ type: 'text', text: reply }] });
          return {
            turn,
            outcome: { kind: 'replied' },
            ending: { kind: 'resolved', finishReason: 'stop' },
            reply,
            steps: 1,
            usage: { inputTokens: 1, outputTokens: 1 },
          };
        },
        persistedHistory: () => [...history],
        traces: () => [],
      };
    },
  };
  const run = await runPeerScenario(parseScenario(text, 'own-loop-wire-key.yaml'), loop, { seed: 1 });
  const broken = (await checkInvariants(run, INVARIANTS)).filter((c) => !c.passed).map((c) => `${c.name}: ${c.message}`);
  const replies = run.reports.map((r) => r.reply ?? outcomeLabel(r.outcome));
  return [
    {
      name: "world.secrets holds the wire's key",
      passed: told.apiKey !== undefined && told.secrets.includes(told.apiKey),
      message: `told ${told.secrets.length} secret(s)${told.apiKey !== undefined && told.secrets.includes(told.apiKey) ? ', the key among them' : ', not the key'}`,
    },
    {
      name: 'the wire quoted the key the request carried',
      passed: told.apiKey !== undefined && heard.length === 1 && heard[0]?.includes(`The key you sent is ${told.apiKey}`) === true,
      message: `${heard.length} answer(s)${told.apiKey !== undefined && heard[0]?.includes(told.apiKey) ? ', quoting the key' : ', none quoting the key'}`,
    },
    {
      name: 'the reply came back with the key redacted',
      passed:
        replies.length === 1 && replies[0]?.startsWith('ORD-1001 has shipped.') === true && told.apiKey !== undefined && !replies[0].includes(told.apiKey),
      message: replies.join(' | ').replaceAll(told.apiKey ?? '\u0000', '<the key>'),
    },
    { name: 'every invariant holds from outside', passed: broken.length === 0, message: broken.join('; ') || 'every invariant holds' },
  ];
}

export function ownLoopCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:own-loop/cancel-read-by-cancelof-and-judged-from-outside',
        title:
          "a team's loop reads the scenario's cancel with cancelOf and ends the turn cancelled{user}; its next turn holds the message and is told the refund (invariants 9 and 14 from outside hold, and catch a next turn that lost either)",
        file: FILE,
      },
      cancelledTurnFromOutside,
    ),
    checksCase(
      {
        id: 'contract:own-loop/tool-keys-carry-the-conversation',
        title: "a tool body behind the port gets loopgate's own idempotency key, <conversation>/<tool>:<call id>, in each conversation",
        file: FILE,
      },
      toolKeysCarryTheConversation,
    ),
    checksCase(
      {
        id: 'contract:own-loop/pinned-history-lines-redacted',
        title: "the persisted history lines pinned of a team's loop are redacted: a tool output's secret never reaches a verdicts file",
        file: FILE,
        secrets: [SECRET],
      },
      pinnedHistoryLinesRedacted,
    ),
    checksCase(
      {
        id: 'contract:own-loop/model-called-outside-a-turn-keeps-the-report',
        title:
          "a team's loop that calls the model outside any turn (a warm-up) keeps its report: what the model saw is told per turn, as results.json takes it",
        file: FILE,
      },
      requestOutsideATurnKeepsTheReport,
    ),
    checksCase(
      {
        id: 'contract:own-loop/executions-counted-in-full',
        title: "an executions expectation on a team's loop counts every run of the body: one too many or too few fails naming the count",
        file: FILE,
      },
      executionsCountedInFull,
    ),
    checksCase(
      {
        id: 'contract:own-loop/secrets-kept-out-still-delivered',
        title:
          "a team's loop that redacts the case's secrets (world.secrets) as they come in sends each message redacted: invariant 9 from outside takes it for the message sent, and invariant 15 holds",
        file: FILE,
        secrets: [SECRET, 'ledger-key-Bm4Wq9Zs1Tx6'],
      },
      secretsKeptOutStillDelivered,
    ),
    checksCase(
      {
        id: 'contract:own-loop/judged-on-what-it-did',
        title:
          "a team's loop is judged from outside on what it did: tools given no abort signal, a retry-after cut short, a cancelled turn or one its step limit stopped reported otherwise — each fails the invariant that names it",
        file: FILE,
      },
      judgedOnWhatItDid,
    ),
    checksCase(
      {
        id: 'contract:own-loop/wire-key-among-the-secrets',
        title:
          "a team's loop that calls the wire itself and redacts world.secrets keeps a reply quoting the wire's key out: the key it is judged on is among the secrets it is told",
        file: FILE,
      },
      wireKeyAmongTheSecrets,
    ),
  ];
}
