/**
 * `openAiAgent`'s contract, as cases of the bundled gate
 * (`contract:openai-agents/agent/…`): an OpenAI Agents `new Agent({ … })`
 * gated as it ships — what a team relies on and no bundled scenario reaches,
 * because the bundled `--loop openai-agents` run builds its own Agent of the
 * config's tools.
 *
 * - `runs-as-it-ships`: its instructions (a function of the run context), its
 *   context, its tools' own `errorFunction` and the call ids run as in
 *   production; a body that threw reads `failed` with the words the model read;
 *   the tools are counted through the gate; every invariant holds.
 * - `scripted-failure-told-as-the-sdk-does`: a body the scenario fails is told
 *   with the SDK's default words, and reads `failed`.
 * - `in-loopgates-loop`: the same agent as loopgate's loop runs it — its
 *   tools' bodies through `invoke`, a throw hidden by `errorFunction` a failure.
 * - `refusals`: what `openAiAgent` refuses at load, each named.
 * - `loop-runs-only-its-agent`: a case of another agent is refused.
 *
 * `@openai/agents` is an optional peer: without it every case is skipped, saying so.
 */
import type { Model } from '@openai/agents';
import { z } from 'zod';
import type { AgentFactory, AnyToolDeclaration, Message } from '../../kernel/index.ts';
import { outcomeLabel } from '../../kernel/index.ts';
import type { Case } from '../../harness/cases.ts';
import { statusFromChecks } from '../../harness/cases.ts';
import { checkInvariants } from '../../harness/invariants/index.ts';
import { runPeerScenario } from '../../harness/loop-port/peer-host.ts';
import { parseScenario } from '../../harness/scenario/load.ts';
import type { CheckResult } from '../../report/results.ts';
import { installedVersion } from '../installed-version.ts';
import { approvalScenario, CANCELLED_WHILE_ASKED, refundStep, TWO_HELD_IN_ONE_STEP } from '../support/approval-scenarios.ts';
import { outsideItsLoopChecks } from '../support/outside-its-loop.ts';

const FILE = 'src/loops/openai-agents/contract-cases.ts';
const NOT_INSTALLED = '@openai/agents is not installed (an optional peer dependency of loopgate: npm install --save-dev @openai/agents)';

type Sdk = typeof import('@openai/agents');
type Gate = typeof import('./agent.ts');

function agentCase(id: string, title: string, check: (sdk: Sdk, gate: Gate, seed: number) => Promise<CheckResult[]>): Case {
  return {
    id: `contract:openai-agents/agent/${id}`,
    kind: 'contract',
    title: `openAiAgent: ${title}`,
    file: FILE,
    run: async ({ seed }) => {
      if (installedVersion('@openai/agents') === 'not installed') return { status: 'skipped', skipReason: NOT_INSTALLED, checks: [] };
      const checks = await check(await import('@openai/agents'), await import('./agent.ts'), seed);
      return { status: statusFromChecks(checks), outcome: 'checked', checks };
    },
  };
}

/** What the agent's own code saw while the gate ran it. */
interface Seen {
  contexts: unknown[];
  callIds: string[];
  instructions: number;
}

const CUSTOMER = { customer: 'ada@example.com' };

/** A support agent as a team writes it: instructions of its run context, a lookup, a refund whose errorFunction names the error. */
function supportAgent(sdk: Sdk, seen: Seen, model: Model, extra: Record<string, unknown> = {}) {
  return new sdk.Agent({
    name: 'support',
    model,
    instructions: (runContext) => {
      seen.instructions += 1;
      return `You help ${(runContext.context as typeof CUSTOMER | undefined)?.customer ?? 'someone'} with orders.`;
    },
    tools: [
      sdk.tool({
        name: 'lookup_order',
        description: 'Look an order up.',
        parameters: z.object({ order: z.string() }),
        execute: ({ order }, runContext, details) => {
          seen.contexts.push(runContext?.context);
          seen.callIds.push(details?.toolCall?.callId ?? '?');
          return { order, total: 40 };
        },
      }),
      sdk.tool({
        name: 'issue_refund',
        description: 'Refund an order.',
        parameters: z.object({ order: z.string() }),
        errorFunction: (_runContext, error) => `refund refused: ${(error as Error).message}`,
        execute: ({ order }) => {
          throw new Error(`card declined for ${order}`);
        },
      }),
    ],
    ...extra,
  });
}

const seenNothing = (): Seen => ({ contexts: [], callIds: [], instructions: 0 });

/** The support agent with its refund tool replaced by one built with `settings` (an approval policy, …). */
function withRefund(sdk: Sdk, seen: Seen, model: Model, settings: Record<string, unknown>) {
  const refund = sdk.tool({
    name: 'issue_refund',
    description: 'Refund.',
    parameters: z.object({ order: z.string() }),
    execute: () => 'ok',
    ...settings,
  } as never);
  return supportAgent(sdk, seen, model, { tools: [refund] });
}

/** What `work` settled as: `ok`, or the message it threw. */
const said = (work: () => Promise<unknown>, ok: string): Promise<string> =>
  work().then(
    () => ok,
    (error: unknown) => (error as Error)?.message ?? String(error),
  );

/** A lookup, a refund, a reply. */
const LOOKUP_THEN_REFUND = `name: a lookup, then a refund the card declines
provider:
  script:
    - tool_use: [{ id: l1, name: lookup_order, args: { order: ORD-1 } }]
    - tool_use: [{ id: r1, name: issue_refund, args: { order: ORD-1 } }]
    - reply: The card was declined.
inbox:
  - say: Refund ORD-1.
expect:
  outcome: replied
`;

/** The status and text of call `id`'s result in a list of messages. */
function resultOf(messages: readonly Message[] | undefined, id: string): string {
  for (const m of messages ?? [])
    if (m.role === 'user' && Array.isArray(m.content))
      for (const b of m.content)
        if (b.type === 'tool_result' && b.callId === id) return `${b.status}: ${typeof b.content === 'string' ? b.content : JSON.stringify(b.content)}`;
  return '(none)';
}

const agentsOf = (factory: AgentFactory) => ({ agents: new Map([['support', factory]]), defaultAgent: 'support' });

const ROWS: readonly Case[] = [
  agentCase('runs-as-it-ships', "its instructions, context, call ids and tools' errorFunction run; a body that threw reads failed", async (sdk, gate, seed) => {
    const seen = seenNothing();
    const support = gate.openAiAgent((model) => supportAgent(sdk, seen, model), { sideEffects: { issue_refund: 'STATEFUL' }, context: CUSTOMER });
    const run = await runPeerScenario(parseScenario(LOOKUP_THEN_REFUND, `${FILE}#runs-as-it-ships`), support.loop, { seed, agents: agentsOf(support.agent) });
    const systems = [...new Set(run.requests.map((r) => r.system))];
    const told = resultOf(run.requests.at(-1)?.messages, 'r1');
    const kept = resultOf(run.histories.at(-1), 'r1');
    const failedInvariants = (await checkInvariants(run)).filter((v) => !v.passed).map((v) => `${v.name}: ${v.message}`);
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    return [
      {
        name: 'outcome',
        passed: same(
          run.reports.map((r) => outcomeLabel(r.outcome)),
          ['replied'],
        ),
        message: run.reports.map((r) => outcomeLabel(r.outcome)).join(', '),
      },
      {
        name: 'every request holds the instructions the agent made of its context',
        passed: same(systems, ['You help ada@example.com with orders.']),
        message: JSON.stringify(systems),
      },
      {
        name: "the lookup ran through the gate (counted), with the run context and loopgate's key for its call as its call id",
        passed: run.executions.get('lookup_order') === 1 && same(seen.callIds, ['case/lookup_order:l1']) && same(seen.contexts, [CUSTOMER]),
        message: `executions ${run.executions.get('lookup_order')}, call ids ${JSON.stringify(seen.callIds)}, contexts ${JSON.stringify(seen.contexts)}`,
      },
      { name: "the model read the refund tool's own errorFunction", passed: told === 'failed: refund refused: card declined for ORD-1', message: told },
      { name: 'the history reads the refund failed (its body threw)', passed: kept === 'failed: refund refused: card declined for ORD-1', message: kept },
      { name: 'the refund ran once', passed: run.executions.get('issue_refund') === 1, message: `executions ${run.executions.get('issue_refund')}` },
      { name: 'every invariant holds', passed: failedInvariants.length === 0, message: failedInvariants.join(' · ') || 'all held' },
    ];
  }),
  agentCase(
    'scripted-failure-told-as-the-sdk-does',
    "a body the scenario fails reads failed; the model reads the SDK's default words",
    async (sdk, gate, seed) => {
      const seen = seenNothing();
      const support = gate.openAiAgent((model) => supportAgent(sdk, seen, model));
      const scenario = parseScenario(
        `name: the lookup service is down
tools:
  - name: lookup_order
    behaviour: [{ throw: lookup service down }]
provider:
  script:
    - tool_use: [{ id: l1, name: lookup_order, args: { order: ORD-1 } }]
    - reply: I could not look it up.
inbox:
  - say: Where is ORD-1?
expect:
  outcome: replied
`,
        `${FILE}#scripted-failure`,
      );
      const run = await runPeerScenario(scenario, support.loop, { seed, agents: agentsOf(support.agent) });
      const told = resultOf(run.requests.at(-1)?.messages, 'l1');
      const kept = resultOf(run.histories.at(-1), 'l1');
      return [
        { name: 'the model read the SDK default words', passed: told === `failed: ${gate.SDK_TOOL_ERROR}`, message: told },
        { name: 'the history reads failed', passed: kept === `failed: ${gate.SDK_TOOL_ERROR}`, message: kept },
        { name: "the agent's body never ran", passed: seen.callIds.length === 0, message: `body ran for ${JSON.stringify(seen.callIds)}` },
      ];
    },
  ),
  agentCase('in-loopgates-loop', "loopgate's loop runs the agent's tools through invoke: a throw its errorFunction hides is a failure", async (sdk, gate) => {
    const seen = seenNothing();
    const support = gate.openAiAgent((model) => supportAgent(sdk, seen, model), { sideEffects: { issue_refund: 'CRITICAL' }, context: CUSTOMER });
    const built = (await support.agent({} as never)) as { system?: string; tools: readonly AnyToolDeclaration[] };
    const tool = (name: string) => built.tools.find((t) => t.name === name);
    const ctx = (callId: string) => ({ callId, signal: new AbortController().signal, attempt: 1, idempotencyKey: `k/${callId}` });
    const looked = await tool('lookup_order')?.run({ order: 'ORD-1' } as never, ctx('l1') as never);
    let refund = '(returned)';
    try {
      await tool('issue_refund')?.run({ order: 'ORD-2' } as never, ctx('r1') as never);
    } catch (error) {
      refund = (error as Error).message;
    }
    // A body that opens a span of its own, and one slower than its timeout: loopgate's loop times it (its pipeline), not the SDK.
    const traced = gate.openAiAgent((model) =>
      supportAgent(sdk, seenNothing(), model, {
        tools: [
          sdk.tool({
            name: 'lookup_order',
            description: 'Look an order up.',
            parameters: z.object({ order: z.string() }),
            timeoutMs: 20,
            execute: () => sdk.withCustomSpan(async () => new Promise((done) => setTimeout(() => done('found, slowly'), 60)), { data: { name: 'lookup' } }),
          }),
        ],
      }),
    );
    const tracedTools = ((await traced.agent({} as never)) as { tools: readonly AnyToolDeclaration[] }).tools;
    let slow: unknown;
    try {
      slow = await tracedTools[0]?.run({ order: 'ORD-3' } as never, ctx('l2') as never);
    } catch (error) {
      slow = `threw: ${(error as Error).message}`;
    }
    return [
      {
        name: "a body opening its own span runs; the SDK's own timeout does not answer for loopgate's loop",
        passed: slow === 'found, slowly' && tracedTools[0]?.timeoutMs === 20,
        message: `${JSON.stringify(slow)}, timeoutMs ${tracedTools[0]?.timeoutMs}`,
      },
      {
        name: 'the system text is the instructions of the context',
        passed: built.system === 'You help ada@example.com with orders.',
        message: String(built.system),
      },
      {
        name: 'the side-effect levels given',
        passed: tool('issue_refund')?.sideEffect === 'CRITICAL' && tool('lookup_order')?.sideEffect === 'NONE',
        message: built.tools.map((t) => `${t.name} ${t.sideEffect}`).join(', '),
      },
      { name: 'the input schema validates', passed: tool('lookup_order')?.input.safeParse({ order: 7 }).success === false, message: 'a number order' },
      {
        name: "the lookup body ran with the context, and loopgate's key for the call as its call id",
        passed:
          JSON.stringify(looked) === '{"order":"ORD-1","total":40}' &&
          JSON.stringify(seen.contexts) === JSON.stringify([CUSTOMER]) &&
          seen.callIds[0] === 'k/l1',
        message: `${JSON.stringify(looked)}, ${JSON.stringify(seen.contexts)}, ${JSON.stringify(seen.callIds)}`,
      },
      {
        name: 'the refund throws, naming what the model is told',
        passed: refund === 'issue_refund threw; the model was told: refund refused: card declined for ORD-2',
        message: refund,
      },
    ];
  }),
  agentCase('unhandled-errors-end-the-run', 'a tool with errorFunction: null ends the run when its body throws, as the SDK does', async (sdk, gate, seed) => {
    const strict = (model: Model) =>
      supportAgent(sdk, seenNothing(), model, {
        tools: [
          sdk.tool({
            name: 'issue_refund',
            description: 'Refund an order.',
            parameters: z.object({ order: z.string() }),
            errorFunction: null,
            execute: () => {
              throw new Error('card declined');
            },
          }),
        ],
      });
    const support = gate.openAiAgent(strict, { sideEffects: { issue_refund: 'STATEFUL' } });
    const scenario = parseScenario(
      `name: the refund throws and nothing handles it
provider:
  script:
    - tool_use: [{ id: r1, name: issue_refund, args: { order: ORD-1 } }]
    - reply: never asked for
inbox:
  - say: Refund ORD-1.
expect:
  outcome: failed{internal}
`,
      `${FILE}#unhandled`,
    );
    const run = await runPeerScenario(scenario, support.loop, { seed, agents: agentsOf(support.agent) });
    const report = run.reports[0];
    const ending = report?.ending.kind === 'threw' ? report.ending.errorClass : report?.ending.kind;
    return [
      {
        name: 'the run threw, as the SDK run does',
        passed: report?.ending.kind === 'threw' && report.outcome.kind !== 'replied',
        message: `${report ? outcomeLabel(report.outcome) : '(no turn)'} (${ending})`,
      },
      { name: 'one model request: the model was never told the error', passed: run.requests.length === 1, message: `${run.requests.length} request(s)` },
    ];
  }),
  agentCase(
    'arguments-the-sdk-takes-run-through-the-gate',
    'arguments zod would refuse but the SDK takes, even text that is not JSON, run through the gate',
    async (sdk, gate, seed) => {
      const bodies: unknown[] = [];
      const loose = (model: Model) =>
        supportAgent(sdk, seenNothing(), model, {
          tools: [
            sdk.tool({
              name: 'issue_refund',
              description: 'Refund an order.',
              strict: false,
              parameters: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'], additionalProperties: true } as never,
              execute: (args: unknown) => {
                bodies.push(args);
                return 'refunded';
              },
            }),
          ],
        });
      const support = gate.openAiAgent(loose, { sideEffects: { issue_refund: 'CRITICAL' } });
      const scenario = parseScenario(
        `name: an order number, not a text; then arguments that are not JSON
tools:
  - name: issue_refund
    behaviour: [{ throw: payments down }]
provider:
  script:
    - tool_use: [{ id: r1, name: issue_refund, args: { order: 7 } }]
    - tool_use: [{ id: r2, name: issue_refund, args: '{"order": "ORD-7",}' }]
    - reply: Nothing was refunded.
inbox:
  - say: Refund order 7.
expect:
  outcome: replied
`,
        `${FILE}#loose`,
      );
      const run = await runPeerScenario(scenario, support.loop, { seed, agents: agentsOf(support.agent) });
      const kept = [resultOf(run.histories.at(-1), 'r1'), resultOf(run.histories.at(-1), 'r2')];
      return [
        { name: 'the scripted failure applied: the body never ran', passed: bodies.length === 0, message: `body ran with ${JSON.stringify(bodies)}` },
        {
          name: 'the gate counted both calls (the SDK hands a non-strict tool even text that is not JSON)',
          passed: run.executions.get('issue_refund') === 2,
          message: `executions ${run.executions.get('issue_refund')}`,
        },
        { name: 'both calls read failed', passed: kept.every((k) => k.startsWith('failed:')), message: kept.join(' · ') },
      ];
    },
  ),
  agentCase('context-per-case', 'a context given as a function is made once per case', async (sdk, gate, seed) => {
    let made = 0;
    const seen = seenNothing();
    const asked: unknown[] = [];
    const support = gate.openAiAgent((model) => supportAgent(sdk, seen, model), {
      context: (of: unknown) => {
        asked.push(of);
        return { customer: `case-${++made}@example.com` };
      },
    });
    for (const round of [1, 2])
      await runPeerScenario(parseScenario(LOOKUP_THEN_REFUND, `${FILE}#context-${round}`), support.loop, { seed, agents: agentsOf(support.agent) });
    return [
      {
        name: 'each case read its own context',
        passed: JSON.stringify(seen.contexts) === JSON.stringify([{ customer: 'case-1@example.com' }, { customer: 'case-2@example.com' }]),
        message: JSON.stringify(seen.contexts),
      },
      {
        name: "told each case's conversation",
        passed: asked.length === 2 && asked.every((a) => typeof (a as { conversationId?: unknown }).conversationId === 'string'),
        message: JSON.stringify(asked),
      },
    ];
  }),
  agentCase('refusals', 'what openAiAgent refuses at load, each named', async (sdk, gate) => {
    const seen = seenNothing();
    const hosted = sdk.webSearchTool();
    const rows: readonly [string, unknown, unknown, RegExp | undefined][] = [
      ['not a function', 'support', undefined, /^openAiAgent: the first argument is the function that builds your agent/],
      ['returns no Agent', () => ({ name: 'x' }), undefined, /^openAiAgent: your build function must return an Agent .*got object$/],
      [
        'throws',
        () => {
          throw new Error('no key');
        },
        undefined,
        /^openAiAgent: your build function threw: no key$/,
      ],
      [
        'a model of its own',
        () => supportAgent(sdk, seen, 'gpt-5' as never),
        undefined,
        /^openAiAgent: .* does not use the model it is given \(its model is "gpt-5"\)/,
      ],
      [
        'handoffs',
        (m: Model) => supportAgent(sdk, seen, m, { handoffs: [new sdk.Agent({ name: 'other' })] }),
        undefined,
        /^openAiAgent: the agent has handoffs/,
      ],
      [
        'a hosted tool',
        (m: Model) => supportAgent(sdk, seen, m, { tools: [hosted] }),
        undefined,
        /^openAiAgent: the agent has tools the gate cannot run \(web_search/,
      ],
      ['an unknown option', (m: Model) => supportAgent(sdk, seen, m), { glue: 'notice' }, /^openAiAgent: unknown option "glue"/],
      [
        'outsideItsLoop other than instructions-and-tools',
        (m: Model) => supportAgent(sdk, seen, m),
        { outsideItsLoop: true },
        /^openAiAgent: outsideItsLoop must be 'instructions-and-tools', got true$/,
      ],
      [
        'sideEffects of no tool',
        (m: Model) => supportAgent(sdk, seen, m),
        { sideEffects: { refund: 'STATEFUL' } },
        /^openAiAgent: sideEffects names refund, which is not one of the agent's tools \(lookup_order, issue_refund\)$/,
      ],
      [
        'a level that is none',
        (m: Model) => supportAgent(sdk, seen, m),
        { sideEffects: { issue_refund: 'WRITE' } },
        /^openAiAgent: sideEffects\.issue_refund must be NONE/,
      ],
      ['maxTurns of 0', (m: Model) => supportAgent(sdk, seen, m), { maxTurns: 0 }, /^openAiAgent: maxTurns must be a whole number of at least 1, got 0$/],
      ['a session that is no function', (m: Model) => supportAgent(sdk, seen, m), { session: {} }, /^openAiAgent: session must be a function/],
      [
        "a build that throws holding the agent's secret: said without it",
        () => {
          throw new Error('vault refused key sk_gate_Q8wZ3kT5pL0aR7yV');
        },
        { secrets: ['sk_gate_Q8wZ3kT5pL0aR7yV'] },
        /^openAiAgent: your build function threw: vault refused key \[REDACTED\]$/,
      ],
      [
        'a build that returns a Promise',
        async (m: Model) => supportAgent(sdk, seen, m),
        undefined,
        /^openAiAgent: your build function returned a Promise: build the Agent synchronously/,
      ],
      [
        // An agent run as a tool calls its own tools inside its nested run, out of the gate's and the host's sight: what
        // the call may do is the team's to say (left NONE, a refund inside it was never told after a failed turn).
        'an agent run as a tool with no sideEffects entry',
        (m: Model) =>
          supportAgent(sdk, seen, m, { tools: [new sdk.Agent({ name: 'billing', model: m }).asTool({ toolName: 'billing', toolDescription: 'Billing.' })] }),
        undefined,
        /^openAiAgent: tool billing runs an agent as a tool \(asTool\): the tools it calls run inside it, out of loopgate's sight — declare sideEffects\.billing, the most it may do \(NONE if it only reads\)$/,
      ],
      [
        'an agent run as a tool, its level declared',
        (m: Model) =>
          supportAgent(sdk, seen, m, { tools: [new sdk.Agent({ name: 'billing', model: m }).asTool({ toolName: 'billing', toolDescription: 'Billing.' })] }),
        { sideEffects: { billing: 'STATEFUL' } },
        undefined,
      ],
      ['a plain agent', (m: Model) => supportAgent(sdk, seen, m), { sideEffects: { issue_refund: 'STATEFUL' }, maxTurns: 4 }, undefined],
    ];
    return rows.map(([name, make, options, said]) => {
      let got: string | undefined;
      try {
        gate.openAiAgent(make as never, options as never);
      } catch (error) {
        got = (error as Error).message;
      }
      const passed = said === undefined ? got === undefined : got !== undefined && said.test(got);
      return { name, passed, message: got === undefined ? 'taken' : `refused: ${got}` };
    });
  }),
  agentCase(
    'approval-refused',
    'a tool that holds its calls for approval, or an Agent reused across builds, is refused when the agent is built',
    async (sdk, gate) => {
      const seen = seenNothing();
      const rows: readonly [string, (m: Model) => unknown, RegExp | undefined][] = [
        ['always', (m) => withRefund(sdk, seen, m, { needsApproval: true }), /^openAiAgent: tool issue_refund needs approval \(needsApproval\)/],
        [
          'by its arguments',
          (m) => withRefund(sdk, seen, m, { needsApproval: async (_c: unknown, input: { order?: string }) => input.order !== 'free' }),
          /^openAiAgent: tool issue_refund needs approval \(needsApproval\)/,
        ],
        ['never', (m) => supportAgent(sdk, seen, m), undefined],
        [
          'the same Agent from every build (made once, returned again): the case is refused naming it',
          (() => {
            let once: unknown;
            return (m: Model) => (once ??= supportAgent(sdk, seen, m));
          })(),
          /^openAiAgent: the agent your build function returns does not use the model it is given \(its model is another Model: .*an earlier build's/,
        ],
      ];
      const checks: CheckResult[] = [];
      for (const [name, make, said] of rows) {
        let got: string | undefined;
        try {
          await gate.openAiAgent(make as never).agent({ loop: 'loopgate' } as never);
        } catch (error) {
          got = (error as Error).message;
        }
        checks.push({ name, passed: said === undefined ? got === undefined : got !== undefined && said.test(got), message: got ?? 'taken' });
      }
      return checks;
    },
  ),
  // A team whose refund waits for a human (needsApproval) could gate nothing: every such agent was refused.
  agentCase(
    'approval-asks-the-approver',
    "a tool that holds its calls for approval is put to the case's approver on the agent's own loop: a no, or no approver, runs nothing; loopgate's loop refuses it naming its own",
    async (sdk, gate, seed) => {
      const seen = seenNothing();
      const vip = async (_c: unknown, input: { order?: string }) => input.order?.startsWith('VIP') === true;
      const scenario = (answers: string, orders: readonly string[]) => approvalScenario(FILE, answers, orders);
      // [name, needsApproval, the approver's answer ('': no approver), the orders refunded, asked, refunds that ran]
      const rows: readonly [string, unknown, string, readonly string[], string, number][] = [
        ['always, the approver says no', true, 'deny', ['ORD-2'], 'issue_refund {"order":"ORD-2"}: deny', 0],
        ['always, the approver says yes', true, 'approve', ['ORD-2'], 'issue_refund {"order":"ORD-2"}: approve', 1],
        ['always, no approver', true, '', ['ORD-2'], 'none asked', 0],
        ['by its arguments, the approver says no', vip, 'deny', ['VIP-1', 'ORD-2'], 'issue_refund {"order":"VIP-1"}: deny', 1],
      ];
      const checks: CheckResult[] = [];
      for (const [name, needsApproval, answer, orders, want, ran] of rows) {
        const support = gate.openAiAgent((m) => withRefund(sdk, seen, m, { needsApproval }), { sideEffects: { issue_refund: 'STATEFUL' } });
        const agents = { agents: new Map([['support', support.agent]]), defaultAgent: 'support' };
        const run = await runPeerScenario(scenario(answer, orders), support.loop, { seed, agents });
        const asked = (run.approvals ?? []).map((a) => `${a.tool} ${JSON.stringify(a.shown.args)}: ${a.answer}`).join(', ') || 'none asked';
        const broken = (await checkInvariants(run)).filter((c) => !c.passed).map((c) => `${c.name}: ${c.message}`);
        const got = `${asked}; ${run.executions.get('issue_refund') ?? 0} refund(s) ran; ${run.reports.map((r) => outcomeLabel(r.outcome)).join(', ')}; ${broken.join('; ') || 'every invariant holds'}`;
        const expected = `${want}; ${ran} refund(s) ran; replied; every invariant holds`;
        checks.push({ name: `its own loop, needsApproval ${name}`, passed: got === expected, message: got, expected, actual: got });
      }
      // The step limit holds for the whole turn, over the runs resumed after each approval (as the AI SDK's row).
      {
        const support = gate.openAiAgent((m) => withRefund(sdk, seen, m, { needsApproval: true }), { sideEffects: { issue_refund: 'STATEFUL' } });
        const agents = { agents: new Map([['support', support.agent]]), defaultAgent: 'support' };
        const text = `name: approved refunds past the step limit\nconfig: { maxSteps: 2 }\napprover: { answers: [approve] }\nprovider:\n  script:\n${refundStep('r1', 'ORD-1')}\n${refundStep('r2', 'ORD-2')}\n${refundStep('r3', 'ORD-3')}\n    - reply: Done.\ninbox:\n  - say: Refund ORD-1 to ORD-3.\nexpect: {}\n`;
        const run = await runPeerScenario(parseScenario(text, `${FILE}#approval-limit`), support.loop, { seed, agents });
        const got = `${run.reports.map((r) => outcomeLabel(r.outcome)).join(', ')}; ${run.executions.get('issue_refund') ?? 0} refund(s) ran; ${run.requests.length} model request(s)`;
        const expected = 'failed{max_steps}; 2 refund(s) ran; 2 model request(s)';
        checks.push({
          name: 'its own loop, three approved refunds over a step limit of 2: the limit holds for the turn',
          passed: got === expected,
          message: got,
          expected,
          actual: got,
        });
      }
      // Outside probe 46: two calls held in one step, answered no then yes — each answered once, in whatever order.
      {
        const support = gate.openAiAgent((m) => withRefund(sdk, seen, m, { needsApproval: true }), { sideEffects: { issue_refund: 'STATEFUL' } });
        const agents = { agents: new Map([['support', support.agent]]), defaultAgent: 'support' };
        const run = await runPeerScenario(parseScenario(TWO_HELD_IN_ONE_STEP, `${FILE}#two-held`), support.loop, { seed, agents });
        const asked = (run.approvals ?? []).map((a) => `${a.tool} ${JSON.stringify(a.shown.args)}: ${a.answer}`).join(', ') || 'none asked';
        const broken = (await checkInvariants(run)).filter((c) => !c.passed).map((c) => `${c.name}: ${c.message}`);
        const got = `${asked}; ${run.executions.get('issue_refund') ?? 0} refund(s) ran; ${run.reports.map((r) => outcomeLabel(r.outcome)).join(', ')}; ${broken.join('; ') || 'every invariant holds'}`;
        const expected = 'issue_refund {"order":"ORD-1"}: deny, issue_refund {"order":"ORD-2"}: approve; 1 refund(s) ran; replied; every invariant holds';
        checks.push({ name: 'its own loop, two calls held in one step, no then yes', passed: got === expected, message: got, expected, actual: got });
      }
      // Review of stop 53 (as for the AI SDK): a cancel while the approver decides must run nothing, whatever it says after.
      {
        const support = gate.openAiAgent((m) => withRefund(sdk, seen, m, { needsApproval: true }), { sideEffects: { issue_refund: 'STATEFUL' } });
        const agents = { agents: new Map([['support', support.agent]]), defaultAgent: 'support' };
        const cancelled = parseScenario(CANCELLED_WHILE_ASKED, `${FILE}#approval-cancelled`);
        const run = await runPeerScenario(cancelled, support.loop, { seed, agents });
        const got = `${run.reports.map((r) => outcomeLabel(r.outcome)).join(', ')}; ${run.executions.get('issue_refund') ?? 0} refund(s) ran`;
        checks.push({
          name: 'its own loop, a cancel while the approver decides (it says yes after): nothing runs',
          passed: got === 'cancelled{user}; 0 refund(s) ran',
          message: got,
        });
      }
      // Outside probe 46, F1 (HIGH): built without being told its loop (as a config is checked when it loads), the
      // agent was refused even for its own loop — marked instead, and refused where it would run unasked.
      {
        const support = gate.openAiAgent((m) => withRefund(sdk, seen, m, { needsApproval: true }));
        const unsaid = await said(async () => support.agent({} as never), 'built');
        checks.push({
          name: 'built without its loop (a config being checked): built, and marked for its own loop',
          passed: unsaid === 'built',
          message: unsaid,
        });
      }
      // Outside probe 46, F2 (HIGH): a needsApproval that decides by the call's arguments answered "no" for no
      // arguments, so loopgate's loop took the agent and ran a held refund unasked.
      {
        const byAmount = gate.openAiAgent((m) =>
          withRefund(sdk, seen, m, { needsApproval: async (_c: unknown, input: { order?: string }) => input.order !== 'free' && input.order !== undefined }),
        );
        const inLoopgate = await said(async () => byAmount.agent({ loop: 'loopgate' } as never), 'built');
        checks.push({
          name: "a needsApproval deciding by the call's arguments: loopgate's loop refuses it too",
          passed: /^openAiAgent: tool issue_refund needs approval \(needsApproval\)/.test(inLoopgate),
          message: inLoopgate,
        });
      }
      const support = gate.openAiAgent((m) => withRefund(sdk, seen, m, { needsApproval: true }));
      const inLoopgate = await said(async () => support.agent({ loop: 'loopgate' } as never), 'built');
      checks.push({
        name: "loopgate's loop refuses it, naming the tool and the agent's own loop",
        passed: /^openAiAgent: tool issue_refund needs approval \(needsApproval\).*loop: openAiAgent\(…\)\.loop/.test(inLoopgate),
        message: inLoopgate,
      });
      return checks;
    },
  ),
  agentCase('no-model-by-name', 'an agent run as a tool with a model of its own asks no real provider: the case fails naming it', async (sdk, gate, seed) => {
    const triage = new sdk.Agent({ name: 'triage', instructions: 'Say which team handles it.', model: 'gpt-4.1' });
    const support = gate.openAiAgent(
      (model) =>
        supportAgent(sdk, seenNothing(), model, { tools: [triage.asTool({ toolName: 'triage', toolDescription: 'Ask triage which team handles it.' })] }),
      { sideEffects: { triage: 'NONE' } },
    );
    const scenario = parseScenario(
      `name: triage asked
provider:
  script:
    - tool_use: [{ id: t1, name: triage, args: { input: refund for ORD-1 } }]
    - reply: Billing handles it.
inbox:
  - say: Who handles refunds?
expect:
  outcome: replied
`,
      `${FILE}#no-model-by-name`,
    );
    let said = '(ran)';
    try {
      await runPeerScenario(scenario, support.loop, { seed, agents: agentsOf(support.agent) });
    } catch (error) {
      said = (error as Error).message;
    }
    return [
      {
        name: 'refused, naming the model asked for',
        passed: said.startsWith('openAiAgent: an agent of this case asked for the model "gpt-4.1" by name'),
        message: said,
      },
    ];
  }),
  agentCase(
    'stop-at-a-tool',
    "toolUseBehavior stopAtToolNames: the tool's output is the reply, as the SDK gives it; every invariant holds",
    async (sdk, gate, seed) => {
      const support = gate.openAiAgent((model) => supportAgent(sdk, seenNothing(), model, { toolUseBehavior: { stopAtToolNames: ['lookup_order'] } }));
      const scenario = parseScenario(
        `name: the lookup's output is the answer
provider:
  script:
    - tool_use: [{ id: l1, name: lookup_order, args: { order: ORD-1 } }]
    - reply: never asked for
inbox:
  - say: What does ORD-1 total?
expect:
  outcome: replied
`,
        `${FILE}#stop-at-a-tool`,
      );
      const run = await runPeerScenario(scenario, support.loop, { seed, agents: agentsOf(support.agent) });
      const failedInvariants = (await checkInvariants(run)).filter((v) => !v.passed).map((v) => `${v.name}: ${v.message}`);
      const reply = run.reports[0]?.reply;
      return [
        { name: "the reply is the tool's output", passed: reply === '{"order":"ORD-1","total":40}', message: String(reply) },
        { name: 'one model request', passed: run.requests.length === 1, message: `${run.requests.length}` },
        { name: 'every invariant holds', passed: failedInvariants.length === 0, message: failedInvariants.join(' · ') || 'all held' },
      ];
    },
  ),
  agentCase('loop-runs-only-its-agent', "a case of another agent is refused, not run with this agent's instructions", async (sdk, gate, seed) => {
    const support = gate.openAiAgent((model) => supportAgent(sdk, seenNothing(), model));
    const other = gate.openAiAgent((model) => supportAgent(sdk, seenNothing(), model));
    let said = '(ran)';
    try {
      await runPeerScenario(parseScenario(LOOKUP_THEN_REFUND, `${FILE}#only-its-agent`), support.loop, { seed, agents: agentsOf(other.agent) });
    } catch (error) {
      said = (error as Error).message;
    }
    return [
      {
        name: "refused, naming the case's tools",
        passed:
          said ===
          "openAiAgent: the case's agent (tools: issue_refund, lookup_order) was not built by this openAiAgent(…): give its loop only to configs whose agents are its .agent",
        message: said,
      },
    ];
  }),
  // Outside probe 41, F4: a body keying a payment on the call id saw the scenario's "r1" in every case and on every
  // host, so a sandbox that remembers keys took a second case's refund for the first's.
  agentCase(
    'call-ids-are-each-cases-own',
    "a tool body's call id is loopgate's key for the call: its case's own in the Agents loop and in loopgate's",
    async (sdk, gate, seed) => {
      const seen = seenNothing();
      const support = gate.openAiAgent((model) => supportAgent(sdk, seen, model), { sideEffects: { issue_refund: 'STATEFUL' } });
      const replies: string[] = [];
      for (const conversation of ['case:first:loop', 'case:second:loop']) {
        const run = await runPeerScenario(parseScenario(LOOKUP_THEN_REFUND, `${FILE}#call-ids`), support.loop, {
          seed,
          agents: agentsOf(support.agent),
          conversation,
        });
        replies.push(run.reports.map((r) => outcomeLabel(r.outcome)).join(', '));
      }
      const built = (await support.agent({ conversationId: 'case:third:host' } as never)) as { tools: readonly AnyToolDeclaration[] };
      const lookup = built.tools.find((t) => t.name === 'lookup_order');
      await lookup?.run(
        { order: 'ORD-1' } as never,
        {
          callId: 'l1',
          signal: new AbortController().signal,
          attempt: 1,
          idempotencyKey: 'case:third:host/lookup_order:l1',
        } as never,
      );
      const want = ['case:first:loop/lookup_order:l1', 'case:second:loop/lookup_order:l1', 'case:third:host/lookup_order:l1'];
      return [
        { name: 'both cases replied', passed: replies.join(' · ') === 'replied · replied', message: replies.join(' · ') },
        {
          name: "the body saw each case's own key as its call id (details.toolCall.callId), in both loops",
          passed: JSON.stringify(seen.callIds) === JSON.stringify(want),
          message: JSON.stringify(seen.callIds),
          expected: JSON.stringify(want),
          actual: JSON.stringify(seen.callIds),
        },
      ];
    },
  ),
  // Outside probe 41, F1 (HIGH): served by AgentHost, an agent's input guardrail (no refund over the limit) silently
  // did not run — the gate had certified it in the Agents loop. Outside the Agents run(), what only that run runs is
  // refused, named, unless the team says it serves the agent without it.
  agentCase(
    'outside-the-run-refuses-what-only-the-run-runs',
    "loopgate's loop and host refuse an agent with guardrails, toolUseBehavior, an outputType, a forced toolChoice or a prompt template, naming them; the Agents loop runs it",
    async (sdk, gate, seed) => {
      const guard = { name: 'refund_limit', execute: async () => ({ tripwireTriggered: false, outputInfo: null }) };
      const toolGuard = sdk.defineToolInputGuardrail({ name: 'no_big_refunds', run: async () => sdk.ToolGuardrailFunctionOutputFactory.allow() });
      const guardedRefund = sdk.tool({
        name: 'issue_refund',
        description: 'Refund.',
        parameters: z.object({ order: z.string() }),
        inputGuardrails: [toolGuard],
        execute: () => 'ok',
      });
      const rows: [string, Record<string, unknown>, RegExp][] = [
        ['an input guardrail', { inputGuardrails: [guard] }, /input guardrails \(refund_limit\)/],
        ['an output guardrail', { outputGuardrails: [guard] }, /output guardrails \(refund_limit\)/],
        ["a tool's input guardrail", { tools: [guardedRefund] }, /issue_refund's input guardrails \(no_big_refunds\)/],
        ['toolUseBehavior', { toolUseBehavior: { stopAtToolNames: ['lookup_order'] } }, /toolUseBehavior \(\{"stopAtToolNames":\["lookup_order"\]\}\)/],
        ['an outputType', { outputType: z.object({ answer: z.string() }) }, /outputType \(a structured output\)/],
        ['a forced toolChoice', { modelSettings: { toolChoice: 'required' } }, /modelSettings\.toolChoice \("required"\)/],
        ['a prompt template', { prompt: { promptId: 'pmpt_1' } }, /prompt \(a Responses prompt template\)/],
        // Review of stop 51: a tool the agent disables (isEnabled) was offered and run outside the SDK's runner.
        [
          'a disabled tool',
          {
            tools: [
              sdk.tool({ name: 'issue_refund', description: 'Refund.', parameters: z.object({ order: z.string() }), isEnabled: false, execute: () => 'ok' }),
            ],
          },
          /tool issue_refund's isEnabled \(false for this context\)/,
        ],
        // Review of stop 51: the SDK drops a tool whose isEnabled answers anything falsy, not only false.
        [
          'a tool enabled by nothing',
          {
            tools: [
              Object.assign(sdk.tool({ name: 'issue_refund', description: 'Refund.', parameters: z.object({ order: z.string() }), execute: () => 'ok' }), {
                isEnabled: async () => undefined,
              }),
            ],
          },
          /tool issue_refund's isEnabled \(undefined for this context\)/,
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
        const support = gate.openAiAgent((model) => supportAgent(sdk, seenNothing(), model, extra));
        const inLoopgate = await built(support.agent, 'loopgate');
        const inAgents = await built(support.agent, support.loop.agentLoop);
        const inspected = await built(support.agent);
        checks.push({
          name: `${what}: refused in loopgate's loop and host, naming it; built for its own Agents loop and for inspection`,
          passed: inLoopgate.startsWith('openAiAgent: ') && names.test(inLoopgate) && inAgents === 'built' && inspected === 'built',
          message: `loopgate: ${inLoopgate} · openai-agents: ${inAgents} · inspection: ${inspected}`,
        });
      }
      const plain = await built(gate.openAiAgent((model) => supportAgent(sdk, seenNothing(), model)).agent, 'loopgate');
      // Review of stop 51, HIGH: the SDK asks isEnabled at every turn; a refund that disables itself after one refund
      // was asked once, at the build, and ran twice in loopgate's loop and host.
      const refunded: string[] = [];
      const once = gate.openAiAgent((model) =>
        supportAgent(sdk, seenNothing(), model, {
          tools: [
            sdk.tool({
              name: 'issue_refund',
              description: 'Refund.',
              parameters: z.object({ order: z.string() }),
              isEnabled: () => refunded.length === 0,
              execute: ({ order }) => {
                refunded.push(order);
                return 'refunded';
              },
            }),
          ],
        }),
      );
      const onceBuilt = (await once.agent({ clock: undefined as never, random: Math.random, conversationId: 'c1', loop: 'loopgate' })) as {
        tools: readonly AnyToolDeclaration[];
      };
      const refund = onceBuilt.tools.find((t) => t.name === 'issue_refund')!;
      const ctx = (callId: string) => ({ callId, signal: new AbortController().signal, attempt: 1, idempotencyKey: `c1/issue_refund:${callId}` });
      const first = await said(async () => refund.run({ order: 'ORD-1' } as never, ctx('r1') as never), 'ran');
      const second = await said(async () => refund.run({ order: 'ORD-2' } as never, ctx('r2') as never), 'ran');
      checks.push({
        name: "a tool that disables itself is asked at each call in loopgate's loop: the second refund does not run, and says why",
        passed: first === 'ran' && /issue_refund is not enabled \(isEnabled\)/.test(second) && JSON.stringify(refunded) === '["ORD-1"]',
        message: `first ${first}; second ${second}; refunded ${JSON.stringify(refunded)}`,
      });
      const accepted = await built(
        gate.openAiAgent((model) => supportAgent(sdk, seenNothing(), model, { inputGuardrails: [guard] }), { outsideItsLoop: 'instructions-and-tools' }).agent,
        'loopgate',
      );
      checks.push({
        name: "a plain agent, and one whose team accepts running only its instructions and tools there, are built in loopgate's loop",
        passed: plain === 'built' && accepted === 'built',
        message: `plain: ${plain} · accepted: ${accepted}`,
      });
      // Every other path refuses it, naming the guardrail; its own loop runs it (support/outside-its-loop.ts).
      const guarded = gate.openAiAgent((model) => supportAgent(sdk, seenNothing(), model, { inputGuardrails: [guard] }));
      const { openAiAgentsLoop } = await import('./adapter.ts');
      checks.push(
        ...(await outsideItsLoopChecks({
          agent: guarded.agent,
          own: guarded.loop,
          generic: openAiAgentsLoop(),
          scenario: () => parseScenario(LOOKUP_THEN_REFUND, `${FILE}#outside-the-run`),
          what: 'the guardrail',
          names: /input guardrails \(refund_limit\)/,
          seed,
        })),
      );
      return checks;
    },
  ),
];

/** Every `contract:openai-agents/agent/…` case, in a fixed order. */
export function openAiAgentsContractCases(): Case[] {
  return [...ROWS];
}
