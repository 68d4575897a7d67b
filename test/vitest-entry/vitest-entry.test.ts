/** `loopgate/vitest` as a user calls it: their own tools and prompt under the harness. */
import { join } from 'node:path';
import { z } from 'zod';
import { defineTool } from '../../src/index.ts';
import { describeScenarios, runScenarioFile } from '../../src/vitest.ts';
import { describe, expect, it } from 'vitest';

const forecast = defineTool({
  name: 'get_forecast',
  description: 'Tomorrow’s forecast for a city.',
  input: z.object({ city: z.string() }),
  sideEffect: 'NONE',
  run: ({ city }) => ({ city, forecast: 'snow' }),
});

const file = join(import.meta.dirname, 'my-agent.yaml');

const weather = () => ({ tools: [forecast], system: 'You forecast the weather.' });

describeScenarios('a user’s weather agent', { agents: { weather }, paths: [file], root: import.meta.dirname });

describe('runScenarioFile', () => {
  it('uses the user’s tool implementation and prompt, and checks the invariants', async () => {
    const outcome = await runScenarioFile(file, { agents: { weather } });
    expect(outcome.status).toBe('passed');
    expect(outcome.checks.map((c) => c.name)).toContain('invariant-01-requests-recomputable');
  });

  it('fails when the user’s tool does not behave as the scenario expects', async () => {
    const broken = defineTool({
      ...forecast,
      name: 'get_forecast',
      description: 'x',
      input: z.object({ city: z.string() }),
      sideEffect: 'NONE',
      run: () => ({ city: 'Oslo', forecast: 'sun' }),
    });
    const outcome = await runScenarioFile(file, { agents: { weather: () => ({ tools: [broken] }) } });
    expect(outcome.status).toBe('failed');
    expect(outcome.checks.find((c) => !c.passed)?.name).toBe('history');
  });
});
