/**
 * `describeScenarios` gates the loop the config names (`loop:`), as `loopgate run`
 * does: a config that says `loop: 'ai-sdk'` must not be certified by runs of
 * loopgate's own loop (probe 17, F1: vitest green, `loopgate run` 3 failed).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { caseSeed } from '../../src/harness/cases.ts';
import { scenarioCasesFor } from '../../src/vitest.ts';

const config = join(import.meta.dirname, 'peer-loop', 'loopgate.config.ts');

describe('describeScenarios with a config whose loop is ai-sdk', () => {
  it('makes the cases loopgate run makes: the peer’s, one per file, no production-host twin', async () => {
    const ids = (await scenarioCasesFor({ config })).map((c) => c.id).sort();
    expect(ids).toEqual(['scenario:scenarios/steer', 'scenario:scenarios/step-limit']);
  });

  it('judges the AI SDK loop: the step-limit stop it keeps in history fails invariant 5', async () => {
    const c = (await scenarioCasesFor({ config })).find((x) => x.id === 'scenario:scenarios/step-limit')!;
    const outcome = await c.run({ seed: caseSeed(1, c.seedId ?? c.id) });
    expect(outcome.status).toBe('failed');
    const failing = outcome.checks.filter((check) => !check.passed).map((check) => check.name);
    expect(failing).toContain('invariant-05-failed-turns-add-nothing');
  });

  it('skips what the AI SDK cannot do, naming why', async () => {
    const c = (await scenarioCasesFor({ config })).find((x) => x.id === 'scenario:scenarios/steer')!;
    const outcome = await c.run({ seed: caseSeed(1, c.seedId ?? c.id) });
    expect(outcome.status).toBe('skipped');
    expect(outcome.skipReason).toMatch(/ai-sdk has no steer/);
  });
});
