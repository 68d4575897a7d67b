/**
 * The report's timeline tells a case in the order things happened. Scripted
 * turns take no virtual time, so a crash and the turns around it share one
 * time: the faults the world injected used to be listed after every event of
 * that time (probe 12: "the process crashes" after the outcome of the turn the
 * process started after it). Each fault now keeps its place among the appends.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenarioFile } from '../../src/harness/scenario/load.ts';
import { runScenario } from '../../src/harness/second-host.ts';
import { buildTimeline } from '../../src/harness/timeline.ts';
import { BUNDLED_ROOT, bundledContext } from '../support/bundled.ts';

const SCENARIO = join(BUNDLED_ROOT, 'crash', 'cache-and-reasoning-tokens-kept-by-every-close.yaml');

describe('the timeline', () => {
  it('puts a crash and the reopen between the turn they cut and the next turn, all at one virtual time', async () => {
    const { scenario } = loadScenarioFile(SCENARIO, BUNDLED_ROOT);
    const run = await runScenario(scenario, { seed: 1, agents: (await bundledContext()).registry, host: 'production' });
    const labels = buildTimeline(run).map((e) => e.label);
    expect(new Set(buildTimeline(run).map((e) => e.at))).toEqual(new Set([0]));
    const at = (label: string) => labels.indexOf(label);
    expect(at('the process crashes')).toBeGreaterThan(labels.findIndex((l) => l.startsWith('issue_refund: allow')));
    expect(at('the process crashes')).toBeLessThan(at('a new host reopens the store'));
    expect(at('a new host reopens the store')).toBeLessThan(at('turn 0: interrupted'));
    expect(at('turn 0: interrupted')).toBeLessThan(at('turn 1 opened'));
  });
});
