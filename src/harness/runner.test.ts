import { describe, expect, it } from 'vitest';
import type { Case } from './cases.ts';
import { runCases } from './runner.ts';

// Matches no credential shape: only the secrets given say it is one.
const AGENT_SECRET = 'agent-held-Qw7pZx3Lm9';
const SCENARIO_SECRET = 'scenario-held-Hn4vB8rT2k';

const named = (run: Case['run']): Case => ({
  id: 'scenario:named',
  kind: 'scenario',
  title: `about ${AGENT_SECRET} and ${SCENARIO_SECRET}`,
  tags: [AGENT_SECRET, SCENARIO_SECRET, 'plain'],
  secrets: [SCENARIO_SECRET],
  run,
});

describe('the runner redacts what a case says about itself', () => {
  it("with the run's secrets (the agent's too): title, tags and failure", async () => {
    const [result] = await runCases(
      [
        named(async () => ({
          status: 'failed',
          checks: [{ name: 'x', passed: false, message: `saw ${AGENT_SECRET}` }],
          secrets: [AGENT_SECRET, SCENARIO_SECRET],
        })),
      ],
      { seed: 1, concurrency: 1 },
    );
    expect(result!.title).toBe('about [REDACTED] and [REDACTED]');
    expect(result!.tags).toEqual(['[REDACTED]', '[REDACTED]', 'plain']);
    expect(JSON.stringify(result)).not.toContain(AGENT_SECRET);
    expect(JSON.stringify(result)).not.toContain(SCENARIO_SECRET);
  });

  it('a failing check whose actual value held a secret says so, not "expected X, got X" with both redacted alike', async () => {
    const [result] = await runCases(
      [
        named(async () => ({
          status: 'failed',
          checks: [{ name: 'history', passed: false, message: `line 3 differs: expected "key: [REDACTED]", got "key: ${SCENARIO_SECRET}"` }],
        })),
      ],
      { seed: 1, concurrency: 1 },
    );
    expect(result!.failure).toBe(
      'history: line 3 differs: expected "key: [REDACTED]", got "key: [REDACTED]" (this text held a secret of the case, shown here as [REDACTED])',
    );
    expect(result!.checks[0]!.message).toContain('held a secret of the case');
    expect(JSON.stringify(result)).not.toContain(SCENARIO_SECRET);
  });

  it('with the secrets known before it ran, when it throws', async () => {
    const [result] = await runCases(
      [
        named(async () => {
          throw new Error(`broke on ${SCENARIO_SECRET}`);
        }),
      ],
      { seed: 1, concurrency: 1 },
    );
    expect(result!.status).toBe('failed');
    expect(JSON.stringify(result)).not.toContain(SCENARIO_SECRET);
    expect(result!.title).toBe(`about ${AGENT_SECRET} and [REDACTED]`);
  });
});
