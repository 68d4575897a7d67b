/**
 * The agent's own code, as the gate judges it: `contract:own-agent/<id>`. The
 * bundled scenarios run loopgate's example agent; a team gates its own, whose
 * tools and prompt fragments are its code — faults there are what the gate is
 * for, as much as the loop's.
 *
 * Tools told to stop (`tool-told-to-stop`).
 * A cancel aborts the signal of the tool body it cuts short; the loop answers
 * the call at once and moves on. A team's tool that ignores its signal goes on
 * and does its write after the user pressed Stop — and the case, judged the
 * moment the loop handed the turn back, never saw it: the gate passed such a
 * tool, and the team's own invariant about writes after a cancel judged a run
 * whose write had not happened yet (outside probe 52, MED-2).
 *
 * Here a real run of the loop with an agent of its own (not a scripted
 * behaviour: those are the world's faults, not the agent's code): a body that
 * heeds its signal passes; one deaf to it that ends soon after is waited for
 * before the case is judged (its late write is there to see); one that is still
 * running long after is caught by `tools-stop-when-told`.
 */
import { z } from 'zod';
import { defineTool, type Agent, type AgentContext, type Clock } from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { checksCase, type Case } from './cases.ts';
import { checkInvariants, INVARIANTS } from './invariants/index.ts';
import { parseScenario } from './scenario/load.ts';
import { runScenario } from './second-host.ts';
import type { AgentRegistry } from './world/agent-under-test.ts';

const FILE = 'src/harness/own-agent-cases.ts';

const CART = `
name: a cart write the user stops while it runs
agent: cart
provider:
  script:
    - tool_use: [{ id: add, name: add_to_cart, args: { item: kettle } }]
    - reply: Added.
inbox:
  - say: Add the kettle to my cart.
  - cancel: user
    at: { toolStart: add_to_cart }
expect:
  outcome: cancelled{user}
`;

type Body = (signal: AbortSignal, write: () => void, clock: Clock) => Promise<void>;

/** An agent whose one tool, add_to_cart (STATEFUL unless said), runs `body` (given the agent's clock); its writes are counted. */
function cart(body: Body, sideEffect: 'NONE' | 'STATEFUL' = 'STATEFUL'): { registry: AgentRegistry; writes: string[] } {
  const writes: string[] = [];
  const agent = (context: AgentContext): Agent => ({
    tools: [
      defineTool({
        name: 'add_to_cart',
        description: 'Add an item to the cart.',
        input: z.object({ item: z.string() }),
        sideEffect,
        run: async ({ item }, ctx) => {
          await body(ctx.signal, () => writes.push(item), context.clock);
          return { added: item };
        },
      }),
    ],
  });
  return { registry: { agents: new Map([['cart', agent]]), defaultAgent: 'cart' }, writes };
}

/** Real time passing, as a tool's own I/O takes it. */
const after = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function toldToStop(): Promise<CheckResult[]> {
  let release: () => void = () => undefined;
  const never = new Promise<void>((resolve) => {
    release = resolve;
  });
  const rows: readonly { name: string; body: Body; writes: number; says?: RegExp; readOnly?: true }[] = [
    {
      name: 'a body that heeds its signal',
      body: (signal) =>
        new Promise((resolve, reject) => {
          const timer = setTimeout(resolve, 5_000);
          signal.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(signal.reason);
          });
        }),
      writes: 0,
    },
    {
      // Review of stop 57, H2: judged after the case's virtual time stopped, such a body never ended and was failed.
      name: "a body that waits on the agent's clock, then checks its signal before it writes",
      body: async (signal, write, clock) => {
        await clock.sleep(100);
        if (signal.aborted) throw new Error('stopped before writing');
        write();
      },
      writes: 0,
    },
    {
      name: 'a body deaf to its signal that writes 30 ms later',
      body: async (_signal, write) => {
        await after(30);
        write();
      },
      writes: 1,
    },
    {
      // Outside probe 53, MED-1: it ended while the case waited (virtual time going on), its restart written 1.6 s of
      // the agent's clock after the cancel — seen, and passed by every invariant.
      name: "a body deaf to its signal that waits 3 s on the agent's clock, then writes",
      body: async (_signal, write, clock) => {
        await clock.sleep(3_000);
        write();
      },
      writes: 1,
      says: /^add_to_cart \(STATEFUL\), call add, was told to stop .* and ran on for 3000 ms of the agent's clock/,
    },
    {
      name: 'a body deaf to its signal that is still running long after',
      body: async (_signal, write) => {
        await never;
        write();
      },
      writes: 0,
      says: /^add_to_cart \(STATEFUL\), call add, was told to stop .* and was still running \d+ ms later/,
    },
    {
      // Running on costs time, not a change: neither judged nor waited for (the case goes on at once).
      name: 'a read-only body deaf to its signal, still running long after',
      body: async () => {
        await never;
      },
      writes: 0,
      readOnly: true,
    },
  ];
  const checks: CheckResult[] = [];
  try {
    for (const row of rows) {
      const { registry, writes } = cart(row.body, row.readOnly ? 'NONE' : 'STATEFUL');
      const run = await runScenario(parseScenario(CART, 'own-agent-tool-told-to-stop.yaml'), { seed: 1, agents: registry });
      const outcome = run.results.map((r) => r.outcome.kind).join(', ');
      const failed = (await checkInvariants(run, INVARIANTS)).filter((c) => !c.passed);
      const said = failed.map((c) => `${c.name}: ${c.message}`).join('; ');
      const caught = failed.find((c) => c.name === 'tools-stop-when-told');
      const waited = [...(run.toolBodies?.values() ?? [])].flat().some((b) => b.runningAfterAbortMs !== undefined);
      const ok =
        outcome === 'cancelled' &&
        writes.length === row.writes &&
        (!row.readOnly || !waited) &&
        (row.says ? failed.length === 1 && caught !== undefined && row.says.test(caught.message) : failed.length === 0);
      checks.push({
        name: `${row.name}: ${row.says ? 'caught by tools-stop-when-told' : 'passes'}, with ${row.writes} write(s) seen when judged`,
        passed: ok,
        message: `outcome ${outcome}; ${writes.length} write(s) when judged; ${said || 'every invariant holds'}`,
        ...(row.says ? { expected: String(row.says), actual: said || 'every invariant holds' } : {}),
      });
    }
  } finally {
    release();
  }
  return checks;
}

/**
 * Prompt fragments that fail (`fragment-fails`): a dynamic fragment of the agent that throws, or gives something
 * that is not text, is left out of the system prompt and recorded — the turn goes on, as it must. But a team's
 * fragment that failed on every request (a stock service its code calls, not there in CI) passed the gate with the
 * model never told what it said, and no report named it (outside probe 52, MED-1). A fragment the scenario scripts
 * to throw (`prompt: [{ dynamic: [{ throw }] }]`) is the world's fault, not the agent's: not judged.
 */
const FRAGMENT = `
name: a question, with the agent's own prompt fragments
agent: shop
provider:
  script:
    - reply: The kettle is in stock.
inbox:
  - say: Is the kettle in stock?
expect:
  outcome: replied
`;

async function fragmentFails(): Promise<CheckResult[]> {
  const rows: readonly { name: string; stock: () => unknown; scenario?: string; twoTurns?: boolean; says?: RegExp }[] = [
    { name: 'a dynamic fragment that gives its text', stock: () => 'Kettles: 3 in stock.' },
    {
      name: 'one that throws',
      stock: () => {
        throw new Error('stock service down');
      },
      says: /^the agent's prompt fragment stock never gave its text: it threw \(stock service down\) at its one call \(first at request 1\)/,
    },
    {
      name: 'one that gives an object, not text',
      stock: () => ({ kettles: 3 }),
      says: /^the agent's prompt fragment stock never gave its text: it gave an object, not text, at its one call/,
    },
    {
      name: 'one that fails now and then (a flaky service the agent lives with)',
      stock: (() => {
        let reads = 0;
        return () => {
          reads++;
          if (reads % 2 === 0) throw new Error('stock service timed out');
          return 'Kettles: 3 in stock.';
        };
      })(),
      twoTurns: true,
    },
    {
      name: 'one the scenario scripts to throw (the world’s fault)',
      stock: () => 'Kettles: 3 in stock.',
      scenario: "prompt:\n  - { id: stock, priority: 10, dynamic: [{ throw: 'stock service down' }] }\n",
    },
  ];
  const checks: CheckResult[] = [];
  for (const row of rows) {
    const agent: Agent = {
      system: 'You help with a shop.',
      prompt: [{ id: 'stock', priority: 10, text: row.stock as () => string }],
    };
    const registry: AgentRegistry = { agents: new Map([['shop', () => agent]]), defaultAgent: 'shop' };
    let text = row.scenario ? FRAGMENT.replace('provider:', `${row.scenario}provider:`) : FRAGMENT;
    if (row.twoTurns)
      text = text
        .replace('    - reply: The kettle is in stock.\n', '    - reply: The kettle is in stock.\n    - reply: So is the mug.\n')
        .replace('  - say: Is the kettle in stock?\n', '  - say: Is the kettle in stock?\n  - say: And the mug?\n');
    const run = await runScenario(parseScenario(text, 'own-agent-fragment.yaml'), { seed: 1, agents: registry });
    const outcome = run.results.map((r) => r.outcome.kind).join(', ');
    const failed = (await checkInvariants(run, INVARIANTS)).filter((c) => !c.passed);
    const said = failed.map((c) => `${c.name}: ${c.message}`).join('; ');
    const caught = failed.find((c) => c.name === 'agent-fragments-give-text');
    const ok =
      outcome === (row.twoTurns ? 'replied, replied' : 'replied') &&
      (row.says ? failed.length === 1 && caught !== undefined && row.says.test(caught.message) : failed.length === 0);
    checks.push({
      name: `${row.name}: ${row.says ? 'caught by agent-fragments-give-text' : 'passes'}`,
      passed: ok,
      message: `outcome ${outcome}; ${said || 'every invariant holds'}`,
      ...(row.says ? { expected: String(row.says), actual: said || 'every invariant holds' } : {}),
    });
  }
  return checks;
}

/**
 * The agent's own compactor proposes whole closed turns (`compactor-cuts-a-turn`). The loop refuses a range that cuts
 * a turn, as it must, and the overflow it was meant to fix ends the turn `conversation_full` — a legal outcome no
 * invariant objected to: a team's compactor that cut every turn in half passed `loopgate fuzz`, and the gate only
 * where a scenario expected the reply (outside probe 53). A compactor with nothing to compact proposes nothing; one
 * that throws now and then is the path the loop handles. The scenario's own compactor (`compaction:`, a misbehaving
 * `range:` among them) is the world's, not the agent's: not judged.
 */
const COMPACTED = `
name: a long first answer, then an overflow the agent's own compactor is asked to fix
agent: notes
provider:
  script:
    - reply: >-
        ORD-1001 was delivered yesterday afternoon to the address on file; the carrier left it with a neighbour
        because nobody was home, and a card was left in the letterbox with the neighbour's house number on it.
    - overflow: request
    - reply: The neighbour at number 12 has it.
inbox:
  - say: Where is ORD-1001?
  - say: Which neighbour?
expect: {}
`;

async function compactorCutsATurn(): Promise<CheckResult[]> {
  type Propose = (candidate: { from: number; to: number } | undefined, call: number) => { from: number; to: number } | null;
  const rows: readonly { name: string; propose: Propose; outcomes: string; scenario?: string; says?: RegExp }[] = [
    { name: 'a compactor that proposes the candidate', propose: (c) => c ?? null, outcomes: 'replied, replied' },
    { name: 'one with nothing to compact', propose: () => null, outcomes: 'replied, conversation_full' },
    {
      name: 'one whose range ends inside the last closed turn',
      propose: (c) => (c ? { from: c.from, to: c.to - 1 } : null),
      outcomes: 'replied, conversation_full',
      says: /^the agent's compactor proposed \[\d+, \d+\], which ends at event \d+ \(\w[\w.]*\), not at a turn\.closed: not whole closed turns, the loop did not apply it/,
    },
    {
      name: 'one whose range starts after the first event of a turn',
      propose: (c) => (c ? { from: c.from + 1, to: c.to } : null),
      outcomes: 'replied, conversation_full',
      says: /^the agent's compactor proposed \[\d+, \d+\], which starts at event \d+ \(\w[\w.]*\), not at a turn\.opened: not whole closed turns, the loop did not apply it/,
    },
    {
      name: 'one that throws at every call',
      propose: () => {
        throw new Error('summariser unreachable');
      },
      outcomes: 'replied, conversation_full',
      says: /^the agent's compactor threw at its one call \(summariser unreachable\): nothing was ever compacted/,
    },
    {
      name: 'the scenario’s own misbehaving compactor (the world’s fault)',
      propose: (c) => c ?? null,
      scenario: 'compaction:\n  - { summary: Ada asked., range: cuts-turn }\n',
      outcomes: 'replied, conversation_full',
    },
  ];
  const checks: CheckResult[] = [];
  for (const row of rows) {
    let calls = 0;
    const agent: Agent = {
      system: 'You help with orders.',
      compactor: {
        compact: async ({ candidate }) => {
          const range = row.propose(candidate, calls++);
          return range && { ...range, summary: 'ORD-1001 was delivered to a neighbour.' };
        },
      },
    };
    const registry: AgentRegistry = { agents: new Map([['notes', () => agent]]), defaultAgent: 'notes' };
    const text = row.scenario ? COMPACTED.replace('provider:', `${row.scenario}provider:`) : COMPACTED;
    const run = await runScenario(parseScenario(text, 'own-agent-compactor.yaml'), { seed: 1, agents: registry });
    const outcomes = run.results.map((r) => r.outcome.kind).join(', ');
    const failed = (await checkInvariants(run, INVARIANTS)).filter((c) => !c.passed);
    const said = failed.map((c) => `${c.name}: ${c.message}`).join('; ');
    const caught = failed.find((c) => c.name === 'agent-compactor-proposes-whole-turns');
    const ok = outcomes === row.outcomes && (row.says ? failed.length === 1 && caught !== undefined && row.says.test(caught.message) : failed.length === 0);
    checks.push({
      name: `${row.name}: ${row.says ? 'caught by agent-compactor-proposes-whole-turns' : 'passes'} (${row.outcomes})`,
      passed: ok,
      message: `outcomes ${outcomes}; ${said || 'every invariant holds'}`,
      ...(row.says ? { expected: String(row.says), actual: said || 'every invariant holds' } : {}),
    });
  }
  return checks;
}

const LIMITED = `
name: an agent whose own limits are lower than the loop's defaults
agent: limited
host: HOST
provider:
  script:
    - tool_use: [{ id: look, name: lookup_order, args: { order_id: ORD-1001 } }]
    - reply: Done.
inbox:
  - say: Where is ORD-1001?
expect: {}
`;

/**
 * An agent's own limits (its `config`) hold through the production host as through the loop, where the host's YAML
 * writes none: the harness's host config written for the case must not stand for "every limit written" (outside
 * probe 62, MED-1: an agent allowing 0 tool calls a turn ran one through the host, and `invariant-11` saw it).
 */
async function ownLimitsThroughTheHost(): Promise<CheckResult[]> {
  const agent: Agent = {
    system: 'You help with orders.',
    config: { maxToolCallsPerTurn: 0 },
    tools: [
      defineTool({
        name: 'lookup_order',
        description: 'Look an order up.',
        input: z.object({ order_id: z.string() }),
        sideEffect: 'NONE',
        run: ({ order_id }) => ({ order_id, status: 'shipped' }),
      }),
    ],
  };
  const registry: AgentRegistry = { agents: new Map([['limited', () => agent]]), defaultAgent: 'limited' };
  const checks: CheckResult[] = [];
  for (const host of ['loop', 'production'] as const) {
    const run = await runScenario(parseScenario(LIMITED.replace('HOST', host), 'own-agent-limits.yaml'), { seed: 1, agents: registry });
    const said = `${run.results.map((r) => (r.outcome.kind === 'failed' ? `failed{${r.outcome.reason}}` : r.outcome.kind)).join(', ')}; lookup_order ran ${run.executions.get('lookup_order') ?? 0} time(s)`;
    const want = 'failed{budget_exhausted}; lookup_order ran 0 time(s)';
    checks.push({ name: `${host}: the agent's maxToolCallsPerTurn 0 holds`, passed: said === want, message: said, expected: want, actual: said });
  }
  return checks;
}

export function ownAgentCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:own-agent/fragment-fails',
        title: "an agent's own prompt fragment that throws or gives no text fails the case, naming it; one the scenario scripts to throw is the world's fault",
        file: FILE,
      },
      fragmentFails,
    ),
    checksCase(
      {
        id: 'contract:own-agent/tool-told-to-stop',
        title:
          "an agent's own tool cut short by a cancel: one that heeds its signal passes; one deaf to it is waited for before the case is judged, and caught while it runs on",
        file: FILE,
      },
      toldToStop,
    ),
    checksCase(
      {
        id: 'contract:own-agent/compactor-cuts-a-turn',
        title:
          "an agent's own compactor: one proposing whole closed turns, or nothing, passes; one whose range cuts a turn, or that throws at every call, fails naming it (the scenario's own misbehaving compactor is the world's)",
        file: FILE,
      },
      compactorCutsATurn,
    ),
    checksCase(
      {
        id: 'contract:own-agent/limits-through-the-host',
        title: "an agent's own limits (maxToolCallsPerTurn 0) hold through the production host as through the loop, where the host's YAML writes none",
        file: FILE,
      },
      ownLimitsThroughTheHost,
    ),
  ];
}
