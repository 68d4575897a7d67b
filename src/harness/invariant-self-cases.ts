/**
 * The gate's own checks, checked when it runs: `contract:invariant-self/<id>`.
 *
 * Every case of `loopgate run` asks the invariants whether a run broke them; a
 * run of a correct loop never does, so an invariant weakened by an upgrade, a
 * patch or a fork (a side effect counted as repeated only from its third start,
 * a secret looked for only in the log) would pass every case and certify
 * nothing (probe 21, F9). Here each of the invariants a release leans on most —
 * side effects run once (13), secrets never leave (15), calls paired with
 * their results (6), a call the stream cut never kept — is given a real run of the loop, on which it must hold,
 * and the same run tampered to break exactly its rule, on which it must say so.
 */
import { EventLog, type AnyEvent, type Message } from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { checksCase, type Case } from './cases.ts';
import { checkInvariants, INVARIANTS } from './invariants/index.ts';
import type { Invariant } from './invariants/invariant.ts';
import { approverAnswersFollowed } from './invariants/approver-answers-followed.ts';
import { cutCallsNeverKept } from './invariants/cut-calls-never-kept.ts';
import { deltasSpellTheMessage } from './invariants/deltas-spell-the-message.ts';
import { turnsClosedOnce } from './invariants/invariant-04-turns-closed-once.ts';
import { failedTurnsAddNothing } from './invariants/invariant-05-failed-turns-add-nothing.ts';
import { noOpenSpans } from './invariants/invariant-08-no-open-spans.ts';
import { nothingThrows } from './invariants/invariant-12-nothing-throws.ts';
import { repliesComeFromTheModel } from './invariants/replies-come-from-the-model.ts';
import { runPeerCase } from './loop-port/peer-case.ts';
import { runPeerScenario } from './loop-port/peer-host.ts';
import type { PeerRun } from './loop-port/peer-run.ts';
import type { LoopUnderTestFactory } from './loop-port/peer-world.ts';
import type { TurnReport } from './loop-port/port.ts';
import { handWritten } from './hand-written-loop.ts';
import { toolPairing } from './invariants/invariant-06-tool-pairing.ts';
import { sideEffectsOnce } from './invariants/invariant-13-side-effects-once.ts';
import { secretsNeverLeave } from './invariants/invariant-15-secrets-never-leave.ts';
import { startedCallsStayUnknown } from './invariants/started-calls-stay-unknown.ts';
import { parseScenario } from './scenario/load.ts';
import { runPassed, summarize } from '../report/results.ts';
import { runCases } from './runner.ts';
import { scenarioCase } from './scenario-case.ts';
import { runScenario, type ScenarioRun } from './second-host.ts';
import { EMPTY_REGISTRY } from './world/agent-under-test.ts';

const FILE = 'src/harness/invariant-self-cases.ts';
const SECRET = 'vault-token-Q7vLm2Xc9RtB4nZp';

const REFUND = `
name: a refund, run by the loop for the gate's own checks
secrets: ['${SECRET}']
tools:
  - name: lookup_order
    description: Look an order up.
    sideEffect: NONE
    behaviour: [{ return: { order_id: ORD-1001, status: delivered, total: 120 } }]
  - name: issue_refund
    description: Refund an order.
    sideEffect: STATEFUL
    behaviour: [{ return: { refunded: 120, token: '${SECRET}' } }]
provider:
  script:
    - tool_use: [{ id: look, name: lookup_order, args: { order_id: ORD-1001 } }]
    - tool_use: [{ id: refund, name: issue_refund, args: { order_id: ORD-1001, amount: 120 } }]
    - reply: ORD-1001 is refunded.
inbox:
  - say: Please refund ORD-1001.
expect: {}
`;

/**
 * The hand-written loop (hand-written-loop.ts): the run the invariants judge from outside a loop (`checkObservable`),
 * which only `--loop` and a team's own `loop:` reach — checked here in the default gate, so a weakened outside view
 * fails `loopgate run` too (outside probe 44, P13).
 */
const HAND_WRITTEN: LoopUnderTestFactory = handWritten();

/**
 * The requests the harness recorded are what the model was sent then: a loop that hands the model its own message
 * list and adds to it afterwards (as many do) must not rewrite them (outside probe 45, F2: the recorded first request
 * held the model's own answer to it, and every check reading requests judged what the loop kept, not what it sent).
 */
/**
 * A scenario's trigger that never fires fails its case on a peer as on loopgate's loop (outside probe 45, F1: on a
 * team's own loop a cancel `at: { request: 99 }` of a two-request case passed, having checked nothing it meant).
 */
async function unfiredTriggerFailsOnAPeer(): Promise<CheckResult[]> {
  const text = `${REFUND_OUTSIDE.replace('expect: {}', '')}  - cancel: user\n    at: { request: 99 }\nexpect:\n  outcome: replied\n`;
  const out = await runPeerCase(
    parseScenario(text, 'invariant-self-trigger.yaml'),
    { loop: HAND_WRITTEN, registry: EMPTY_REGISTRY, invariants: INVARIANTS },
    1,
  );
  const triggers = out.checks.find((c) => c.name === 'triggers');
  const got = `${out.status}; ${triggers ? `triggers ${triggers.passed ? 'passed' : 'failed'}: ${triggers.message}` : 'no triggers check'}`;
  const want = 'failed; triggers failed: inbox[1]: cancel at {request: 99} never happened (the case ended first; ifReached: true if it may not)';
  // What the model saw at each step, as for loopgate's loop: a failing peer case's report shows its last request
  // (outside probe 46: the reports of a peer's failures had none).
  const saw = (out.requests ?? []).map((r) => `turn ${r.turn}, step ${r.step}: ${r.lines.slice(3).join(' | ')}`);
  const seen = [
    'turn 0, step 1: user: Please refund ORD-1001.',
    'turn 0, step 2: user: Please refund ORD-1001. | assistant: call lookup_order#look {"order_id":"ORD-1001"} | user: result#look ok: {"order_id":"ORD-1001","status":"delivered","total":120}',
    'turn 0, step 3: user: Please refund ORD-1001. | assistant: call lookup_order#look {"order_id":"ORD-1001"} | user: result#look ok: {"order_id":"ORD-1001","status":"delivered","total":120} | assistant: call issue_refund#refund {"order_id":"ORD-1001","amount":120} | user: result#refund ok: {"refunded":120}',
  ];
  return [
    { name: 'a trigger that never fires fails the case on a hand-written loop', passed: got === want, message: got, expected: want, actual: got },
    {
      name: "the failing case's report shows what the model saw at each step",
      passed:
        saw.join('\n') === seen.join('\n') &&
        (out.requests ?? []).every((r) => r.lines[0]?.startsWith('model: m · max tokens ') && r.lines[2] === 'tools: (none)'),
      message: `${(out.requests ?? [])[0]?.lines.slice(0, 3).join(' | ') ?? ''}\n${saw.join('\n')}` || 'no requests in the report',
      expected: seen,
      actual: saw,
    },
  ];
}

/**
 * What a loop reports and keeps is checked before it is counted or rendered (outside probe 45, F5, F8): a report of
 * `steps: -1` and NaN tokens made the run's results.json unwritable ("a loopgate bug"), and a history message whose
 * content is a text crashed the report with a stack. Each fails its case naming it; the case's counts stay counts.
 */
async function badReportsFailTheirCase(): Promise<CheckResult[]> {
  const wrapped = (edit: { report?: (r: TurnReport) => TurnReport; history?: () => readonly Message[] }): LoopUnderTestFactory => ({
    ...HAND_WRITTEN,
    create: async (world) => {
      const inner = await HAND_WRITTEN.create(world);
      return {
        ...inner,
        runTurn: async (turn) => (edit.report ?? ((r) => r))(await inner.runTurn(turn)),
        persistedHistory: edit.history ?? (() => inner.persistedHistory()),
      };
    },
  });
  const rows: readonly [string, LoopUnderTestFactory, string][] = [
    [
      'steps -1 and NaN tokens',
      wrapped({ report: (r) => ({ ...r, steps: -1, usage: { inputTokens: Number.NaN, outputTokens: 2 } }) }),
      'failed; loop report failed: turn 0 reported steps -1 (a count: a whole number, 0 or more); metrics 0 steps, 0 + 2 tokens',
    ],
    [
      'a history message whose content is a text, not blocks',
      wrapped({ history: () => [{ role: 'assistant', content: 'Refunded.' } as unknown as Message] }),
      'failed; persisted history failed: message 0 (assistant): content is a string, not a list of blocks ({ type, … }); metrics 3 steps, 1 + 1 tokens',
    ],
  ];
  const checks: CheckResult[] = [];
  for (const [name, loop, want] of rows) {
    let got: string;
    try {
      const out = await runPeerCase(parseScenario(REFUND_OUTSIDE, 'invariant-self-report.yaml'), { loop, registry: EMPTY_REGISTRY, invariants: INVARIANTS }, 1);
      const named = out.checks.find((c) => (c.name === 'loop report' || c.name === 'persisted history') && !c.passed);
      const m = out.metrics;
      got = `${out.status}; ${named ? `${named.name} failed: ${named.message}` : 'nothing named'}; metrics ${m?.steps} steps, ${m?.inputTokens} + ${m?.outputTokens} tokens`;
    } catch (error) {
      got = `threw: ${(error as Error).message}`;
    }
    checks.push({ name: `a loop reporting ${name}: its case fails naming it`, passed: got === want, message: got, expected: want, actual: got });
  }
  return checks;
}

async function requestsRecordedAsSent(): Promise<CheckResult[]> {
  const run = await runPeerScenario(parseScenario(REFUND_OUTSIDE, 'invariant-self-outside.yaml'), handWritten({ shares: true }), { seed: 1 });
  const sizes = run.requests.map((r) => r.messages.length).join(', ');
  return [
    {
      name: "each recorded request holds what was sent then, though the loop's list grew after",
      passed: sizes === '1, 3, 5',
      message: `messages per request: ${sizes}`,
      expected: '1, 3, 5',
      actual: sizes,
    },
  ];
}

/** REFUND with a refund that returns no secret: what a hand-written loop that redacts nothing may keep. */
const REFUND_OUTSIDE = REFUND.replace(`behaviour: [{ return: { refunded: 120, token: '${SECRET}' } }]`, 'behaviour: [{ return: { refunded: 120 } }]');

interface OutsideTamper {
  readonly breaks: string;
  readonly run: (run: PeerRun) => PeerRun;
  readonly says: RegExp;
}

/** `holdsAndCatches` from outside a loop: the invariant's outside view holds on the hand-written loop's run, and catches each tamper. */
async function holdsAndCatchesFromOutside(invariant: Invariant, tampers: readonly OutsideTamper[]): Promise<CheckResult[]> {
  const run = await runPeerScenario(parseScenario(REFUND_OUTSIDE, 'invariant-self-outside.yaml'), HAND_WRITTEN, { seed: 1 });
  // Judged as the gate judges a peer's run (checkInvariants: its outside view, unless it says it cannot judge).
  const verdict = async (r: PeerRun) => {
    const [c] = await checkInvariants(r, [invariant]);
    return c === undefined || c.passed ? (c?.message.startsWith('not judged') ? c.message : undefined) : c.message;
  };
  const clean = await verdict(run);
  const checks: CheckResult[] = [
    {
      name: `${invariant.id} holds on a hand-written loop's run, judged from outside`,
      passed: clean === undefined && run.thrown === undefined && run.reports.map((r) => r.outcome.kind).join() === 'replied',
      message: clean ?? (run.thrown ? `the run threw: ${String(run.thrown)}` : `holds (${run.reports.map((r) => r.outcome.kind).join(', ')})`),
    },
  ];
  for (const tamper of tampers) {
    let said: string | undefined;
    try {
      said = await verdict(tamper.run(run));
    } catch (error) {
      said = `threw: ${(error as Error).message}`;
    }
    checks.push({
      name: `${invariant.id} catches from outside ${tamper.breaks}`,
      passed: said !== undefined && tamper.says.test(said),
      message: said === undefined ? 'it holds on the tampered run' : said.slice(0, 200),
      expected: String(tamper.says),
      actual: said === undefined ? 'holds' : said.slice(0, 200),
    });
  }
  return checks;
}

/** The run with its last persisted history changed by `edit`. */
const lastHistory = (run: PeerRun, edit: (history: readonly Message[]) => readonly Message[]): PeerRun => ({
  ...run,
  histories: run.histories.map((h, i) => (i === run.histories.length - 1 ? edit(h) : h)),
});

/** A refund whose first answer the stream cuts inside its arguments (the call `call_cut`), then the refund whole. */
const CUT_REFUND = `
name: a refund cut inside its arguments, then sent whole, for the gate's own checks
tools:
  - name: issue_refund
    description: Refund an order.
    sideEffect: STATEFUL
    behaviour: [{ return: { refunded: 120 } }]
config: { retry: { jitter: 0 } }
provider:
  script:
    - error: { kind: network, midStream: tool_args }
    - tool_use: [{ id: refund, name: issue_refund, args: { order_id: ORD-1001, amount: 120 } }]
    - reply: ORD-1001 is refunded.
inbox:
  - say: Please refund ORD-1001.
expect: {}
`;

/** The run with `call` added to the last assistant message of request `i` (0-based), or as a new one at its end. */
function sendsBack(run: ScenarioRun, i: number, call: { id: string; name: string; args: unknown }): ScenarioRun {
  return {
    ...run,
    requests: run.requests.map((request, j) =>
      j === i
        ? { ...request, messages: [...request.messages, { role: 'assistant', content: [{ type: 'tool_call', ...call }] } as (typeof request.messages)[number]] }
        : request,
    ),
  };
}

const LOOKUP_SAID = `
name: a lookup said before it is called, for the gate's own checks
tools:
  - name: lookup_order
    description: Look an order up.
    behaviour: [{ return: { order_id: ORD-1001, status: delivered } }]
provider:
  script:
    - text: Let me look ORD-1001 up.
      tool_use: [{ id: look, name: lookup_order, args: { order_id: ORD-1001 } }]
    - reply: ORD-1001 was delivered.
inbox:
  - say: Where is ORD-1001?
expect: {}
`;

/** The run with the first model call's text deltas stored after its first tool call's start (renumbered). */
function textAfterTheCall(run: ScenarioRun): ScenarioRun {
  const isDelta = (e: AnyEvent, kind: string) =>
    e.type === 'model.delta' &&
    (e.payload as { step?: number; delta?: { kind?: string } }).step === 1 &&
    (e.payload as { delta?: { kind?: string } }).delta?.kind === kind;
  const texts = run.log.events.filter((e) => isDelta(e, 'text'));
  const rest = run.log.events.filter((e) => !isDelta(e, 'text'));
  const at = rest.findIndex((e) => isDelta(e, 'tool_call_start'));
  const moved = [...rest.slice(0, at + 1), ...texts, ...rest.slice(at + 1)];
  return withEvents(
    run,
    moved.map((e, seq) => Object.freeze({ ...e, seq }) as AnyEvent),
  );
}

/** The run with its log replaced by `events` (stored events, as a reopened store hands them back). */
function withEvents(run: ScenarioRun, events: readonly AnyEvent[]): ScenarioRun {
  return { ...run, log: new EventLog({ now: () => 0 }, events) };
}

/** An event changed as a store would hold it (a frozen copy). */
function changed(event: AnyEvent, payload: (p: Record<string, unknown>) => Record<string, unknown>): AnyEvent {
  return Object.freeze({ ...event, payload: Object.freeze(payload(event.payload as Record<string, unknown>)) }) as AnyEvent;
}

interface Tamper {
  /** What the tampering breaks, for the check's name. */
  readonly breaks: string;
  readonly run: (run: ScenarioRun) => ScenarioRun;
  /** What the invariant must say. */
  readonly says: RegExp;
}

async function holdsAndCatches(invariant: Invariant, tampers: readonly Tamper[], scenario: string = REFUND): Promise<CheckResult[]> {
  const run = await runScenario(parseScenario(scenario, 'invariant-self.yaml'), { seed: 1 });
  const clean = await invariant.check(run, {});
  const checks: CheckResult[] = [
    {
      name: `${invariant.id} holds on a real run of the loop`,
      passed: clean === undefined && run.thrown === undefined,
      message: clean ?? (run.thrown ? `the run threw: ${String(run.thrown)}` : 'holds'),
    },
  ];
  for (const tamper of tampers) {
    let said: string | undefined;
    try {
      said = (await invariant.check(tamper.run(run), {})) ?? undefined;
    } catch (error) {
      said = `threw: ${(error as Error).message}`;
    }
    checks.push({
      name: `${invariant.id} catches ${tamper.breaks}`,
      passed: said !== undefined && tamper.says.test(said),
      message: said === undefined ? 'it holds on the tampered run' : said.slice(0, 200),
      expected: String(tamper.says),
      actual: said === undefined ? 'holds' : said.slice(0, 200),
    });
  }
  return checks;
}

/**
 * A case fails when any one of its checks fails, however many pass beside it (outside probe 43, F2: with the
 * verdict taken from `some` check passing instead of `every`, the bundled run passed 1986 of 2151 and a scenario
 * expecting the wrong outcome passed): scenario cases run as every bundled scenario runs, and contract cases of
 * mixed checks, through the gate's own runner.
 */
async function failingCheckFailsItsCase(): Promise<CheckResult[]> {
  const scenario = (id: string, outcome: string) => ({
    id,
    file: `${id}.yaml`,
    scenario: parseScenario(
      `name: the gate's own check (${id})\nprovider:\n  script:\n    - reply: ORD-1001 was delivered on Monday.\ninbox:\n  - say: Where is ORD-1001?\nexpect:\n  outcome: ${outcome}\n`,
      `${id}.yaml`,
    ),
  });
  const context = { registry: EMPTY_REGISTRY, invariants: INVARIANTS };
  const check = (name: string, passed: boolean): CheckResult => ({ name, passed, message: passed ? 'holds' : 'planted to fail' });
  const mixed = (id: string, checks: readonly CheckResult[]) => checksCase({ id, title: id, file: FILE }, () => checks);
  const expected: Record<string, 'passed' | 'failed'> = {
    'scenario:expects-the-wrong-outcome': 'failed',
    'scenario:expects-the-right-outcome': 'passed',
    'mixed:one-failing-last': 'failed',
    'mixed:one-failing-first': 'failed',
    'mixed:all-passing': 'passed',
  };
  const results = await runCases(
    [
      scenarioCase(scenario('expects-the-wrong-outcome', 'failed{max_steps}'), context),
      scenarioCase(scenario('expects-the-right-outcome', 'replied'), context),
      mixed('mixed:one-failing-last', [check('a', true), check('b', true), check('c', false)]),
      mixed('mixed:one-failing-first', [check('a', false), check('b', true)]),
      mixed('mixed:all-passing', [check('a', true), check('b', true)]),
    ],
    { seed: 1, concurrency: 1 },
  );
  const checks: CheckResult[] = results.map((r) => ({
    name: `${r.id} ${expected[r.id]}`,
    passed: r.status === expected[r.id],
    message: `${r.status}: ${r.checks.map((c) => `${c.name} ${c.passed ? 'passed' : 'failed'}`).join(', ')}`,
    expected: expected[r.id],
    actual: r.status,
  }));
  // The wrong-outcome case fails on that check alone: the others beside it pass (so "some check passed" would pass it).
  const wrong = results.find((r) => r.id === 'scenario:expects-the-wrong-outcome');
  const failing = wrong?.checks.filter((c) => !c.passed).map((c) => c.name) ?? [];
  checks.push({
    name: 'the wrong outcome is the one failing check, beside passing ones',
    passed: failing.length === 1 && failing[0] === 'outcome' && (wrong?.checks.some((c) => c.passed) ?? false),
    message: `failing: ${failing.join(', ') || 'none'}`,
  });
  const summary = summarize(results);
  checks.push({
    name: 'the run of them counts 3 failed and has not passed',
    passed: summary.failed === 3 && summary.passed === 2 && !runPassed({ summary }),
    message: `${summary.passed} passed, ${summary.failed} failed; run passed: ${runPassed({ summary })}`,
  });
  return checks;
}

const started = (run: ScenarioRun, name: string) => run.log.events.find((e) => e.type === 'tool.started' && (e.payload as { name?: unknown }).name === name);

export function invariantSelfCases(): Case[] {
  return [
    {
      id: 'contract:invariant-self/a-failing-check-fails-its-case',
      kind: 'contract',
      title:
        "the gate's own verdict: a case with one failing check fails, beside passing ones (a scenario expecting the wrong outcome, contract cases of mixed checks), and the run counts it",
      file: FILE,
      // Its own verdict is not taken from `statusFromChecks`, the function it checks: counted here, check by check.
      run: async () => {
        const checks = await failingCheckFailsItsCase();
        const failing = checks.filter((c) => !c.passed).length;
        return { status: failing === 0 ? 'passed' : 'failed', outcome: 'checked', checks };
      },
    },
    checksCase(
      {
        id: 'contract:invariant-self/side-effects-once',
        title: "the gate's own check: invariant 13 holds on a refund run once, and catches one started or run twice",
        file: FILE,
      },
      () =>
        holdsAndCatches(sideEffectsOnce, [
          {
            breaks: 'a STATEFUL call started twice',
            run: (run) => {
              const refund = started(run, 'issue_refund')!;
              return withEvents(run, [...run.log.events, Object.freeze({ ...refund, seq: run.log.length }) as AnyEvent]);
            },
            says: /issue_refund \(STATEFUL\) call refund was started 2 times/,
          },
          {
            breaks: 'a STATEFUL body run twice for one call',
            run: (run) => ({ ...run, executionsByToolCall: new Map([['issue_refund', new Map([['refund', 2]])]]) }),
            says: /issue_refund \(STATEFUL\) ran 2 times for call refund/,
          },
        ]),
    ),
    checksCase(
      {
        id: 'contract:invariant-self/started-calls-stay-unknown',
        title:
          "the gate's own check: a STATEFUL call with no start record, or one stopped before its body in one life, closed INTERRUPTED as if it may have run, is caught",
        file: FILE,
      },
      () =>
        holdsAndCatches(startedCallsStayUnknown, [
          {
            // What a host's crash recovery not told the tools' levels wrote (outside probe 59, P13): the refund never started.
            breaks: 'a STATEFUL refund without its start record closed INTERRUPTED',
            run: (run) => {
              const kept = run.log.events.filter((e) => !(e.type === 'tool.started' && (e.payload as { callId?: string }).callId === 'refund'));
              const events = kept.map((e, seq) => {
                const renumbered = Object.freeze({ ...e, seq }) as AnyEvent;
                if (e.type !== 'tool.result' || (e.payload as { callId?: string }).callId !== 'refund') return renumbered;
                return changed(renumbered, (p) => ({
                  ...p,
                  status: 'unknown',
                  attempts: 0,
                  error: { failed_tool: 'issue_refund', error_code: 'INTERRUPTED', error_message: 'interrupted', suggestion: 'check first' },
                }));
              });
              return withEvents(run, events);
            },
            says: /STATEFUL call refund to issue_refund \(seq \d+\) has no start record — it never ran — but its result says INTERRUPTED/,
          },
          {
            // What a pipeline without its abort check before the body wrote (outside probe 59, P12): the refund's start
            // record stored, a cancel, and its body never run — in one life, where the loop knows it stopped it first.
            breaks: 'a STATEFUL refund stopped before its body, in one life, closed INTERRUPTED',
            run: (run) => {
              const events = run.log.events.map((e) =>
                e.type === 'tool.result' && (e.payload as { callId?: string }).callId === 'refund'
                  ? changed(e, (p) => ({
                      ...p,
                      status: 'unknown',
                      error: { failed_tool: 'issue_refund', error_code: 'INTERRUPTED', error_message: 'interrupted', suggestion: 'check first' },
                    }))
                  : e,
              );
              const executions = new Map([...run.executionsByToolCall].map(([tool, calls]) => [tool, new Map([...calls].filter(([id]) => id !== 'refund'))]));
              return { ...withEvents(run, events), executionsByToolCall: executions };
            },
            says: /turn 0: call refund to issue_refund \(seq \d+\) never ran — no body of it began, and no crash hid one — but its result says INTERRUPTED/,
          },
        ]),
    ),
    checksCase(
      {
        id: 'contract:invariant-self/secrets-never-leave',
        title: "the gate's own check: invariant 15 holds on a run whose tool returned a secret, and catches it written to the log",
        file: FILE,
        secrets: [SECRET],
      },
      () =>
        holdsAndCatches(secretsNeverLeave, [
          {
            breaks: 'the secret in the reply stored',
            run: (run) => {
              const reply = run.log.events.findLast((e) => e.type === 'assistant.message')!;
              const leaked = changed(reply, (p) => ({ ...p, content: [{ type: 'text', text: `Your token is ${SECRET}.` }] }));
              return withEvents(
                run,
                run.log.events.map((e) => (e.seq === reply.seq ? leaked : e)),
              );
            },
            says: /secret/,
          },
        ]),
    ),
    checksCase(
      {
        id: 'contract:invariant-self/deltas-spell-the-message',
        title:
          "the gate's own check: a step's text streamed before its call starts holds on a real run, and is caught stored after the start (outside probe 67: held-back text let out late)",
        file: FILE,
      },
      () =>
        holdsAndCatches(
          deltasSpellTheMessage,
          [
            {
              breaks: "the step's text stored after its call started",
              run: textAfterTheCall,
              says: /before tool call 1 \(lookup_order\) started, the deltas had streamed "", but the message holds "Let me look ORD-1001 up\." before it/,
            },
          ],
          LOOKUP_SAID,
        ),
    ),
    checksCase(
      {
        id: 'contract:invariant-self/cut-calls-never-kept',
        title:
          "the gate's own check: a call the stream cut inside its arguments holds on a real run, and is caught sent back in any request (the last too), or run",
        file: FILE,
      },
      // Outside probe 44, P12: checking every request but the last passed the gate (the history check caught a kept
      // cut call, but not a loop that sends one in its last request and stores a clean history).
      () =>
        holdsAndCatches(
          cutCallsNeverKept,
          [
            ...[0, 1, 2].map((i) => ({
              breaks: `the cut call sent back in request ${i + 1} of 3${i === 2 ? ' (the last)' : ''}`,
              run: (run: ScenarioRun) => sendsBack(run, i, { id: 'call_cut', name: 'issue_refund', args: {} }),
              says: new RegExp(`^request ${i + 1} sends the model back the call the stream cut inside its arguments: issue_refund#call_cut \\{\\}`),
            })),
            {
              breaks: 'the cut call run',
              run: (run) => ({ ...run, executionsByCall: new Map([...run.executionsByCall, ['call_cut', 1]]) }),
              says: /^the call the stream cut inside its arguments \(call_cut\) ran 1 time\(s\)/,
            },
          ],
          CUT_REFUND,
        ),
    ),
    checksCase(
      {
        id: 'contract:invariant-self/from-outside',
        title:
          "the gate's own check from outside a loop: on a hand-written loop's run, invariants 13, 15, 6 and 4, approver-answers-followed and replies-come-from-the-model hold, and each catches its rule broken",
        file: FILE,
        secrets: [SECRET],
      },
      async () => [
        ...(await requestsRecordedAsSent()),
        ...(await unfiredTriggerFailsOnAPeer()),
        ...(await badReportsFailTheirCase()),
        ...(await holdsAndCatchesFromOutside(sideEffectsOnce, [
          {
            breaks: 'a STATEFUL body run twice for one call',
            run: (run) => ({ ...run, toolRuns: [...run.toolRuns, ...run.toolRuns.filter((t) => t.name === 'issue_refund')] }),
            says: /^issue_refund \(STATEFUL\) ran 2 times for call refund/,
          },
        ])),
        ...(await holdsAndCatchesFromOutside(secretsNeverLeave, [
          {
            breaks: 'the secret kept in the history',
            run: (run) => lastHistory(run, (h) => [...h, { role: 'assistant', content: [{ type: 'text', text: `Your token is ${SECRET}.` }] }]),
            says: /can be read back from the persisted history$/,
          },
          {
            // Outside probe 45, F6: a notice kept for a next turn that never came was read by nothing.
            breaks: 'the secret in a notice kept for the next turn',
            run: (run) => ({ ...run, waiting: [{ role: 'user', content: [{ type: 'text', text: `[Note: the refund ran with ${SECRET}.]` }] }] }),
            says: /can be read back from the messages kept for the next turn$/,
          },
          {
            breaks: "the secret in a turn's reply",
            run: (run) => ({ ...run, reports: run.reports.map((r) => ({ ...r, reply: `Your token is ${SECRET}.` })) }),
            says: /can be read back from the turn replies$/,
          },
        ])),
        ...(await holdsAndCatchesFromOutside(toolPairing, [
          {
            breaks: 'a call kept without its result',
            run: (run) =>
              lastHistory(run, (h) =>
                h
                  .map((m) =>
                    m.role === 'user' && Array.isArray(m.content)
                      ? { ...m, content: m.content.filter((b) => !(b.type === 'tool_result' && b.callId === 'look')) }
                      : m,
                  )
                  .filter((m) => !Array.isArray(m.content) || m.content.length > 0),
              ),
            says: /^the persisted history at the end, message \d+: .*look/,
          },
          {
            // From outside a step's results may come in any order (providers take them so), never twice for one call.
            breaks: 'a result sent twice for one call',
            run: (run) =>
              lastHistory(run, (h) =>
                h.map((m) =>
                  m.role === 'user' && Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_result' && b.callId === 'look')
                    ? { ...m, content: [...m.content, ...m.content] }
                    : m,
                ),
              ),
            says: /^the persisted history at the end, message \d+: tool results \[look, look\] do not answer the calls \[look\] one each/,
          },
        ])),
        ...(await holdsAndCatchesFromOutside(turnsClosedOnce, [
          {
            breaks: 'a turn reported twice',
            run: (run) => ({ ...run, reports: [...run.reports, ...run.reports] }),
            says: /^a turn was reported twice: \[0,0\]/,
          },
          {
            breaks: 'a message that ended no turn',
            run: (run) => ({ ...run, reports: [] }),
            says: /^1 message\(s\) were sent, 0 turn\(s\) ended/,
          },
        ])),
        ...(await holdsAndCatchesFromOutside(approverAnswersFollowed, [
          {
            breaks: 'a refund the approver denied run all the same',
            run: (run) => ({
              ...run,
              approvals: [
                {
                  callId: 'refund',
                  tool: 'issue_refund',
                  shown: { callId: 'refund', tool: 'issue_refund', args: {}, sideEffect: 'STATEFUL' },
                  answer: 'deny',
                  at: 0,
                  askedAt: 0,
                },
              ],
            }),
            says: /^call refund \(issue_refund\): the approver answered deny, but its body ran/,
          },
          {
            // Review of stop 53: a loop that declares it asks, and never does, ran a held call unseen.
            breaks: "a refund the agent's own tool holds for approval (needsApproval) run with no one asked",
            run: (run) => ({ ...run, heldForApproval: (tool) => tool === 'issue_refund', approvals: [] }),
            says: /^call refund \(issue_refund\): the tool holds it for approval \(needsApproval\), but its body ran without a yes from the approver/,
          },
        ])),
        // Outside probe 45, F12: the outside views of 5, 8 and 12 had no self-check in the default gate either.
        ...(await holdsAndCatchesFromOutside(failedTurnsAddNothing, [
          {
            breaks: 'a failed turn whose question and calls the loop kept',
            run: (run) => ({ ...run, reports: run.reports.map((r) => ({ ...r, outcome: { kind: 'failed', reason: 'provider_unavailable' } })) }),
            says: /^turn 0 ended failed\{provider_unavailable\}, but the persisted history changed \(0 → \d+ messages; added: user: Please refund ORD-1001\./,
          },
        ])),
        ...(await holdsAndCatchesFromOutside(noOpenSpans, [
          {
            breaks: 'a turn span the loop never ended',
            run: (run) => ({
              ...run,
              traces: [
                {
                  traceId: 'peer:0',
                  spans: [{ id: 's1', parentId: undefined, kind: 'turn', name: 'turn 0', start: 0, end: undefined, status: undefined, attributes: {} }],
                  violations: [],
                },
              ],
            }),
            says: /^trace of turn 0: span turn "turn 0" was never ended/,
          },
          {
            breaks: 'two roots in one turn’s trace',
            run: (run) => ({
              ...run,
              traces: [
                {
                  traceId: 'peer:0',
                  spans: ['a', 'b'].map((id) => ({
                    id,
                    parentId: undefined,
                    kind: 'turn' as const,
                    name: `turn ${id}`,
                    start: 0,
                    end: 1,
                    status: 'ok' as const,
                    attributes: {},
                  })),
                  violations: [],
                },
              ],
            }),
            says: /^trace peer:0: 2 root spans \(turn a, turn b\); one turn span is the root/,
          },
        ])),
        ...(await holdsAndCatchesFromOutside(nothingThrows, [
          {
            breaks: 'a turn that never settled',
            run: (run) => ({ ...run, unsettled: { turn: 0, waitingOn: 'issue_refund (call refund)' } }),
            says: /^turn 0 never settled: it waits on issue_refund \(call refund\)/,
          },
        ])),
        ...(await holdsAndCatchesFromOutside(repliesComeFromTheModel, [
          {
            breaks: 'a reply the loop made up',
            run: (run) => ({ ...run, reports: run.reports.map((r) => ({ ...r, reply: 'Refunded, and a voucher too.' })) }),
            says: /^turn 0 replied "Refunded, and a voucher too\.", which no model call of the case returned/,
          },
        ])),
      ],
    ),
    checksCase(
      {
        id: 'contract:invariant-self/tool-pairing',
        title: "the gate's own check: invariant 6 holds on a run's calls and results, and catches a call left without its result",
        file: FILE,
      },
      () =>
        holdsAndCatches(toolPairing, [
          {
            breaks: 'a request that sends a call without its result',
            run: (run) => ({
              ...run,
              requests: run.requests.map((request, i) =>
                i === 1
                  ? {
                      ...request,
                      messages: request.messages
                        .map((m) =>
                          m.role === 'user' && Array.isArray(m.content)
                            ? { ...m, content: m.content.filter((b) => !(b.type === 'tool_result' && b.callId === 'look')) }
                            : m,
                        )
                        .filter((m) => !Array.isArray(m.content) || m.content.length > 0),
                    }
                  : request,
              ),
            }),
            says: /look/,
          },
        ]),
    ),
  ];
}
