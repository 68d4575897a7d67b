import { describe, expect, it } from 'vitest';
import { agentRefusalCases } from './refusal-cases.ts';
import { REFUSAL_TABLE } from './refusal-table.ts';

describe('the agent refusal table as cases', () => {
  const cases = agentRefusalCases();

  it('one contract:agent/ case per row, refused rows and control rows both present', () => {
    expect(cases.map((c) => c.id)).toEqual(REFUSAL_TABLE.map((r) => `contract:agent/${r.id}`));
    expect(REFUSAL_TABLE.filter((r) => r.refused === undefined).length).toBeGreaterThanOrEqual(2);
    expect(REFUSAL_TABLE.filter((r) => r.refused !== undefined).length).toBeGreaterThan(20);
  });

  it('every row passes on this kernel: each build path refuses with the row line (or accepts), and runs no tool', async () => {
    for (const c of cases) {
      const outcome = await c.run({ seed: 1 });
      expect(outcome.checks.map((check) => check.name)).toEqual(['built by check', 'built by loop', 'built by host', 'runs nothing']);
      expect(
        outcome.checks.filter((check) => !check.passed),
        c.id,
      ).toEqual([]);
    }
  });

  it('a line that differs from what the kernel says fails the case, naming the path and both lines', async () => {
    const row = REFUSAL_TABLE.find((r) => r.id === 'tool/zero-timeout')!;
    const wrong = { ...row, refused: 'tool "cancel_order": timeoutMs is wrong' };
    const original = REFUSAL_TABLE.indexOf(row);
    (REFUSAL_TABLE as unknown as (typeof row)[]).splice(original, 1, wrong);
    try {
      const outcome = await agentRefusalCases()[original]!.run({ seed: 1 });
      expect(outcome.status).toBe('failed');
      expect(outcome.checks[0]!.message).toBe(
        'expected refused: tool "cancel_order": timeoutMs is wrong; got refused: tool "cancel_order": timeoutMs must be a positive number of milliseconds (got 0)',
      );
    } finally {
      (REFUSAL_TABLE as unknown as (typeof row)[]).splice(original, 1, row);
    }
  });
});
