import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { loadScenarios } from './scenario/load.ts';
import { scenarioCase } from './scenario-case.ts';
import { bundledContext } from '../../test/support/bundled.ts';

const root = join(import.meta.dirname, '../../scenarios/bundled');

describe('scenario cases', () => {
  it('runs the sample scenarios and they pass three ways plus the invariants', async () => {
    const loaded = loadScenarios([join(root, 'refunds/approved-refund-runs-once.yaml'), join(root, 'loop')], root);
    const context = await bundledContext();
    for (const l of loaded) {
      const outcome = await scenarioCase(l, context).run({ seed: 1 });
      const failing = outcome.checks.filter((c) => !c.passed);
      expect(failing, `${l.id}: ${JSON.stringify(failing, null, 2)}`).toEqual([]);
      expect(outcome.status).toBe('passed');
    }
  });
});
