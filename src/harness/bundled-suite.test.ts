/**
 * The bundled regression suite (scenarios/bundled): every scenario runs as its own
 * test, checked three ways (outcome, history, trace) plus the invariants, and the
 * suite as a whole must cover the outcome alphabet, the invariants and the known
 * field failures of DESIGN.md — so deleting or weakening scenarios shows up here.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CANCEL_SOURCES, FAILURE_REASONS, OUTCOME_KINDS } from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { loadScenarios, type LoadedScenario } from './scenario/load.ts';
import { scenarioCase, scenarioCases } from './scenario-case.ts';
import { DEFAULT_HOSTS } from './suite-context.ts';
import { VirtualClock } from './virtual-clock.ts';
import { agentNameOf, buildAgent } from './world/agent-under-test.ts';
import { bundledContext } from '../../test/support/bundled.ts';

const root = join(import.meta.dirname, '../../scenarios/bundled');
const context = await bundledContext();
const all: LoadedScenario[] = loadScenarios([root], root);
/** Live scenarios run only with `--live` against a real provider; everything else runs here. */
const suite = all.filter((l) => !l.scenario.live);
const live = all.filter((l) => l.scenario.live);

/** Outcomes no scenario can reach, and why (also in scenarios/README.md). None, now that a scenario can crash its host. */
const UNREACHABLE_OUTCOMES: Readonly<Record<string, string>> = {};

/**
 * Invariant 3 (unknown event types rejected unless ignorable) is about reading a log
 * written by another version; a scenario starts from an empty store and cannot plant
 * such a record. It is tested on the decoder (src/kernel/log/decode.test.ts).
 */
const UNSHOWABLE_INVARIANTS: Readonly<Record<number, string>> = {
  3: 'needs a stored record of an unknown event type; scenarios start from an empty store',
};

/**
 * The known field failures of DESIGN.md, each with the scenarios that reproduce it.
 * Each must carry the `field-failure` tag and quote the failure in its description.
 */
const FIELD_FAILURES: readonly { readonly failure: string; readonly quote: string; readonly scenarios: readonly string[] }[] = [
  {
    failure: 'Interrupt during tool execution leaves tool calls without results; the provider rejects the next request.',
    quote: 'interrupt during tool execution leaves tool calls without results',
    scenarios: ['field-failures/interrupt-mid-batch-every-call-answered'],
  },
  {
    failure: 'An interrupted tool reported as "denied, never ran".',
    quote: 'an interrupted tool reported as denied',
    scenarios: ['loop/cancel-during-refund'],
  },
  {
    failure: 'Abort invisible to the model, so it repeats side effects.',
    quote: 'invisible to the model',
    scenarios: ['field-failures/abort-visible-to-model', 'persistence/store-fails-after-refund-ran', 'safety/side-effect-notice-after-failed-turn'],
  },
  {
    failure: 'A queued steer or follow-up taken, then lost when an abort lands.',
    quote: 'taken, then lost when an abort lands',
    scenarios: ['field-failures/steer-taken-then-abort-returned', 'cancel/follow-up-returned-when-cancelled-before-first-step'],
  },
  {
    failure: 'Compaction orphans tool results or splits a parallel batch.',
    quote: 'compaction orphans tool results or splits a parallel batch',
    scenarios: ['compaction/compaction-keeps-tool-batches-whole'],
  },
  {
    failure: 'Compact → overflow → compact forever without progress.',
    quote: 'compact → overflow → compact forever without progress',
    scenarios: ['compaction/compact-overflow-loop-is-bounded'],
  },
  {
    failure: 'Compaction destroys raw history; an interrupted compaction loses it.',
    quote: 'raw history',
    scenarios: ['compaction/overflow-compacts-then-retries', 'compaction/failed-compaction-keeps-history'],
  },
  {
    failure: 'A torn last record in the store, and the next append fused onto it.',
    quote: 'a torn last record in the store, and the next append fused onto it',
    scenarios: ['field-failures/failed-write-not-fused', 'persistence/host-torn-write-recovered-not-fused'],
  },
  {
    failure: 'Persistence errors swallowed; writes silently stop.',
    quote: 'persistence errors swallowed; writes silently stop',
    scenarios: ['persistence/store-refuses-first-write', 'persistence/write-ahead-fails-refund-not-run'],
  },
  {
    failure: 'Crash mid-turn, resume shows missing history.',
    quote: 'crash mid-turn, resume shows missing history',
    scenarios: ['cancel/shutdown-mid-turn-history-survives', 'crash/crash-while-refund-runs-never-reruns', 'crash/crash-while-model-thinks-after-refund'],
  },
  {
    failure: '`max_tokens` cuts tool-call arguments; the loop retries forever or runs the call with `{}`.',
    quote: 'max_tokens cuts tool-call arguments',
    scenarios: ['field-failures/max-tokens-cuts-tool-call'],
  },
  { failure: 'Abort does not stop a running tool.', quote: 'abort does not stop a running tool', scenarios: ['cancel/abort-stops-running-tool'] },
  {
    failure: "A steer sent while a turn runs waits behind the server's lock and becomes a new turn.",
    quote: "a steer sent while a turn runs waits behind the server's lock and becomes a new turn",
    scenarios: ['inbox/steer-through-host-joins-running-turn'],
  },
  {
    failure: "The fallback model is asked for the primary's model name.",
    quote: "the fallback model is asked for the primary's model name",
    scenarios: ['retries/fallback-own-model-and-retry-after-remembered'],
  },
  {
    failure: 'A key split across streamed chunks is stored in pieces.',
    quote: 'a key split across streamed chunks is stored in pieces',
    scenarios: ['safety/secret-in-stream-ids-prompt-and-errors'],
  },
  {
    failure: 'A later permission rule re-allows a denied tool.',
    quote: 'a later permission rule re-allows a denied tool',
    scenarios: ['approvals/deny-rule-beats-later-allow', 'safety/visibility-deny-not-lifted'],
  },
];

/** A description as compared against the quotes: one line, lower case, no quote marks. */
const plain = (text: string | undefined) => (text ?? '').toLowerCase().replace(/["`]/g, '').replace(/\s+/g, ' ');

function describeFailures(checks: readonly CheckResult[]): string {
  return checks
    .filter((c) => !c.passed)
    .map((c) => {
      const detail =
        c.expected !== undefined || c.actual !== undefined ? `\n    expected: ${JSON.stringify(c.expected)}\n    actual:   ${JSON.stringify(c.actual)}` : '';
      return `  ✗ ${c.name}: ${c.message}${detail}`;
    })
    .join('\n');
}

/** Every label a scenario expects (the last turn's and every turn's). */
function expectedOutcomes(loaded: LoadedScenario): string[] {
  const { expect: e } = loaded.scenario;
  const perTurn = Object.values(e.turns ?? {}).flatMap((t) => (t.outcome !== undefined ? [t.outcome] : []));
  return [...(e.outcome !== undefined ? [e.outcome] : []), ...(e.outcomes ?? []), ...perTurn];
}

describe('the bundled suite', () => {
  it('has at least 60 scenarios, each named, described and tagged', () => {
    expect(suite.length).toBeGreaterThanOrEqual(60);
    for (const { id, scenario } of all) {
      expect(scenario.name.length, `${id}: name`).toBeGreaterThan(10);
      expect(scenario.description?.length ?? 0, `${id}: a description saying what it proves and why it matters`).toBeGreaterThan(80);
      expect(scenario.tags.length, `${id}: tags`).toBeGreaterThan(0);
    }
  });

  it('checks every scenario three ways: the outcome, the history and the trace (or what the tools did)', () => {
    // A bystander's conversation too: it is judged by its own expect (after a crash, on what the new host recovered).
    const expects = suite.flatMap(({ id, scenario }) => [
      { id, e: scenario.expect },
      ...(scenario.bystander ? [{ id: `${id} (bystander)`, e: scenario.bystander.expect }] : []),
    ]);
    for (const { id, e } of expects) {
      const turns = Object.values(e.turns ?? {});
      expect(e.outcome !== undefined || e.outcomes !== undefined || turns.some((t) => t.outcome), `${id}: expects an outcome`).toBe(true);
      expect(e.history !== undefined || e.lastRequest !== undefined || turns.some((t) => t.lastRequest), `${id}: expects the history`).toBe(true);
      expect(
        e.trace !== undefined || e.toolResults !== undefined || turns.some((t) => t.trace || t.toolResults),
        `${id}: expects the trace or the tool results`,
      ).toBe(true);
    }
  });

  describe('every scenario passes through every host it runs through (seed 1)', () => {
    for (const loaded of suite) {
      for (const c of scenarioCases(loaded, { ...context, hosts: DEFAULT_HOSTS })) {
        it(c.id.slice('scenario:'.length), async () => {
          const outcome = await c.run({ seed: 1 });
          const failing = describeFailures(outcome.checks);
          expect(failing, `${loaded.file} — ${c.title}\n${failing}`).toBe('');
          expect(outcome.status).toBe('passed');
        });
      }
    }
  });

  describe('live scenarios are skipped, with a reason, without --live', () => {
    for (const loaded of live) {
      it(loaded.id, async () => {
        const outcome = await scenarioCase(loaded, context).run({ seed: 1 });
        expect(outcome.status).toBe('skipped');
        expect(outcome.skipReason).toMatch(/--live/);
      });
    }
  });

  describe('coverage', () => {
    it('crashes the production host at every trigger kind in a case with a STATEFUL tool, and reopens it', async () => {
      const kinds = ['event', 'toolStart', 'request', 'time'] as const;
      for (const kind of kinds) {
        const crashing = suite.filter((l) => l.scenario.inbox.some((e) => e.crash && e.at?.[kind] !== undefined));
        const withStateful = [];
        for (const l of crashing) {
          const agent = await buildAgent(agentNameOf(l.scenario, context.registry), context.registry, { clock: new VirtualClock(), random: () => 0.5 });
          const stateful = new Set([
            ...(agent.tools ?? []).filter((t) => t.sideEffect === 'STATEFUL').map((t) => t.name),
            ...l.scenario.tools.filter((t) => t.sideEffect === 'STATEFUL').map((t) => t.name),
          ]);
          const called = l.scenario.provider.script.flatMap((step) => (step.tool_use ?? []).map((c) => c.name));
          if (called.some((name) => stateful.has(name)) && l.scenario.inbox.some((e) => e.reopen)) withStateful.push(l.id);
        }
        expect(withStateful, `no bundled scenario crashes at: { ${kind} } in a case that calls a STATEFUL tool`).not.toEqual([]);
      }
    });

    it('steers through the production host into a running turn', () => {
      const steering = suite.filter(
        (l) =>
          l.scenario.host === 'production' &&
          l.scenario.inbox.some((e) => e.steer !== undefined) &&
          l.scenario.expect.responses?.some((r) => r.delivery === 'joined'),
      );
      expect(steering.map((l) => l.id)).not.toEqual([]);
    });

    it('covers every outcome of the alphabet, except those documented as unreachable', () => {
      const alphabet = OUTCOME_KINDS.flatMap((kind) =>
        kind === 'cancelled' ? CANCEL_SOURCES.map((by) => `cancelled{${by}}`) : kind === 'failed' ? FAILURE_REASONS.map((r) => `failed{${r}}`) : [kind],
      );
      const covered = new Set(suite.flatMap(expectedOutcomes));
      const missing = alphabet.filter((label) => !covered.has(label) && !(label in UNREACHABLE_OUTCOMES));
      expect(missing, 'outcome labels no bundled scenario expects').toEqual([]);
      // An outcome marked unreachable that a scenario does reach should lose its exemption.
      expect(Object.keys(UNREACHABLE_OUTCOMES).filter((label) => covered.has(label))).toEqual([]);
    });

    it('shows every invariant 1–15 in at least one scenario (tag invariant-N), except those documented as not showable', () => {
      const tags = new Set(suite.flatMap((l) => l.scenario.tags));
      const missing = Array.from({ length: 15 }, (_, i) => i + 1).filter((n) => !tags.has(`invariant-${n}`) && !(n in UNSHOWABLE_INVARIANTS));
      expect(missing, 'invariants no bundled scenario is tagged with').toEqual([]);
      for (const tag of tags)
        if (tag.startsWith('invariant-'))
          expect(Number(tag.slice('invariant-'.length)), `bad tag ${tag}`).toSatisfy((n: number) => Number.isInteger(n) && n >= 1 && n <= 15);
    });

    it("shows every kind of reply assertion passing, a rubric with a scripted judge of its own and one with the config's", () => {
      const assertions = suite.flatMap((l) => l.scenario.expect.assert ?? []);
      for (const kind of ['matches', 'json', 'assertion', 'rubric'] as const)
        expect(
          assertions.some((a) => a[kind] !== undefined),
          `no bundled scenario asserts with ${kind}`,
        ).toBe(true);
      expect(assertions.some((a) => a.rubric !== undefined && typeof a.judge === 'object')).toBe(true);
      expect(assertions.some((a) => a.rubric !== undefined && a.judge === undefined)).toBe(true);
    });

    it('reproduces every known field failure of DESIGN.md, each in a scenario tagged field-failure that names it', () => {
      expect(FIELD_FAILURES).toHaveLength(16);
      const byId = new Map(suite.map((l) => [l.id, l]));
      for (const { failure, quote, scenarios } of FIELD_FAILURES) {
        expect(scenarios.length, failure).toBeGreaterThan(0);
        for (const id of scenarios) {
          const loaded = byId.get(id);
          expect(loaded, `field failure "${failure}": scenario ${id} is missing`).toBeDefined();
          expect(loaded!.scenario.tags, `${id}: tag field-failure`).toContain('field-failure');
          expect(plain(loaded!.scenario.description), `${id}: the description names "${failure}"`).toContain(quote);
        }
      }
      // Every scenario tagged field-failure names one of them.
      const tagged = suite.filter((l) => l.scenario.tags.includes('field-failure'));
      for (const l of tagged) {
        expect(
          FIELD_FAILURES.some(({ quote }) => plain(l.scenario.description).includes(quote)),
          `${l.id} is tagged field-failure but names none of DESIGN.md's`,
        ).toBe(true);
      }
      expect(tagged.length).toBeGreaterThanOrEqual(FIELD_FAILURES.length);
    });
  });
});
