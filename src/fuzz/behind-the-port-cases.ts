/**
 * `loopgate fuzz` behind the port, as cases of the bundled gate (`contract:fuzz/behind-the-port/…`): a team's loop
 * that holds every invariant judged from outside (the harness's hand-written loop, keeping the case's secrets out)
 * passes a search, with the outside views judged and only the families it can be given drawn; and each of a table of
 * bugs planted around it — each a bug a team's loop can have — is found, shrunk, and written as a counterexample
 * that fails when run as `loopgate run FILE` runs it against that loop. A search that could not reach a team's loop,
 * or an outside view gone blind, fails here.
 */
import { z } from 'zod';
import { defineTool, type Message } from '../kernel/index.ts';
import { checksCase, type Case } from '../harness/cases.ts';
import { handWritten } from '../harness/hand-written-loop.ts';
import { INVARIANTS } from '../harness/invariants/index.ts';
import { runPeerCase } from '../harness/loop-port/peer-case.ts';
import type { LoopUnderTestFactory, PeerAdapter, PeerWorld } from '../harness/loop-port/peer-world.ts';
import { parseScenario } from '../harness/scenario/load.ts';
import type { AgentRegistry } from '../harness/world/agent-under-test.ts';
import type { CheckResult } from '../report/results.ts';
import { counterexampleYaml, failureInfo } from './counterexample.ts';
import { fuzzCasesFor } from './fuzz-agent.ts';
import { runFuzz } from './run-fuzz.ts';
import { sameFailure } from './behind-the-port.ts';

const FILE = 'src/fuzz/behind-the-port-cases.ts';
/**
 * Runs per search, and its seed: fixed, so the case is the same every run. 500 leaves room: a new draw in the
 * generators moves where a plant is found (the tool error that quotes a secret moved max-steps-replied from under 200
 * to run 323); the sound loop's 500 runs take about 3 s.
 */
const RUNS = 500;
const SEED = 20261206;

const lookup = defineTool({
  name: 'lookup_order',
  description: 'Look an order up.',
  input: z.object({ order_id: z.string() }),
  sideEffect: 'NONE',
  run: ({ order_id }) => ({ order_id, status: 'shipped' }),
});
const refund = defineTool({
  name: 'issue_refund',
  description: 'Refund an order.',
  input: z.object({ order_id: z.string() }),
  sideEffect: 'STATEFUL',
  run: ({ order_id }) => ({ refunded: order_id }),
});
const REGISTRY: AgentRegistry = {
  agents: new Map([['shop', () => ({ system: 'You help with orders.', tools: [lookup, refund] })]]),
  defaultAgent: 'shop',
};

const SOUND = handWritten({ redacts: true });

/** `loop` with its world or its adapter changed by `change`: a bug planted around a sound loop. */
function planted(id: string, change: { world?: (w: PeerWorld) => PeerWorld; adapter?: (a: PeerAdapter) => PeerAdapter }): LoopUnderTestFactory {
  return {
    ...SOUND,
    id,
    create: async (world) => {
      const adapter = await SOUND.create(change.world ? change.world(world) : world);
      return change.adapter ? change.adapter(adapter) : adapter;
    },
  };
}

/** A loop that keeps the message of each failed turn in its history: handed as a fresh list, or (`live`) its one live list. */
function keepsFailedTurns(id: string, live: boolean): LoopUnderTestFactory {
  return planted(id, {
    adapter: (a) => {
      const kept: string[] = [];
      const list: Message[] = [];
      const history = () => [...a.persistedHistory(), ...kept.map((text) => ({ role: 'user' as const, content: [{ type: 'text' as const, text }] }))];
      return {
        ...a,
        runTurn: async (turn) => {
          const report = await a.runTurn(turn);
          if (report.outcome.kind === 'failed') kept.push(turn.text);
          return report;
        },
        persistedHistory: () => (live ? (list.splice(0, list.length, ...history()), list) : history()),
      };
    },
  });
}

/** The bugs, each with the invariant a search must find it by. */
const PLANTS: readonly { readonly loop: LoopUnderTestFactory; readonly bug: string; readonly by: string | readonly string[] }[] = [
  {
    bug: 'runs every tool body twice (a retry of its own)',
    by: 'invariant-13-side-effects-once',
    loop: planted('runs-bodies-twice', {
      world: (w) => ({
        ...w,
        tools: w.tools.map((t) => ({ ...t, run: async (args, context) => (await t.run(args, context).catch(() => undefined), t.run(args, context)) })),
      }),
    }),
  },
  {
    // It renames a repeated id and runs the call again: the ids it hands its tools never repeat (outside probe 49,
    // MED-2: missed in 2,300 runs — the outside view counted runs per id the loop gave).
    bug: 'runs a repeated call again under a fresh id',
    by: 'invariant-13-side-effects-once',
    loop: planted('reruns-repeats', {
      world: (w) => {
        let n = 0;
        return {
          ...w,
          model: {
            ...w.model,
            call: async (request, onDelta) => {
              const answer = await w.model.call(request, onDelta);
              if (answer.type !== 'tool_use') return answer;
              const fresh = new Map(answer.calls.map((c) => [c, `${c.id}-${++n}`]));
              let k = 0;
              return {
                ...answer,
                calls: answer.calls.map((c) => ({ ...c, id: fresh.get(c)! })),
                content: answer.content.map((b) => (b.type === 'tool_call' ? { ...b, id: fresh.get(answer.calls[k++]!) ?? b.id } : b)),
              };
            },
          },
        };
      },
    }),
  },
  {
    bug: 'keeps the secrets it is given in what it stores',
    // A credential-shaped text the run declared nowhere may be met first.
    by: ['invariant-15-secrets-never-leave', 'credential-shapes-redacted'],
    loop: { ...handWritten(), id: 'keeps-secrets' },
  },
  {
    bug: "forgets a cancelled turn's message",
    by: 'invariant-09-inbox-delivered-once',
    loop: planted('forgets-cancelled', {
      adapter: (a) => {
        const forgotten = new Set<string>();
        return {
          ...a,
          runTurn: async (turn) => {
            const report = await a.runTurn(turn);
            if (report.outcome.kind === 'cancelled') forgotten.add(turn.text);
            return report;
          },
          persistedHistory: () => a.persistedHistory().filter((m) => !(m.role === 'user' && m.content.some((b) => b.type === 'text' && forgotten.has(b.text)))),
        };
      },
    }),
  },
  {
    bug: 'keeps the message of a failed turn',
    by: 'invariant-05-failed-turns-add-nothing',
    loop: keepsFailedTurns('keeps-failed', false),
  },
  {
    // The README's own example hands its live list (`persistedHistory: () => history`): what the gate recorded at a
    // turn's start must not change with it (outside probe 49, HIGH-2: this bug passed 2,300 runs that way).
    bug: 'keeps the message of a failed turn, handing its live history',
    by: 'invariant-05-failed-turns-add-nothing',
    loop: keepsFailedTurns('keeps-failed-live', true),
  },
  {
    // Its cancel aborts the tools' signal, but it waits for a body that never reads it (outside probe 50, MED-1:
    // a wait cut only at the tool's timeout passed every invariant and 300 runs).
    bug: 'waits for a running tool after a cancel',
    by: 'cancel-stops-the-wait',
    loop: { ...handWritten({ redacts: true, waitsForTools: true }), id: 'waits-for-tools' },
  },
  {
    // Outside probe 54, H2: fuzz never cut a stream behind the port, and reported cut-calls-never-kept held.
    bug: 'runs the call a stream cut inside its arguments',
    by: 'cut-calls-never-kept',
    loop: planted('runs-cut-calls', {
      world: (w) => ({
        ...w,
        model: {
          ...w.model,
          call: async (request, onDelta) => {
            let started: { id: string; name: string } | undefined;
            const answer = await w.model.call(request, (delta) => {
              if (delta.kind === 'tool_call_start' && delta.id !== undefined && delta.name !== undefined) started ??= { id: delta.id, name: delta.name };
              onDelta?.(delta);
            });
            const tool = started && answer.type === 'transport_error' ? w.tools.find((t) => t.name === started!.name) : undefined;
            if (tool) await tool.run({}, { callId: started!.id, signal: request.signal ?? new AbortController().signal }).catch(() => undefined);
            return answer;
          },
        },
      }),
    }),
  },
  {
    // Outside probe 54, H1: a body the user stopped wrote on; every view judged only starts.
    bug: 'gives its tools no abort signal',
    by: 'tools-told-to-stop',
    loop: { ...handWritten({ redacts: true, givesToolsNoSignal: true }), id: 'no-tool-signal' },
  },
  {
    // Outside probe 54, H3: "not judged" behind the port.
    bug: "waits its own second where a 429's retry-after asks for longer",
    by: 'retry-after-honoured',
    loop: { ...handWritten({ redacts: true, retries: 'ignores-retry-after' }), id: 'ignores-retry-after' },
  },
  {
    // Outside probe 54, M1 and M2: no expectation, no verdict.
    bug: 'reports a cancelled turn failed{internal}',
    by: 'outcome-fits-what-happened',
    loop: { ...handWritten({ redacts: true, reportsCancelAsFailed: true }), id: 'cancel-as-failed' },
  },
  {
    bug: 'reports a turn its step limit stopped as replied',
    by: 'outcome-fits-what-happened',
    loop: { ...handWritten({ redacts: true, reportsMaxStepsAsReplied: true }), id: 'max-steps-replied' },
  },
  {
    // A report that is no report (probe 49, HIGH-3: an internal error and a stack trace).
    bug: 'reports a turn with no ending',
    by: 'loop-keeps-messages-and-counts',
    loop: planted('no-ending', { adapter: (a) => ({ ...a, runTurn: async (turn) => ({ ...(await a.runTurn(turn)), ending: undefined as never }) }) }),
  },
  {
    bug: 'reports a step count that is no count',
    by: 'loop-keeps-messages-and-counts',
    loop: planted('miscounts', { adapter: (a) => ({ ...a, runTurn: async (turn) => ({ ...(await a.runTurn(turn)), steps: -1 }) }) }),
  },
];

async function search(loop: LoopUnderTestFactory) {
  const cases = await fuzzCasesFor(REGISTRY, 'shop');
  return runFuzz({ runs: RUNS, seed: SEED, cases, loop: { factory: loop, agents: REGISTRY }, maxShrinkMs: 20_000 });
}

async function soundLoopHolds(): Promise<CheckResult[]> {
  const result = await search(SOUND);
  const judged = [...result.judged].filter(([, t]) => t.runs > 0).map(([id]) => id);
  // The outside views a team's loop is held to: each judged in this search.
  const views = INVARIANTS.filter((i) => i.checkObservable !== undefined).map((i) => i.id);
  const blind = views.filter((id) => !judged.includes(id));
  const drawnHere = [...result.drawn.keys()];
  return [
    {
      name: `${RUNS} runs of the sound loop: no violation`,
      passed: result.failure === undefined && result.runs === RUNS,
      message: result.failure ? `${result.failure.invariant.id}: ${result.failure.message}` : `${result.runs} runs, ${result.turns} turns`,
    },
    {
      name: 'every invariant with a view from outside was judged',
      passed: blind.length === 0 && judged.includes('loop-keeps-messages-and-counts'),
      message: blind.length > 0 ? `never judged: ${blind.join(', ')}` : `judged: ${judged.length} (${judged.join(', ')})`,
    },
    {
      name: 'no case was left unrun, and only families the loop can be given were drawn',
      passed:
        result.skipped === undefined &&
        result.undrawn.length === 0 &&
        !drawnHere.some((f) => f === 'a steer' || f === 'a crash' || f === 'the production host' || f === 'a compactor'),
      message: `skipped: ${result.skipped?.runs ?? 0}; drawn: ${drawnHere.join(', ')}; judged families: ${(result.families ?? []).join(', ')}`,
    },
  ];
}

async function plantedBugsFound(): Promise<CheckResult[]> {
  const checks: CheckResult[] = [];
  for (const plant of PLANTS) {
    const result = await search(plant.loop);
    const failure = result.failure;
    if (!failure) {
      checks.push({ name: `${plant.loop.id}: ${plant.bug}`, passed: false, message: `not found in ${result.runs} runs (seed ${SEED})` });
      continue;
    }
    // The counterexample as written, read back and run as `loopgate run FILE` runs it against the loop.
    const yaml = counterexampleYaml(failure.scenario, failureInfo(result, failure));
    const replayed = await runPeerCase(parseScenario(yaml, `${plant.loop.id}.yaml`), { loop: plant.loop, registry: REGISTRY, invariants: INVARIANTS }, 1);
    const failing = sameFailure(
      replayed.checks.filter((c) => !c.passed),
      failure.invariant.id,
    ).map((c) => c.name);
    checks.push({
      name: `${plant.loop.id}: ${plant.bug} — found by ${[plant.by].flat().join(' or ')}, and its counterexample fails as loopgate run runs it`,
      passed: [plant.by].flat().includes(failure.invariant.id) && failing.length > 0,
      message: `found by ${failure.invariant.id} at run ${failure.foundAtRun} (shrunk in ${failure.shrinks}): ${failure.message}; the counterexample fails ${failing.join(', ') || 'nothing'}`,
    });
  }
  return checks;
}

export function behindThePortCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:fuzz/behind-the-port/sound-loop-holds',
        title: `fuzz behind the port: ${RUNS} runs of a team's loop that holds every invariant pass, each outside view judged, only what the loop can be given drawn`,
        file: FILE,
      },
      soundLoopHolds,
    ),
    checksCase(
      {
        id: 'contract:fuzz/behind-the-port/planted-bugs-found',
        title: `fuzz behind the port: each of ${PLANTS.length} bugs planted around a team's loop is found by its invariant, and its counterexample fails as loopgate run runs it`,
        file: FILE,
      },
      plantedBugsFound,
    ),
  ];
}
