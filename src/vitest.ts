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
    const cases = await scenarioCasesFor(opts);
    let checked = 0;
    let skipped = 0;
    for (const c of cases) {
      it(c.id.slice('scenario:'.length), async (test) => {
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
    // As `loopgate run`: a gate that checked nothing (every case skipped) has not passed (review of stop 51).
    if (cases.length > 0)
      it('(loopgate) something was checked', () => {
        if (checked === 0 && skipped > 0) expect.fail(`nothing was checked: all ${skipped} case(s) were skipped`);
      });
  });
}

/** The cases `describeScenarios` makes one test each of: those `loopgate run` runs for the same config and paths. */
export async function scenarioCasesFor(options: DescribeScenariosOptions = {}): Promise<readonly Case[]> {
  const { context, paths, loop } = await suiteFor(options);
  if (loop) {
    // The config's `loop:` is the loop the agent is served in: its cases, as `loopgate run` makes them.
    const { peerScenarioCase } = await import('./harness/loop-port/peer-case.ts');
    const suite = { loop, registry: context.registry, invariants: context.invariants };
    return (await loadSuiteScenarios(paths, context)).map((loaded) => peerScenarioCase(loaded, suite));
  }
  const hosts = options.host ? [options.host] : (context.hosts ?? DEFAULT_HOSTS);
  const cases: Case[] = [];
  for (const loaded of await loadSuiteScenarios(paths, context)) cases.push(...scenarioCases(loaded, { ...context, hosts }));
  return cases;
}

async function suiteFor(options: DescribeScenariosOptions): Promise<{ context: SuiteContext; paths: readonly string[]; loop?: LoopUnderTestFactory }> {
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
  return { context, paths: options.paths ? options.paths.map((p) => resolve(p)) : config.scenarios, ...(loop ? { loop } : {}) };
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
