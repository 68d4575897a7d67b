/**
 * `loopgate/vitest`: loopgate's suites inside your own vitest run.
 *
 *   import { describeScenarios, describeLoopTable, describeModelClientContract, createWireHarness } from 'loopgate/vitest';
 *
 *   describeScenarios('booking agent');                       // loopgate.config.ts: its agents, scenarios and invariants
 *   describeScenarios('one folder', { paths: ['scenarios/refunds'] });
 *   describeScenarios('no config', { agents: { booking: bookingAgent }, paths: ['scenarios/'] });
 *   describeLoopTable();
 *   describeModelClientContract('my anthropic config', createWireHarness('anthropic', { adapter: { model: 'claude-haiku-4-5' } }));
 *
 * The same scenario files give the same results here as in `loopgate run`: the
 * same agents from the same config, the same case ids (paths relative to the
 * config's folder) and so the same seeds.
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { possibleCells, runCell } from '../state-tables/cell-case.ts';
import { cellLabel } from '../state-tables/loop-table.ts';
import { caseIdRoot, loadConfig } from './config/load-config.ts';
import { loadSuiteScenarios, suiteInvariants, type SuiteContext } from './harness/suites.ts';
import { caseSeed, type Case } from './harness/cases.ts';
import { reportedId, runCases } from './harness/runner.ts';
import { compareVerdicts, notSelected, readVerdictsFile, type PinnedVerdicts, type VerdictDifference } from './report/peer-verdicts.ts';
import { contextFromOptions, type ScenarioFileOptions } from './harness/scenario-file.ts';
import { scenarioCases } from './harness/scenario-case.ts';
import { DEFAULT_HOSTS } from './harness/suite-context.ts';
import type { LoopUnderTestFactory } from './harness/loop-port/peer-world.ts';

export * from '../providers/vitest.ts';
export { describeEventStoreContract, describeSnapshotStoreContract } from './stores/store-conformance.ts';
export { runScenarioFile, type ScenarioFileOptions } from './harness/scenario-file.ts';

export interface DescribeScenariosOptions extends ScenarioFileOptions {
  /** Scenario files or folders. Default: the config's scenarios. */
  readonly paths?: readonly string[];
  /** The config file (default: loopgate.config.ts found upward from the working directory). Ignored when `agents` are given. */
  readonly config?: string;
  /**
   * Judge a peer loop (the config's `loop:`) against its pinned verdicts (the config's `verdicts:`), as `loopgate run`
   * does: a case failing exactly as pinned passes, one that differs fails naming how. Default true (`--no-verdicts`: false).
   */
  readonly verdicts?: boolean;
}

/**
 * One test per scenario file and host, named by its id (its path relative to the
 * config's folder; `@host` for its run through the production host), run with
 * your agents; a failure lists every failing check. Like `loopgate run`, each
 * scenario runs through both hosts unless it pins one (`host:`) or `options.host`
 * picks one.
 */
export function describeScenarios(title: string, options: DescribeScenariosOptions | readonly string[] = {}, legacy: ScenarioFileOptions = {}): void {
  const opts: DescribeScenariosOptions = Array.isArray(options) ? { ...legacy, paths: options } : (options as DescribeScenariosOptions);
  describe(title, async () => {
    const { cases, pinned } = await suiteCases(opts);
    let checked = 0;
    let skipped = 0;
    const reported = new Map<string, string>();
    for (const c of cases) {
      it(reportedId(c).slice('scenario:'.length), async (test) => {
        if (pinned) {
          // As `loopgate run` judges it: the case's result as the runner reports it (redacted), against its pin.
          const [result] = await runCases([c], { seed: opts.seed ?? 1, concurrency: 1 });
          reported.set(c.id, result!.id); // as pinned: redacted with the case's secrets
          if (result!.status === 'skipped') skipped += 1;
          else checked += 1;
          const differences = compareVerdicts(pinned.verdicts, [result!], false);
          expect(differences.map(differenceLine), `${c.title}: differs from the pinned verdicts in ${pinned.file}`).toEqual([]);
          if (result!.status === 'skipped') test.skip(`${result!.skipReason ?? 'skipped'} (as pinned)`);
          return;
        }
        const outcome = await c.run({ seed: caseSeed(opts.seed ?? 1, c.seedId ?? c.id) });
        if (outcome.status === 'skipped') {
          skipped += 1;
          test.skip(outcome.skipReason); // shown skipped, with why, not passed
          return;
        }
        checked += 1;
        const failing = outcome.checks.filter((check) => !check.passed).map((check) => `${check.name}: ${check.message}`);
        expect(failing, `${c.title}\n${failing.join('\n')}`).toEqual([]);
      });
    }
    // The whole suite, as a whole `loopgate run`: a pinned case no longer in it (renamed or gone) is a difference.
    if (pinned && opts.paths === undefined)
      it('(loopgate) every pinned case is in the suite', () => {
        const gone = notSelected(
          pinned.verdicts,
          cases.map((c) => reported.get(c.id) ?? reportedId(c)),
        );
        expect(gone.map(differenceLine), `pinned in ${pinned.file} but not in the suite`).toEqual([]);
      });
    // As `loopgate run`: a gate that checked nothing (every case skipped) has not passed (review of stop 51).
    if (cases.length > 0)
      it('(loopgate) something was checked', () => {
        if (checked === 0 && skipped > 0) expect.fail(`nothing was checked: all ${skipped} case(s) were skipped`);
      });
  });
}

function differenceLine(d: VerdictDifference): string {
  return `${d.id} [${d.kind}] ${d.message}`;
}

/** The cases, and the peer loop's pinned verdicts when the config has them (and they are not turned off). */
async function suiteCases(options: DescribeScenariosOptions): Promise<{ cases: readonly Case[]; pinned?: { file: string; verdicts: PinnedVerdicts } }> {
  const suite = await suiteFor(options);
  const cases = await casesOf(suite, options);
  const file = suite.loop && options.verdicts !== false ? suite.verdicts?.[suite.loop.id] : undefined;
  if (!file) return { cases };
  let verdicts: PinnedVerdicts;
  try {
    verdicts = readVerdictsFile(file);
  } catch (error) {
    throw new Error(`${(error as Error).message}; or judge the checks alone: describeScenarios(title, { verdicts: false })`);
  }
  if (verdicts.loop !== suite.loop!.id)
    throw new Error(`${file}: pins the verdicts of ${verdicts.loop}, not of ${suite.loop!.id} (see verdicts: in the config; or { verdicts: false })`);
  return { cases, pinned: { file, verdicts } };
}

/** The cases `describeScenarios` makes one test each of: those `loopgate run` runs for the same config and paths. */
export async function scenarioCasesFor(options: DescribeScenariosOptions = {}): Promise<readonly Case[]> {
  return casesOf(await suiteFor(options), options);
}

async function casesOf(suite: Suite, options: DescribeScenariosOptions): Promise<readonly Case[]> {
  const { context, paths, loop } = suite;
  if (loop) {
    // The config's `loop:` is the loop the agent is served in: its cases, as `loopgate run` makes them.
    const { peerScenarioCase } = await import('./harness/loop-port/peer-case.ts');
    // Judged as `loopgate run` judges the config's own loop: in full, with the config's reply assertions (review of
    // stop 52: outcomes only, so a wrong reply passed here and failed there).
    const suite = {
      loop,
      registry: context.registry,
      invariants: context.invariants,
      judged: 'all' as const,
      ...(context.replies ? { replies: context.replies } : {}),
    };
    return (await loadSuiteScenarios(paths, context)).map((loaded) => peerScenarioCase(loaded, suite));
  }
  const hosts = options.host ? [options.host] : (context.hosts ?? DEFAULT_HOSTS);
  const cases: Case[] = [];
  for (const loaded of await loadSuiteScenarios(paths, context)) cases.push(...scenarioCases(loaded, { ...context, hosts }));
  return cases;
}

interface Suite {
  readonly context: SuiteContext;
  readonly paths: readonly string[];
  readonly loop?: LoopUnderTestFactory;
  /** The config's pinned verdicts files, by loop name. */
  readonly verdicts?: Readonly<Record<string, string>>;
}

async function suiteFor(options: DescribeScenariosOptions): Promise<Suite> {
  if (options.agents !== undefined) {
    const context = contextFromOptions(options);
    return { context, paths: (options.paths ?? ['scenarios']).map((p) => resolve(context.root, p)) };
  }
  const config = await loadConfig({ path: options.config });
  const context: SuiteContext = {
    registry: config.registry,
    invariants: suiteInvariants([...config.invariants, ...(options.invariants ?? [])]),
    root: caseIdRoot(config, options.paths), // as in `loopgate run`
    ...(config.hosts ? { hosts: config.hosts } : {}),
    ...(config.prices ? { prices: config.prices } : {}),
    replies: config.replies,
  };
  const loop = await configLoop(config.loop, config.file);
  return { context, paths: options.paths ? options.paths.map((p) => resolve(p)) : config.scenarios, verdicts: config.verdicts, ...(loop ? { loop } : {}) };
}

/** The peer loop a config's `loop:` names (a name, or an adapter built with the user's options); none for loopgate's own. */
async function configLoop(loop: string | LoopUnderTestFactory | undefined, file: string): Promise<LoopUnderTestFactory | undefined> {
  if (loop === undefined || loop === 'loopgate') return undefined;
  if (typeof loop !== 'string') return loop;
  const { loadPeerLoop } = await import('./loops/registry.ts');
  return loadPeerLoop(loop, `${file}: loop`);
}

/** The loop's state table: every possible cell's fixture, checked three ways. */
export function describeLoopTable(seed = 1): void {
  describe('loopgate loop table', () => {
    for (const { event, state, cell } of possibleCells()) {
      it(`${event} while ${state} → ${cellLabel(cell)}`, async () => {
        const outcome = await runCell(event, state, cell, seed);
        const failing = outcome.checks.filter((c) => !c.passed).map((c) => `${c.name}: ${c.message}`);
        expect(failing).toEqual([]);
      });
    }
  });
}
