/**
 * The AI SDK adapter's own contract, as cases of the bundled gate
 * (`contract:ai-sdk/…`): what a team gating its AI SDK agent relies on and no
 * bundled scenario reaches, because the bundled `--loop ai-sdk` run uses one
 * glue and agents that `aiSdkAgent` accepts.
 *
 * - `glue/<glue>/<case>`: each named glue against the claims the README makes
 *   of it — `notice` the only one that passes "failed turns add nothing" (5),
 *   "a cancelled turn's message is not lost" (9) and "side effects told" (14)
 *   together; `on-success` loses the refund a failed turn ran; `per-step` keeps
 *   the failed turn. Each row runs a small agent (a lookup, a STATEFUL refund)
 *   through `generateText` with that glue and names the invariants it must
 *   violate, exactly (outside probe 31, F6: a notice glue that named only the
 *   calls that returned passed everything shipped).
 * - `agent/<row>`: `aiSdkAgent` refusing what the gate cannot carry (a tool's
 *   input callbacks, `toModelOutput`, an async `needsApproval`), a `sideEffects`
 *   entry naming no tool, and accepting a plain agent; a tool's `needsApproval`
 *   (true, or a function of its input) asking the case's approver about exactly
 *   the calls the SDK would hold, in loopgate's loop and in the AI SDK's (before,
 *   it was refused: a team with a human in the loop could gate nothing).
 * - `loop/<row>`: what `aiSdkLoop` does with a team's own config (log-only
 *   expectations not judged, options refused by name, the timeout's clock).
 * - `tool-loop-agent/<row>`: an AI SDK 6 `ToolLoopAgent` gated as it ships —
 *   its instructions, stopWhen, prepareCall, onStepFinish and context run, its
 *   tools through the gate; what `toolLoopAgent` refuses; its loop running only
 *   its own agent.
 *
 * `ai` is an optional peer: without it every case is skipped, saying so.
 */
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { ToolSet } from 'ai';
import { z } from 'zod';
import { outcomeLabel, type Agent, type AgentFactory, type AnyToolDeclaration } from '../../kernel/index.ts';
import type { Case, CaseOutcome } from '../../harness/cases.ts';
import { statusFromChecks } from '../../harness/cases.ts';
import { checkInvariants } from '../../harness/invariants/index.ts';
import { checkPeerExpectations } from '../../harness/loop-port/peer-expectations.ts';
import { runPeerScenario } from '../../harness/loop-port/peer-host.ts';
import { runScenario } from '../../harness/second-host.ts';
import { turnOutcomes } from '../../harness/checks/expectations.ts';
import { parseScenario } from '../../harness/scenario/load.ts';
import type { CheckResult } from '../../report/results.ts';
import { installedVersion } from '../installed-version.ts';
import { approvalScenario, CANCELLED_WHILE_ASKED, refundStep, TWO_HELD_IN_ONE_STEP } from '../support/approval-scenarios.ts';
import { outsideItsLoopChecks } from '../support/outside-its-loop.ts';
import { aiSdkAgent } from './agent.ts';
import type { AiSdkGlueName } from './glue.ts';

const FILE = 'src/loops/ai-sdk/contract-cases.ts';
const NOT_INSTALLED = 'ai is not installed (an optional peer dependency of loopgate: npm install --save-dev ai)';

/** The invariants the glue claims are about. */
const CLAIMED = ['invariant-05-failed-turns-add-nothing', 'invariant-09-inbox-delivered-once', 'invariant-14-side-effects-told'] as const;

/** A shop agent: a lookup that changes nothing, and a refund that does. */
const shop: AgentFactory = () =>
  ({
    system: 'You help customers with their orders.',
    tools: [
      {
        name: 'lookup_order',
        description: 'Look an order up.',
        input: z.object({ order: z.string() }),
        sideEffect: 'NONE',
        run: ({ order }) => ({ order, total: 40 }),
      },
      {
        name: 'issue_refund',
        description: 'Refund an order.',
        input: z.object({ order: z.string() }),
        sideEffect: 'STATEFUL',
        run: ({ order }) => ({ refunded: order }),
      },
    ] as AnyToolDeclaration[],
  }) satisfies Agent;

/** A refund (its `tools:` entry, if any), then the provider refuses the key: generateText throws, the turn failed. */
const refundThenOutage = (name: string, tools = '') => `name: ${name}
${tools}provider:
  script:
    - tool_use: [{ id: r1, name: issue_refund, args: { order: ORD-1 } }]
    - error: { kind: auth, status: 401, message: invalid x-api-key }
    - reply: The refund of ORD-1 may have gone through; I am checking first.
inbox:
  - say: Refund ORD-1.
  - say: Did it go through?
expect:
  outcomes: ['failed{auth}', replied]
`;

/** The scenarios the claims are judged on. */
const SCENARIOS = {
  'refund-then-outage': refundThenOutage('a refund, then the provider refuses the key'),
  // The refund throws (the charge went out, the gateway timed out), then the same outage.
  'refund-throws-then-outage': refundThenOutage(
    'a refund that throws, then the provider refuses the key',
    `tools:
  - name: issue_refund
    behaviour: [{ throw: gateway timed out after the charge went out }]
`,
  ),
  // The user stops the turn while the model reads the refund's result.
  'cancel-after-refund': `name: a cancel while the model reads the refund
provider:
  script:
    - tool_use: [{ id: r1, name: issue_refund, args: { order: ORD-1 } }]
    - reply: never read
      latencyMs: 5000
    - reply: The refund of ORD-1 went through before you stopped me.
inbox:
  - say: Refund ORD-1.
  - cancel: user
    at: { request: 2 }
  - say: Did it go through?
expect:
  outcomes: ['cancelled{user}', replied]
`,
} as const;

type ScenarioId = keyof typeof SCENARIOS;
type Short = '5' | '9' | '14';

/** What each glue must violate on each scenario: the README's claims, as data. */
const CLAIMS: readonly { readonly glue: AiSdkGlueName; readonly scenario: ScenarioId; readonly violates: readonly Short[]; readonly why: string }[] = [
  { glue: 'notice', scenario: 'refund-then-outage', violates: [], why: 'the failed turn adds nothing, and the next turn is told the refund was done' },
  { glue: 'notice', scenario: 'refund-throws-then-outage', violates: [], why: 'a refund that threw may have charged: the next turn is told it too' },
  { glue: 'notice', scenario: 'cancel-after-refund', violates: [], why: 'the cancelled turn keeps its message and its refund' },
  { glue: 'on-success', scenario: 'refund-then-outage', violates: ['14'], why: 'the failed turn keeps nothing, and nothing tells the next turn of the refund' },
  { glue: 'on-success', scenario: 'refund-throws-then-outage', violates: ['14'], why: 'the refund that threw is never told' },
  { glue: 'on-success', scenario: 'cancel-after-refund', violates: ['9', '14'], why: 'the cancelled turn loses its message and its refund' },
  { glue: 'per-step', scenario: 'refund-then-outage', violates: ['5'], why: 'the failed turn keeps its finished steps' },
];

const invariantOf = (short: Short): string => CLAIMED.find((id) => id.startsWith(`invariant-${short.padStart(2, '0')}-`))!;

function skipped(): CaseOutcome {
  return { status: 'skipped', skipReason: NOT_INSTALLED, checks: [] };
}

function glueCase(claim: (typeof CLAIMS)[number]): Case {
  return {
    id: `contract:ai-sdk/glue/${claim.glue}/${claim.scenario}`,
    kind: 'contract',
    title: `aiSdkLoop({ glue: '${claim.glue}' }) on ${claim.scenario}: ${claim.why}`,
    file: FILE,
    run: async ({ seed }) => {
      if (installedVersion('ai') === 'not installed') return skipped();
      const { aiSdkLoop } = await import('./adapter.ts');
      const scenario = parseScenario(SCENARIOS[claim.scenario], `${FILE}#${claim.scenario}`);
      const run = await runPeerScenario(scenario, aiSdkLoop({ glue: claim.glue }), { seed, agents: AGENTS });
      const verdicts = await checkInvariants(run);
      const violated = CLAIMED.filter((id) => verdicts.some((v) => v.name === id && !v.passed));
      const expected = claim.violates.map(invariantOf);
      const checks: CheckResult[] = [];
      const outcomes = run.reports.map((r) => outcomeLabel(r.outcome));
      const wanted = scenario.expect.outcomes ?? [];
      const sameOutcomes = JSON.stringify(outcomes) === JSON.stringify(wanted);
      checks.push({
        name: 'outcomes',
        passed: sameOutcomes,
        message: `${sameOutcomes ? '' : `expected ${JSON.stringify(wanted)}, got `}${JSON.stringify(outcomes)}`,
      });
      if (run.thrown !== undefined)
        checks.push({ name: 'ran', passed: false, message: `the case threw: ${String((run.thrown as Error)?.message ?? run.thrown)}` });
      const same = JSON.stringify(violated) === JSON.stringify(expected);
      checks.push({
        name: 'claimed invariants',
        passed: same,
        message: same
          ? `violates ${expected.length === 0 ? 'none of 5, 9, 14' : claim.violates.join(', ')}, as claimed`
          : `expected it to violate ${JSON.stringify(expected)}, got ${JSON.stringify(violated)}: ${violated
              .map((id) => verdicts.find((v) => v.name === id)?.message)
              .filter(Boolean)
              .join('; ')}`,
        expected: JSON.stringify(expected),
        actual: JSON.stringify(violated),
      });
      return { status: statusFromChecks(checks), outcome: outcomes.join(', '), checks, virtualMs: run.virtualMs };
    },
  };
}

/** An AI SDK tool as `tool()` returns it (a plain object), with the settings of a row. */
const sdkTool = (extra: Record<string, unknown> = {}) => ({
  description: 'Refund an order.',
  inputSchema: z.object({ order: z.string() }),
  execute: async ({ order }: { order: string }) => {
    toolRuns.count++;
    return { refunded: order };
  },
  ...extra,
});
const toolRuns = { count: 0 };

const REFUSED_SETTING = (setting: string, what: string) =>
  `aiSdkAgent: tool issue_refund sets ${setting} (${what}), which loopgate cannot carry into the gate: remove it from the tool the gate builds`;

const ASYNC_APPROVAL =
  "aiSdkAgent: tool issue_refund's needsApproval is an async function: loopgate's policy decides each call at once and never awaits a promise; give a function that answers a boolean at once (({ order }) => order.startsWith('VIP')), or true";

/** aiSdkAgent's refusals: each row's options, and the line it is refused with (undefined: accepted). */
const AGENT_ROWS: readonly { readonly id: string; readonly title: string; readonly options: Parameters<typeof aiSdkAgent>[0]; readonly refused?: string }[] = [
  {
    id: 'accepted/plain-tools',
    title: 'tools with a description, a zod schema and execute, one declared STATEFUL, needsApproval false: accepted',
    options: { tools: () => ({ issue_refund: sdkTool({ needsApproval: false }), lookup_order: sdkTool() }), sideEffects: { issue_refund: 'STATEFUL' } },
  },
  {
    id: 'accepted/needs-approval-true',
    title: "a tool that always needs approval is accepted (its calls asked of the approver in loopgate's loop)",
    options: { tools: () => ({ issue_refund: sdkTool({ needsApproval: true }) }), sideEffects: { issue_refund: 'STATEFUL' } },
  },
  {
    id: 'accepted/needs-approval-by-its-arguments',
    title: 'a tool whose approval depends on its arguments, answered at once (a function returning a boolean), is accepted',
    options: { tools: () => ({ issue_refund: sdkTool({ needsApproval: ({ order }: { order: string }) => order.startsWith('VIP') }) }) },
  },
  {
    id: 'async-approval-refused',
    title: 'a tool whose approval is an async function is refused naming it (a policy decides each call at once)',
    options: { tools: () => ({ issue_refund: sdkTool({ needsApproval: async ({ order }: { order: string }) => order.startsWith('VIP') }) }) },
    refused: ASYNC_APPROVAL,
  },
  {
    // Outside probe 46: an async function transpiled (or one that hands its work to a promise) is a plain function
    // answering a promise: loopgate's policy asked about every call while the SDK awaited the answer — the loops differed.
    id: 'promise-answering-approval-refused',
    title: 'a tool whose approval is a plain function answering a promise (an async function transpiled) is refused naming it',
    options: {
      tools: () => ({
        issue_refund: sdkTool({ needsApproval: (input: { order?: string }) => Promise.resolve().then(() => input.order?.startsWith('VIP') === true) }),
      }),
    },
    refused:
      "aiSdkAgent: tool issue_refund's needsApproval answers a promise (an async function, maybe transpiled): loopgate's policy decides each call at once and never awaits a promise; give a function that answers a boolean at once (({ order }) => order.startsWith('VIP')), or true",
  },
  {
    id: 'to-model-output-refused',
    title: 'a tool that shows the model something else than its result is refused naming it',
    options: { tools: () => ({ issue_refund: sdkTool({ toModelOutput: () => ({ type: 'text', value: 'done' }) }) }) },
    refused: REFUSED_SETTING('toModelOutput', 'the model is shown what it returns instead of the result'),
  },
  {
    id: 'input-callback-refused',
    title: 'a tool called as its input streams in is refused naming it',
    options: { tools: () => ({ issue_refund: sdkTool({ onInputAvailable: () => undefined }) }) },
    refused: REFUSED_SETTING('onInputAvailable', 'called before execute'),
  },
  {
    id: 'side-effect-of-no-tool-refused',
    title: 'a sideEffects entry naming no tool (a typo leaves the refund NONE) is refused, listing the tools',
    options: { tools: () => ({ issue_refund: sdkTool() }), sideEffects: { issue_refnd: 'STATEFUL' } },
    refused: 'aiSdkAgent: sideEffects names issue_refnd, which is not one of the tools (issue_refund)',
  },
];

function agentCase(row: (typeof AGENT_ROWS)[number]): Case {
  return {
    id: `contract:ai-sdk/agent/${row.id}`,
    kind: 'contract',
    title: `aiSdkAgent: ${row.title}`,
    file: FILE,
    run: async () => {
      const before = toolRuns.count;
      let got: string | undefined;
      try {
        await aiSdkAgent(row.options)({} as Parameters<AgentFactory>[0]);
      } catch (error) {
        got = (error instanceof Error ? error.message : String(error)).split('\n')[0];
      }
      const expected = row.refused === undefined ? 'accepted' : `refused: ${row.refused}`;
      const actual = got === undefined ? 'accepted' : `refused: ${got}`;
      const ran = toolRuns.count - before;
      const checks: CheckResult[] = [
        { name: 'built', passed: expected === actual, message: expected === actual ? actual : `expected ${expected}; got ${actual}`, expected, actual },
        { name: 'runs nothing', passed: ran === 0, message: `${ran} tool run(s) while the agent was built` },
      ];
      return { status: statusFromChecks(checks), outcome: got === undefined ? 'accepted' : 'refused', checks };
    },
  };
}

/**
 * A tool's `needsApproval` (true, or answered at once from its arguments) is asked of the case's approver about
 * exactly the calls the SDK would hold, in both loops: in loopgate's as an ask rule of the agent's policy, in the
 * AI SDK's as the SDK holds them (the app answering its approval requests and calling `generateText` again, as
 * the SDK's docs show). A "no", or no approver, runs nothing. Before, every such agent was refused, and a team
 * with a human in the loop could gate nothing.
 */
const APPROVAL_CASE: Case = {
  id: 'contract:ai-sdk/agent/needs-approval-asks-the-approver',
  kind: 'contract',
  title: "aiSdkAgent: a tool's needsApproval asks the case's approver about the calls the SDK would hold, in loopgate's loop and in the AI SDK's",
  file: FILE,
  run: async ({ seed }) => {
    const runs = { count: 0 };
    const refund = (needsApproval: unknown): ToolSet[string] =>
      ({
        description: 'Refund an order.',
        inputSchema: z.object({ order: z.string() }),
        execute: async ({ order }: { order: string }) => {
          runs.count++;
          return { refunded: order };
        },
        needsApproval,
      }) as never;
    const registry = (needsApproval: unknown) => ({
      agents: new Map([['shop', aiSdkAgent({ tools: () => ({ issue_refund: refund(needsApproval) }), sideEffects: { issue_refund: 'STATEFUL' } })]]),
      defaultAgent: 'shop',
    });
    const vip = ({ order }: { order: string }) => order.startsWith('VIP');
    const asked = (approvals: readonly { tool: string; shown: { args: unknown }; answer: string }[]) =>
      approvals.map((a) => `${a.tool} ${JSON.stringify(a.shown.args)}: ${a.answer}`).join(', ') || 'none asked';
    // [name, needsApproval, the approver's answer ('': no approver), the orders refunded, asked, refunds that ran]
    const rows: readonly [string, unknown, string, readonly string[], string, number][] = [
      ['by its arguments, the approver says no', vip, 'deny', ['VIP-1', 'ORD-2'], 'issue_refund {"order":"VIP-1"}: deny', 1],
      ['by its arguments, the approver says yes', vip, 'approve', ['VIP-1', 'ORD-2'], 'issue_refund {"order":"VIP-1"}: approve', 2],
      ['always, the approver says no', true, 'deny', ['ORD-2'], 'issue_refund {"order":"ORD-2"}: deny', 0],
      ['always, no approver', true, '', ['ORD-2'], 'none asked', 0],
      ['false: never asked', false, 'deny', ['VIP-1'], 'none asked', 1],
    ];
    const checks: CheckResult[] = [];
    const row = (loop: string, name: string, got: string, expected: string) =>
      checks.push({ name: `${loop}, needsApproval ${name}`, passed: got === expected, message: got, expected, actual: got });
    for (const [name, needsApproval, answer, orders, want, ran] of rows) {
      const before = runs.count;
      const run = await runScenario(approvalScenario(FILE, answer, orders), { seed, agents: registry(needsApproval) });
      row(
        "loopgate's loop",
        name,
        `${asked(run.approvals)}; ${runs.count - before} refund(s) ran; ${turnOutcomes(run).join(', ')}`,
        `${want}; ${ran} refund(s) ran; replied`,
      );
    }
    if (installedVersion('ai') === 'not installed') return { status: statusFromChecks(checks), outcome: 'checked', checks };
    const { aiSdkLoop } = await import('./adapter.ts');
    for (const [name, needsApproval, answer, orders, want, ran] of rows) {
      const before = runs.count;
      const run = await runPeerScenario(approvalScenario(FILE, answer, orders), aiSdkLoop(), { seed, agents: registry(needsApproval) });
      const broken = (await checkInvariants(run)).filter((c) => !c.passed).map((c) => `${c.name}: ${c.message}`);
      const got = `${asked(run.approvals ?? [])}; ${runs.count - before} refund(s) ran; ${run.reports.map((r) => outcomeLabel(r.outcome)).join(', ')}; ${broken.join('; ') || 'every invariant holds'}`;
      row('the AI SDK loop', name, got, `${want}; ${ran} refund(s) ran; replied; every invariant holds`);
      if (name === 'always, the approver says no') {
        // What the model is told of the "no": the SDK's denied result, which the next request carries.
        const told = run.requests[1]?.messages
          .flatMap((m) => (m.role === 'user' && Array.isArray(m.content) ? m.content : []))
          .find((b) => b.type === 'tool_result');
        checks.push({
          name: 'the AI SDK loop tells the model the denied call did not run',
          passed: told?.type === 'tool_result' && told.status === 'failed' && told.callId === 'r1',
          message: JSON.stringify(told) ?? 'no result in the next request',
        });
      }
    }
    // Review of stop 53: a cancel while the approver decides ran the refund all the same (the SDK runs what the
    // answer approved before it sees the abort); each continuation had the whole step limit again; the per-step and
    // notice glues kept the held call twice after a failed continuation (and notice never named an approved refund).
    for (const [name, text, glue, want, excused, wantInLoopgate] of COMPOUND_APPROVALS) {
      const scenario = parseScenario(text, `${FILE}#approval-compound`);
      const inLoopgate = await runScenario(scenario, { seed, agents: registry(true) });
      const before = runs.count;
      const run = await runPeerScenario(scenario, aiSdkLoop({ glue }), { seed, agents: registry(true) });
      const ran = runs.count - before;
      const broken = (await checkInvariants(run)).filter((c) => !c.passed).map((c) => c.name);
      const got = `${run.reports.map((r) => outcomeLabel(r.outcome)).join(', ')}; ${ran} refund(s) ran; violates ${broken.join(', ') || 'none'}`;
      const expected = `${want}; violates ${excused.join(', ') || 'none'}`;
      row('the AI SDK loop', name, got, expected);
      const there = `${turnOutcomes(inLoopgate).join(', ')}; ${inLoopgate.executions.get('issue_refund') ?? 0} refund(s) ran`;
      row("loopgate's loop", name, there, wantInLoopgate ?? want);
    }
    return { status: statusFromChecks(checks), outcome: 'checked', checks };
  },
};

const APPROVED_THEN_OUTAGE = `name: an approved refund, then an outage
approver: { answers: [approve] }
provider:
  script:
    - tool_use: [{ id: r1, name: issue_refund, args: { order: ORD-2 } }]
    - error: { kind: auth }
    - reply: Anything else?
inbox:
  - say: Refund ORD-2.
  - say: Hello?
expect: {}
`;

/**
 * [name, scenario, glue, the outcomes and refunds run in both loops, the invariants the AI SDK loop violates — by
 * its glue's design, as a real app with that glue would]: approvals meeting a cancel, the step limit, a failed
 * continuation.
 */
const COMPOUND_APPROVALS: readonly [string, string, AiSdkGlueName, string, readonly string[], string?][] = [
  ['always, a cancel while the approver decides (it says yes after): nothing runs', CANCELLED_WHILE_ASKED, 'notice', 'cancelled{user}; 0 refund(s) ran', []],
  [
    'always, three approved refunds over a step limit of 2: the limit holds for the turn',
    `name: approved refunds past the step limit\nconfig: { maxSteps: 2 }\napprover: { answers: [approve] }\nprovider:\n  script:\n${refundStep('r1', 'ORD-1')}\n${refundStep('r2', 'ORD-2')}\n${refundStep('r3', 'ORD-3')}\n    - reply: Done.\ninbox:\n  - say: Refund ORD-1 to ORD-3.\nexpect: {}\n`,
    'notice',
    // A resolved turn is kept, as the SDK's docs keep it — the call still held at the limit too.
    'failed{max_steps}; 1 refund(s) ran',
    ['invariant-05-failed-turns-add-nothing', 'invariant-06-tool-pairing'],
  ],
  [
    // Outside probe 46: the SDK answers the approved calls first, then the denied ones; every provider takes a step's
    // results in any order (one each), so invariant 6 read from outside holds a peer to that, not to the call order.
    'always, two refunds in one step, the first denied and the second approved: the SDK answers the second first',
    TWO_HELD_IN_ONE_STEP,
    'on-success',
    'replied; 1 refund(s) ran',
    [],
  ],
  [
    'always, approved, then the model fails, then a next turn (glue notice): the refund is told',
    APPROVED_THEN_OUTAGE,
    'notice',
    'failed{auth}, replied; 1 refund(s) ran',
    [],
  ],
  [
    'always, approved, then the model fails, then a next turn (glue per-step): the held call is kept once, without the result of the refund the next run made',
    APPROVED_THEN_OUTAGE,
    'per-step',
    'failed{auth}, failed{internal}; 1 refund(s) ran',
    ['invariant-05-failed-turns-add-nothing', 'invariant-06-tool-pairing', 'invariant-14-side-effects-told'],
    'failed{auth}, replied; 1 refund(s) ran',
  ],
];

/** A lookup the team's own loop runs, answered after `latencyMs` of virtual time. */
const lookupScenario = (latencyMs: number, expect: string) =>
  parseScenario(
    `name: a lookup
provider:
  script:
    - tool_use: [{ id: l1, name: lookup_order, args: { order: ORD-1 } }]
      latencyMs: ${latencyMs}
    - reply: ORD-1 totals 40.
inbox:
  - say: What does ORD-1 total?
expect:
${expect}`,
    `${FILE}#lookup`,
  );

const AGENTS = { agents: new Map([['shop', shop]]), defaultAgent: 'shop' };

/** A model standing for production's: counts its calls and refuses each, so a case can show the gate never called it. */
function productionModel(): { readonly model: LanguageModelV3; readonly calls: () => number } {
  let called = 0;
  const refuse = () => {
    called += 1;
    return Promise.reject(new Error('the production model was called'));
  };
  return {
    model: { specificationVersion: 'v3', provider: 'production', modelId: 'gpt-prod', supportedUrls: {}, doGenerate: refuse, doStream: refuse },
    calls: () => called,
  };
}

/** A case of the `loop/` rows: what `aiSdkLoop` does with a team's own config. */
function loopCase(id: string, title: string, check: (adapter: typeof import('./adapter.ts'), seed: number) => Promise<CheckResult[]>): Case {
  return {
    id: `contract:ai-sdk/loop/${id}`,
    kind: 'contract',
    title: `aiSdkLoop: ${title}`,
    file: FILE,
    run: async ({ seed }) => {
      if (installedVersion('ai') === 'not installed') return skipped();
      const checks = await check(await import('./adapter.ts'), seed);
      return { status: statusFromChecks(checks), outcome: 'checked', checks };
    },
  };
}

/** The line a config's aiSdkLoop(...) is refused with, or undefined. */
function refusal(adapter: typeof import('./adapter.ts'), options: Record<string, unknown>): string | undefined {
  try {
    adapter.aiSdkLoop({ options: options as never });
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

const LOOP_ROWS: readonly Case[] = [
  // Outside probe 31, F1 and probe 32, F18: on the team's own loop, a requirement nothing can judge must not pass.
  loopCase(
    'log-only-expectations-not-judged',
    "on the team's own loop, toolResults and a predicate reading the event log fail as not judged",
    async (adapter, seed) => {
      const scenario = lookupScenario(
        0,
        '  outcome: replied\n  toolResults: [{ call: l1, status: failed, code: NOPE }]\n  assert: [{ assertion: no-tool-failed }]\n  turns:\n    0: { toolResults: [{ call: l1, status: failed }] }\n',
      );
      const run = await runPeerScenario(scenario, adapter.aiSdkLoop(), { seed, agents: AGENTS });
      const predicates = new Map([['no-tool-failed', (_reply: string, r: { readonly events: readonly unknown[] }) => r.events.length >= 0 || 'never']]);
      const checks = await checkPeerExpectations(run, scenario.expect, 'all', { predicates: predicates as never, judges: new Map() });
      const notJudged = checks.find((c) => c.name === 'not judged');
      const predicate = checks.find((c) => c.name.startsWith('assert[0]'));
      return [
        {
          name: "toolResults, and a turn's, fail the case as not judged",
          passed: notJudged?.passed === false && /^toolResults, turns\.0\.toolResults: ai-sdk keeps no event log/.test(notJudged.message ?? ''),
          message: notJudged ? `${notJudged.passed ? 'passed' : 'failed'}: ${notJudged.message}` : 'no "not judged" check',
        },
        {
          name: 'a predicate that reads run.events fails saying the loop keeps none',
          passed: predicate?.passed === false && /run\.events: ai-sdk keeps no event log/.test(predicate.message ?? ''),
          message: predicate ? `${predicate.passed ? 'passed' : 'failed'}: ${predicate.message}` : 'no predicate check',
        },
      ];
    },
  ),
  // Outside probe 31, F10: a key generateText would drop unsaid, or the harness would overwrite.
  loopCase(
    'options-that-are-none-refused',
    'a misspelled generateText option, or one the harness owns, is refused naming it; real ones are taken',
    async (adapter) => {
      const rows: readonly [Record<string, unknown>, RegExp | undefined][] = [
        [{ temperatur: 0 }, /^aiSdkLoop: options\.temperatur is not a generateText option of ai .* \(did you mean temperature\?\)/],
        [{ system: 'Be terse.' }, /^aiSdkLoop: options\.system is the harness's: give it to aiSdkAgent\(\{ system \}\)/],
        [{ temperature: 0, maxRetries: 1, providerOptions: {}, timeout: { totalMs: 5_000 }, stopWhen: [] }, undefined],
      ];
      return rows.map(([options, said]) => {
        const got = refusal(adapter, options);
        const passed = said === undefined ? got === undefined : got !== undefined && said.test(got);
        return { name: `options ${JSON.stringify(options)}`, passed, message: got === undefined ? 'taken' : `refused: ${got}` };
      });
    },
  ),
  // Outside probe 33, A3: a peer's tools were given the bare call id as their idempotency key, and the agent no
  // conversation: a ledger shared across conversations would drop two customers' refunds that got one call id.
  loopCase(
    'agent-and-tools-get-the-documented-ids',
    'the agent is built for the case conversation, and each tool call gets the key <conversation>/<tool>:<call id>',
    async (adapter, seed) => {
      const given: { conversation?: string; keys: string[] } = { keys: [] };
      const keyed: AgentFactory = (context) => {
        given.conversation = context.conversationId;
        return {
          system: 'You look orders up.',
          tools: [
            {
              name: 'lookup_order',
              description: 'Look an order up.',
              input: z.object({ order: z.string() }),
              sideEffect: 'NONE',
              run: ({ order }: { order: string }, ctx: { idempotencyKey: string }) => {
                given.keys.push(ctx.idempotencyKey);
                return { order, total: 40 };
              },
            },
          ] as AnyToolDeclaration[],
        };
      };
      await runPeerScenario(lookupScenario(0, '  outcome: replied\n'), adapter.aiSdkLoop(), {
        seed,
        agents: { agents: new Map([['keyed', keyed]]), defaultAgent: 'keyed' },
      });
      return [
        {
          name: 'the agent is built for the conversation "case"',
          passed: given.conversation === 'case',
          message: `conversationId ${JSON.stringify(given.conversation)}`,
        },
        {
          name: 'the tool gets the key case/lookup_order:l1',
          passed: JSON.stringify(given.keys) === '["case/lookup_order:l1"]',
          message: `keys ${JSON.stringify(given.keys)}`,
        },
      ];
    },
  ),
  // Outside probe 34, HIGH-2: a team's prepareStep choosing another model per step would have the gate call it.
  loopCase(
    'prepare-step-held-to-the-case-model',
    "a team's prepareStep that picks another model fails the case naming it, and that model is never called",
    async (adapter, seed) => {
      const { model: other, calls } = productionModel();
      let said = '(ran)';
      try {
        await runPeerScenario(lookupScenario(0, '  outcome: replied\n'), adapter.aiSdkLoop({ options: { prepareStep: () => ({ model: other }) } }), {
          seed,
          agents: AGENTS,
        });
      } catch (error) {
        said = (error as Error).message;
      }
      const called = calls();
      return [
        {
          name: 'refused naming the model and the hook, and never called',
          passed: called === 0 && /^aiSdkLoop: the agent chose another model than the case's \(production gpt-prod, by its prepareStep\)/.test(said),
          message: `${said}; the other model called ${called} time(s)`,
        },
      ];
    },
  ),
  // The team's generateText timeout on the case's virtual clock: a model slower than it ends the turn as in production.
  loopCase(
    'timeout-runs-on-the-case-clock',
    "a team's timeout of 5 s over a model answering after 60 s ends the turn failed{provider_unavailable}",
    async (adapter, seed) => {
      const run = await runPeerScenario(
        lookupScenario(60_000, '  outcome: failed{provider_unavailable}\n'),
        adapter.aiSdkLoop({ options: { timeout: 5_000 } }),
        {
          seed,
          agents: AGENTS,
        },
      );
      const report = run.reports[0];
      const label = report ? outcomeLabel(report.outcome) : '(no turn)';
      const ending = report?.ending.kind === 'threw' ? report.ending.errorClass : report?.ending.kind;
      return [
        { name: 'outcome', passed: label === 'failed{provider_unavailable}', message: `${label} (${ending})` },
        { name: 'the SDK timed out', passed: ending === 'TimeoutError', message: `ending ${ending}` },
        { name: 'after 5 s of virtual time, not 60', passed: run.virtualMs < 60_000, message: `virtual time ${run.virtualMs} ms` },
      ];
    },
  ),
];

/** A case of the `tool-loop-agent/` rows: an AI SDK 6 `ToolLoopAgent` under the gate as it ships. */
function toolLoopCase(
  id: string,
  title: string,
  check: (ai: typeof import('ai'), gate: typeof import('./tool-loop-agent.ts'), seed: number) => Promise<CheckResult[]>,
): Case {
  return {
    id: `contract:ai-sdk/tool-loop-agent/${id}`,
    kind: 'contract',
    title: `toolLoopAgent: ${title}`,
    file: FILE,
    run: async ({ seed }) => {
      if (installedVersion('ai') === 'not installed') return skipped();
      const checks = await check(await import('ai'), await import('./tool-loop-agent.ts'), seed);
      return { status: statusFromChecks(checks), outcome: 'checked', checks };
    },
  };
}

/** What a `ToolLoopAgent`'s own code saw while the gate ran it. */
interface Seen {
  contexts: unknown[];
  callIds: string[];
  steps: number;
  prepared: number;
}

/** A support agent on `ToolLoopAgent`: its instructions as a system message, two steps at most, its own context and hooks. */
function supportAgent(
  ai: typeof import('ai'),
  seen: Seen,
  model: Parameters<typeof ai.generateText>[0]['model'],
  told: { readonly instructions: unknown } = { instructions: SUPPORT },
  extra: Readonly<Record<string, unknown>> = {},
) {
  return new ai.ToolLoopAgent({
    model,
    instructions: told.instructions as string,
    stopWhen: ai.stepCountIs(2),
    experimental_context: { customer: 'ada@example.com' },
    prepareCall: (args) => {
      seen.prepared += 1;
      return args;
    },
    onStepFinish: () => {
      seen.steps += 1;
    },
    tools: {
      lookup_order: ai.tool({
        description: 'Look an order up.',
        inputSchema: z.object({ order: z.string() }),
        execute: ({ order }, { toolCallId, experimental_context }) => {
          seen.contexts.push(experimental_context);
          seen.callIds.push(toolCallId);
          return { order, total: 40 };
        },
      }),
    },
    ...extra,
  } as ConstructorParameters<typeof ai.ToolLoopAgent>[0]);
}

const SUPPORT = { role: 'system', content: 'You help customers with their orders.' };

/** One lookup, then a reply: the support agent's smallest turn. */
const oneLookupText = `name: one lookup
provider:
  script:
    - tool_use: [{ id: l1, name: lookup_order, args: { order: ORD-1 } }]
    - reply: ORD-1 totals 40.
inbox:
  - say: What does ORD-1 total?
expect:
  outcome: replied
`;
const oneLookup = () => parseScenario(oneLookupText, `${FILE}#one-lookup`);
const seenNothing = (): Seen => ({ contexts: [], callIds: [], steps: 0, prepared: 0 });

/** What toolLoopAgent(...) is refused with, or undefined. */
function toolLoopRefusal(gate: typeof import('./tool-loop-agent.ts'), make: (model: LanguageModelV3) => unknown, options?: unknown): string | undefined {
  try {
    gate.toolLoopAgent(make, options as never);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

const TOOL_LOOP_ROWS: readonly Case[] = [
  toolLoopCase(
    'runs-as-it-ships',
    "the agent's instructions, stopWhen, prepareCall, onStepFinish and context run; its tools run through the gate",
    async (ai, gate, seed) => {
      const seen = seenNothing();
      const support = gate.toolLoopAgent((model) => supportAgent(ai, seen, model));
      const scenario = parseScenario(
        `name: two lookups, and a reply the agent's stopWhen never asks for
provider:
  script:
    - tool_use: [{ id: l1, name: lookup_order, args: { order: ORD-1 } }]
    - tool_use: [{ id: l2, name: lookup_order, args: { order: ORD-2 } }]
    - reply: never asked for
inbox:
  - say: What do ORD-1 and ORD-2 total?
expect:
  outcome: failed{max_steps}
`,
        `${FILE}#tool-loop-agent`,
      );
      const agents = { agents: new Map([['support', support.agent]]), defaultAgent: 'support' };
      const run = await runPeerScenario(scenario, support.loop, { seed, agents });
      const report = run.reports[0];
      const systems = [...new Set(run.requests.map((r) => r.system))];
      const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
      return [
        {
          name: "the agent's stopWhen (2 steps), not the harness's step limit",
          passed: report?.steps === 2 && run.requests.length === 2 && outcomeLabel(report.outcome) === 'failed{max_steps}',
          message: `${report ? outcomeLabel(report.outcome) : '(no turn)'} after ${report?.steps} step(s), ${run.requests.length} request(s)`,
        },
        { name: "every request's system is the agent's instructions", passed: same(systems, [SUPPORT.content]), message: JSON.stringify(systems) },
        {
          name: "its tool ran through the gate (counted), with its context and loopgate's keys for the calls as their ids",
          passed:
            run.executions.get('lookup_order') === 2 &&
            same(seen.callIds, ['case/lookup_order:l1', 'case/lookup_order:l2']) &&
            same(seen.contexts, [{ customer: 'ada@example.com' }, { customer: 'ada@example.com' }]),
          message: `executions ${run.executions.get('lookup_order')}, call ids ${JSON.stringify(seen.callIds)}, contexts ${JSON.stringify(seen.contexts)}`,
        },
        {
          name: 'its prepareCall ran once a turn, its onStepFinish once a step',
          passed: seen.prepared === 1 && seen.steps === 2,
          message: `prepareCall ${seen.prepared}, onStepFinish ${seen.steps}`,
        },
      ];
    },
  ),
  toolLoopCase('loop-runs-only-its-agent', "a case of another agent is refused, not run with this agent's instructions", async (ai, gate, seed) => {
    const support = gate.toolLoopAgent((model) => supportAgent(ai, seenNothing(), model));
    // Another agent with the same tools and other instructions: the shop's tools, or the support agent's told otherwise.
    const imposter = gate.toolLoopAgent((model) => supportAgent(ai, seenNothing(), model, { instructions: 'You sell upgrades.' }));
    const said = async (agents: Parameters<typeof runPeerScenario>[2]['agents']) => {
      try {
        await runPeerScenario(lookupScenario(0, '  outcome: replied\n'), support.loop, { seed, ...(agents ? { agents } : {}) });
        return '(ran)';
      } catch (error) {
        return (error as Error).message;
      }
    };
    const other = await said(AGENTS);
    const told = await said({ agents: new Map([['imposter', imposter.agent]]), defaultAgent: 'imposter' });
    const refused =
      /^toolLoopAgent: the case's agent \(tools: (.*)\) was not built by this toolLoopAgent\(…\): give its loop only to configs whose agents are its \.agent$/;
    return [
      {
        name: "an agent with other tools: refused, naming the case's tools",
        passed: refused.exec(other)?.[1] === 'issue_refund, lookup_order',
        message: other,
      },
      { name: 'an agent with the same tools and other instructions: refused', passed: refused.exec(told)?.[1] === 'lookup_order', message: told },
    ];
  }),
  toolLoopCase('instructions-in-other-loops', 'the agent other loops run has the instructions as one system text', async (ai, gate) => {
    const rows: readonly [string, unknown, string | undefined][] = [
      ['a text', 'Be brief.', 'Be brief.'],
      ['a system message', SUPPORT, SUPPORT.content],
      ['a list of both', ['Be brief.', SUPPORT], `Be brief.\n\n${SUPPORT.content}`],
      ['none', undefined, undefined],
    ];
    const checks: CheckResult[] = [];
    for (const [name, instructions, system] of rows) {
      const agent = await gate.toolLoopAgent((model) => supportAgent(ai, seenNothing(), model, { instructions })).agent({} as Parameters<AgentFactory>[0]);
      checks.push({ name, passed: agent.system === system, message: `system ${JSON.stringify(agent.system)}` });
    }
    return checks;
  }),
  // Review of stop 47, HIGH: the tools came from one build of the agent, its hooks from another, so state the
  // build function shares between them (a verified flag, a cart) was split and the gate ran another agent.
  toolLoopCase(
    'tools-and-hooks-share-one-build',
    "the tools and the agent's hooks are one build per case: what a tool sets is what its prepareStep reads",
    async (ai, gate, seed) => {
      const hookSaw: number[] = [];
      const support = gate.toolLoopAgent((model) => {
        const state = { looked: 0 };
        return supportAgent(ai, seenNothing(), model, undefined, {
          tools: {
            lookup_order: ai.tool({
              description: 'Look an order up.',
              inputSchema: z.object({ order: z.string() }),
              execute: ({ order }) => {
                state.looked += 1;
                return { order, total: 40 };
              },
            }),
          },
          prepareStep: () => {
            hookSaw.push(state.looked);
            return undefined;
          },
        });
      });
      await runPeerScenario(oneLookup(), support.loop, { seed, agents: { agents: new Map([['support', support.agent]]), defaultAgent: 'support' } });
      return [
        {
          name: 'prepareStep saw the lookup its own build ran (0 before the first step, 1 before the second)',
          passed: JSON.stringify(hookSaw) === '[0,1]',
          message: `prepareStep saw ${JSON.stringify(hookSaw)}`,
        },
      ];
    },
  ),
  // Review of stop 47, MEDIUM: under other loops one context object (built at load) served every case.
  toolLoopCase('context-is-each-case-own', "each case's agent has its own build's context, not one shared by every case", async (ai, gate) => {
    const seen = seenNothing();
    const support = gate.toolLoopAgent((model) => supportAgent(ai, seen, model, undefined, { experimental_context: { cart: [] } }));
    for (const conversationId of ['c1', 'c2']) {
      const agent = await support.agent({ conversationId } as Parameters<AgentFactory>[0]);
      const lookup = agent.tools?.find((t) => t.name === 'lookup_order');
      const signal = new AbortController().signal;
      await lookup?.run({ order: 'ORD-1' } as never, { signal, callId: 'l1', attempt: 1, idempotencyKey: `${conversationId}/lookup_order:l1` } as never);
    }
    const [first, second] = seen.contexts;
    return [
      {
        name: 'two cases, two context objects',
        passed: seen.contexts.length === 2 && first !== second,
        message: `${seen.contexts.length} call(s); ${first === second ? 'one object shared' : 'two objects'}`,
      },
    ];
  }),
  // Review of stop 47, MEDIUM: the loop compared instructions and tool names with the case's, refusing a scenario's
  // own system prompt, a stub tool, and instructions that differ per build (a timestamp in them).
  toolLoopCase(
    'scenario-system-and-stub-tools-run',
    "a scenario's system prompt and stub tools, and instructions that differ per build, run: they are the case's, not another agent",
    async (ai, gate, seed) => {
      let builds = 0;
      const support = gate.toolLoopAgent((model) => supportAgent(ai, seenNothing(), model, { instructions: `Build ${++builds}: you help customers.` }));
      const agents = { agents: new Map([['support', support.agent]]), defaultAgent: 'support' };
      const checks: CheckResult[] = [];
      for (const [name, extra, system] of [
        ['instructions that differ per build', '', /^Build \d+: you help customers\.$/],
        ["a scenario's system prompt", 'system: Be terse.\n', /^Be terse\.$/],
        [
          'a stub tool the scenario adds',
          'tools:\n  - name: escalate\n    description: Hand the case to a person.\n    behaviour: [ok]\n',
          /^Build \d+: you help customers\.$/,
        ],
      ] as const) {
        let said = '(ran)';
        let run: Awaited<ReturnType<typeof runPeerScenario>> | undefined;
        try {
          run = await runPeerScenario(parseScenario(`${extra}${oneLookupText}`, `${FILE}#one-lookup`), support.loop, { seed, agents });
        } catch (error) {
          said = (error as Error).message;
        }
        const label = run?.reports[0] ? outcomeLabel(run.reports[0].outcome) : '(no turn)';
        const systems = [...new Set(run?.requests.map((r) => r.system) ?? [])];
        checks.push({
          name,
          passed: label === 'replied' && systems.length === 1 && system.test(String(systems[0])),
          message: `${said}; ${label}; system ${JSON.stringify(systems)}`,
        });
      }
      return checks;
    },
  ),
  // Review of stop 47, MEDIUM: generate() lays what it is given under the agent's prepareCall, which could replace
  // the gate's tools (run ungated) or its prepareStep (its model choice unchecked).
  toolLoopCase(
    'prepare-call-keeps-the-gate',
    "a prepareCall that brings its own tools or its own prepareStep is held to the gate's",
    async (ai, gate, seed) => {
      const { model: other, calls } = productionModel();
      let ungated = 0;
      const own = ai.tool({
        description: 'Look an order up.',
        inputSchema: z.object({ order: z.string() }),
        execute: ({ order }) => {
          ungated += 1;
          return { order, total: 40 };
        },
      });
      const checks: CheckResult[] = [];
      for (const [name, prepareCall, refused] of [
        [
          'its own prepareStep choosing production: refused before the request',
          (args: object) => ({ ...args, prepareStep: () => ({ model: other }) }),
          /^toolLoopAgent: the agent chose another model than the case's \(production gpt-prod, by its prepareStep\)/,
        ],
        [
          'its own tools: refused, naming the tool',
          (args: object) => ({ ...args, tools: { lookup_order: own } }),
          /^toolLoopAgent: the agent's prepareCall gave tools the gate does not run \(lookup_order\)/,
        ],
      ] as const) {
        const support = gate.toolLoopAgent((model) => supportAgent(ai, seenNothing(), model, undefined, { prepareCall }));
        let said = '(ran)';
        try {
          await runPeerScenario(oneLookup(), support.loop, { seed, agents: { agents: new Map([['support', support.agent]]), defaultAgent: 'support' } });
        } catch (error) {
          said = (error as Error).message;
        }
        checks.push({ name, passed: refused.test(said), message: said });
      }
      checks.push({
        name: 'neither the production model nor the ungated tool ran',
        passed: calls() === 0 && ungated === 0,
        message: `production model ${calls()} call(s), ungated tool ${ungated} run(s)`,
      });
      return checks;
    },
  ),
  // Review of stop 47, MEDIUM: a model wrapped with middleware (wrapLanguageModel) around the one given was refused.
  toolLoopCase(
    'wrapped-model-runs',
    'an agent whose model wraps the one it is given (wrapLanguageModel), or whose prepareStep does, runs with its middleware',
    async (ai, gate, seed) => {
      let transformed = 0;
      const middleware = {
        specificationVersion: 'v3' as const,
        transformParams: async ({ params }: { params: unknown }) => {
          transformed += 1;
          return params;
        },
      };
      const checks: CheckResult[] = [];
      for (const [name, make] of [
        ['wrapped at build', (model: LanguageModelV3) => supportAgent(ai, seenNothing(), ai.wrapLanguageModel({ model, middleware } as never))],
        [
          'wrapped by prepareStep',
          (model: LanguageModelV3) =>
            supportAgent(ai, seenNothing(), model, undefined, {
              prepareStep: ({ model: given }: { model: LanguageModelV3 }) => ({ model: ai.wrapLanguageModel({ model: given, middleware } as never) }),
            }),
        ],
      ] as const) {
        const before = transformed;
        let said = '(ran)';
        let label = '(no turn)';
        try {
          const support = gate.toolLoopAgent(make);
          const run = await runPeerScenario(oneLookup(), support.loop, {
            seed,
            agents: { agents: new Map([['support', support.agent]]), defaultAgent: 'support' },
          });
          label = run.reports[0] ? outcomeLabel(run.reports[0].outcome) : label;
        } catch (error) {
          said = (error as Error).message;
        }
        checks.push({
          name,
          passed: label === 'replied' && transformed - before === 2,
          message: `${said}; ${label}; the middleware ran ${transformed - before} time(s)`,
        });
      }
      return checks;
    },
  ),
  // Outside probe 34, HIGH-1: a context set per call (prepareCall, from the call options) never reached the tools.
  toolLoopCase(
    'context-from-prepare-call-reaches-tools',
    "the context the agent's prepareCall sets from its call options is what its tools read",
    async (ai, gate, seed) => {
      const seen = seenNothing();
      const support = gate.toolLoopAgent(
        (model) =>
          supportAgent(ai, seen, model, undefined, {
            callOptionsSchema: z.object({ tier: z.string() }),
            prepareCall: ({ options, ...rest }: { options: { tier: string } }) => ({ ...rest, experimental_context: { tier: options.tier } }),
          }),
        { callOptions: { tier: 'gold' } },
      );
      await runPeerScenario(oneLookup(), support.loop, { seed, agents: { agents: new Map([['support', support.agent]]), defaultAgent: 'support' } });
      return [
        {
          name: 'the tool read { tier: gold }',
          passed: JSON.stringify(seen.contexts) === '[{"tier":"gold"}]',
          message: `contexts ${JSON.stringify(seen.contexts)}`,
        },
      ];
    },
  ),
  // Outside probe 34, HIGH-2: an agent choosing another model per step or per call would have the gate call it.
  toolLoopCase(
    'another-model-refused',
    'a prepareStep or prepareCall that chooses another model fails the case, and that model is never called',
    async (ai, gate, seed) => {
      const checks: CheckResult[] = [];
      for (const [hook, extra] of [
        ['prepareStep', (other: LanguageModelV3) => ({ prepareStep: () => ({ model: other }) })],
        ['prepareCall', (other: LanguageModelV3) => ({ prepareCall: (args: object) => ({ ...args, model: other }) })],
      ] as const) {
        const { model: other, calls } = productionModel();
        const support = gate.toolLoopAgent((model) => supportAgent(ai, seenNothing(), model, undefined, extra(other)));
        let said = '(ran)';
        try {
          await runPeerScenario(oneLookup(), support.loop, { seed, agents: { agents: new Map([['support', support.agent]]), defaultAgent: 'support' } });
        } catch (error) {
          said = (error as Error).message;
        }
        const called = calls();
        checks.push({
          name: `${hook} choosing production's model: refused, naming it, and never called`,
          passed:
            called === 0 &&
            /^toolLoopAgent: the agent chose another model than the case's \(production gpt-prod, by its (prepareStep|prepareCall or call settings)\)/.test(
              said,
            ),
          message: `${said}; the other model called ${called} time(s)`,
        });
      }
      return checks;
    },
  ),
  toolLoopCase('what-it-refuses', 'a build function that ignores its model or builds no agent, and bad options, are refused naming them', async (ai, gate) => {
    const other = supportAgent(ai, seenNothing(), 'openai/gpt-5'); // a gateway model id: production's, never the case's
    const rows: readonly [string, (model: LanguageModelV3) => unknown, unknown, RegExp | undefined][] = [
      [
        'an agent on another model',
        () => other,
        undefined,
        /does not use the model it is given: build it with new ToolLoopAgent\(\{ model, … \}\) \(a wrapLanguageModel around it must keep its provider and modelId\)$/,
      ],
      ['no agent', () => ({ tools: {} }), undefined, /must return a ToolLoopAgent .*, got object$/],
      [
        'instructions that are no text',
        (model) => supportAgent(ai, seenNothing(), model, { instructions: 42 }),
        undefined,
        /^toolLoopAgent: instructions must be a text or a system message/,
      ],
      [
        'a misspelled option',
        (model) => supportAgent(ai, seenNothing(), model),
        { sideEffect: {} },
        /^toolLoopAgent: unknown option "sideEffect"; known: sideEffects, secrets, glue, callOptions, outsideItsLoop$/,
      ],
      [
        'outsideItsLoop other than instructions-and-tools',
        (model) => supportAgent(ai, seenNothing(), model),
        { outsideItsLoop: 'drop' },
        /^toolLoopAgent: outsideItsLoop must be 'instructions-and-tools', got "drop"$/,
      ],
      [
        'a glue that is no name or function',
        (model) => supportAgent(ai, seenNothing(), model),
        { glue: 3 },
        /^toolLoopAgent: glue must be one of .*, got number$/,
      ],
      [
        'a build function that throws',
        () => {
          throw new Error('no key');
        },
        undefined,
        /^toolLoopAgent: your build function threw: no key$/,
      ],
      [
        'call options its callOptionsSchema refuses',
        (model) => supportAgent(ai, seenNothing(), model, undefined, { callOptionsSchema: z.object({ tier: z.enum(['gold']) }) }),
        { callOptions: { tier: 'silver' } },
        /^toolLoopAgent: callOptions do not match the agent's callOptionsSchema: tier: /,
      ],
      [
        'no call options for an agent whose schema needs them',
        (model) => supportAgent(ai, seenNothing(), model, undefined, { callOptionsSchema: z.object({ tier: z.string() }) }),
        undefined,
        /^toolLoopAgent: callOptions do not match the agent's callOptionsSchema \(none given\): /,
      ],
      ['a plain agent', (model) => supportAgent(ai, seenNothing(), model), { sideEffects: { lookup_order: 'NONE' } }, undefined],
    ];
    return rows.map(([name, make, options, said]) => {
      const got = toolLoopRefusal(gate, make, options);
      const passed = said === undefined ? got === undefined : got !== undefined && said.test(got);
      return { name, passed, message: got === undefined ? 'taken' : `refused: ${got}` };
    });
  }),
  // Outside probe 41, F4: a body keying a payment on toolCallId saw the scenario's "r1" in every case and on every
  // host, so a sandbox that remembers keys took a second case's refund for the first's.
  toolLoopCase(
    'call-ids-are-each-cases-own',
    "a tool body's toolCallId is loopgate's key for the call: its case's own in the AI SDK loop and in loopgate's",
    async (ai, gate, seed) => {
      const seen = seenNothing();
      const support = gate.toolLoopAgent((model) => supportAgent(ai, seen, model));
      const agents = { agents: new Map([['support', support.agent]]), defaultAgent: 'support' };
      const outcomes: string[] = [];
      for (const conversation of ['case:first:loop', 'case:second:loop']) {
        const run = await runPeerScenario(oneLookup(), support.loop, { seed, agents, conversation });
        outcomes.push(run.reports.map((r) => outcomeLabel(r.outcome)).join(', '));
      }
      const agent = await support.agent({ conversationId: 'case:third:host' } as Parameters<AgentFactory>[0]);
      const lookup = agent.tools?.find((t) => t.name === 'lookup_order');
      await lookup?.run(
        { order: 'ORD-1' } as never,
        {
          signal: new AbortController().signal,
          callId: 'l1',
          attempt: 1,
          idempotencyKey: 'case:third:host/lookup_order:l1',
        } as never,
      );
      const want = ['case:first:loop/lookup_order:l1', 'case:second:loop/lookup_order:l1', 'case:third:host/lookup_order:l1'];
      return [
        { name: 'both cases replied', passed: outcomes.join(' · ') === 'replied · replied', message: outcomes.join(' · ') },
        {
          name: "the body saw each case's own key as its toolCallId, in both loops",
          passed: JSON.stringify(seen.callIds) === JSON.stringify(want),
          message: JSON.stringify(seen.callIds),
          expected: JSON.stringify(want),
          actual: JSON.stringify(seen.callIds),
        },
      ];
    },
  ),
  // Outside probe 41, F1 (HIGH), as for an Agents agent: served by AgentHost, what only the AI SDK's loop runs (a
  // prepareStep limiting the tools, a stopWhen, a forced toolChoice) silently did not run. Refused there, named,
  // unless the team says it serves the agent without it.
  toolLoopCase(
    'outside-its-loop-refuses-what-only-its-loop-runs',
    "loopgate's loop and host refuse an agent with prepareCall, prepareStep, stopWhen, activeTools, a forced toolChoice, an output or a repair function, naming them; the AI SDK loop runs it",
    async (ai, gate, seed) => {
      const lookup = ai.tool({ description: 'Look an order up.', inputSchema: z.object({ order: z.string() }), execute: async ({ order }) => ({ order }) });
      const plain = (model: unknown, extra: Record<string, unknown> = {}) =>
        new ai.ToolLoopAgent({ model, instructions: 'You help.', tools: { lookup_order: lookup }, ...extra } as ConstructorParameters<
          typeof ai.ToolLoopAgent
        >[0]);
      const rows: [string, Record<string, unknown>, RegExp][] = [
        ['prepareCall', { prepareCall: (args: unknown) => args }, /prepareCall \(a function\)/],
        ['prepareStep', { prepareStep: () => ({ activeTools: [] }) }, /prepareStep \(a function\)/],
        ['stopWhen', { stopWhen: ai.stepCountIs(2) }, /stopWhen \(a stop condition\)/],
        ['activeTools', { activeTools: ['lookup_order'] }, /activeTools \(\["lookup_order"\]\)/],
        ['a forced toolChoice', { toolChoice: 'required' }, /toolChoice \("required"\)/],
        ['an output', { output: ai.Output.object({ schema: z.object({ answer: z.string() }) }) }, /output \(a structured output\)/],
        ['a repair function', { experimental_repairToolCall: async () => null }, /experimental_repairToolCall \(a function\)/],
        // Review of stop 51: ai 6 still reads the older names; they were not refused.
        ['experimental_prepareStep', { experimental_prepareStep: () => ({ activeTools: [] }) }, /experimental_prepareStep \(a function\)/],
        ['experimental_activeTools', { experimental_activeTools: [] }, /experimental_activeTools \(\[\]\)/],
        [
          'experimental_output',
          { experimental_output: ai.Output.object({ schema: z.object({ answer: z.string() }) }) },
          /experimental_output \(a structured output\)/,
        ],
      ];
      const built = async (factory: AgentFactory, loop?: string) => {
        try {
          await factory({ clock: undefined as never, random: Math.random, conversationId: 'c1', ...(loop !== undefined ? { loop } : {}) });
          return 'built';
        } catch (error) {
          return (error as Error).message;
        }
      };
      const checks: CheckResult[] = [];
      for (const [what, extra, names] of rows) {
        const support = gate.toolLoopAgent((model) => plain(model, extra));
        const inLoopgate = await built(support.agent, 'loopgate');
        const inAiSdk = await built(support.agent, support.loop.agentLoop);
        const inspected = await built(support.agent);
        checks.push({
          name: `${what}: refused in loopgate's loop and host, naming it; built for its own AI SDK loop and for inspection`,
          passed: inLoopgate.startsWith('toolLoopAgent: ') && names.test(inLoopgate) && inAiSdk === 'built' && inspected === 'built',
          message: `loopgate: ${inLoopgate} · ai-sdk: ${inAiSdk} · inspection: ${inspected}`,
        });
      }
      const bare = await built(gate.toolLoopAgent((model) => plain(model)).agent, 'loopgate');
      // Review of stop 51: ai 6's Output.text() (the default, spelled out) has a name, no type: it was refused.
      const text = await built(gate.toolLoopAgent((model) => plain(model, { output: ai.Output.text() })).agent, 'loopgate');
      checks.push({ name: "an output of Output.text() (the default) is built in loopgate's loop", passed: text === 'built', message: text });
      const accepted = await built(
        gate.toolLoopAgent((model) => plain(model, { stopWhen: ai.stepCountIs(2) }), { outsideItsLoop: 'instructions-and-tools' }).agent,
        'loopgate',
      );
      checks.push({
        name: "a plain agent, and one whose team accepts running only its instructions and tools there, are built in loopgate's loop",
        passed: bare === 'built' && accepted === 'built',
        message: `plain: ${bare} · accepted: ${accepted}`,
      });
      // Every other path refuses it, naming stopWhen; its own loop runs it (support/outside-its-loop.ts).
      const stopping = gate.toolLoopAgent((model) => plain(model, { stopWhen: ai.stepCountIs(2) }));
      const { aiSdkLoop } = await import('./adapter.ts');
      checks.push(
        ...(await outsideItsLoopChecks({
          agent: stopping.agent,
          own: stopping.loop,
          generic: aiSdkLoop(),
          scenario: oneLookup,
          what: 'stopWhen',
          names: /stopWhen \(a stop condition\)/,
          seed,
        })),
      );
      return checks;
    },
  ),
];

/** Every `contract:ai-sdk/…` case, in a fixed order. */
export function aiSdkContractCases(): Case[] {
  return [...CLAIMS.map(glueCase), ...AGENT_ROWS.map(agentCase), APPROVAL_CASE, ...LOOP_ROWS, ...TOOL_LOOP_ROWS];
}
