/** loopgate/vitest in the consumer's own vitest run: the same scenario files `loopgate run` runs. */
import { describeScenarios, runScenarioFile } from 'loopgate/vitest';
import { expect, it } from 'vitest';

describeScenarios('consumer scenarios', ['scenarios']);

it('reports the invariants it checked', async () => {
  const outcome = await runScenarioFile('scenarios/reserve-seat.yaml');
  expect(outcome.status).toBe('passed');
  expect(outcome.checks.filter((c) => c.name.startsWith('invariant')).length).toBeGreaterThan(0);
});
