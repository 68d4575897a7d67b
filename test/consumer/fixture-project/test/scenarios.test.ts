/** loopgate/vitest in the consumer's own vitest run: the config's agent and scenarios, as `loopgate run` runs them. */
import { describeScenarios, runScenarioFile } from 'loopgate/vitest';
import { expect, it } from 'vitest';
import { travelAgent } from '../src/agent.js';

describeScenarios('consumer scenarios');

it('runs one file with the agent given, and reports the invariants it checked', async () => {
  const outcome = await runScenarioFile('scenarios/reserve-seat.yaml', { agents: { travel: travelAgent } });
  expect(outcome.status).toBe('passed');
  expect(outcome.checks.filter((c) => c.name.startsWith('invariant')).length).toBeGreaterThan(0);
});
