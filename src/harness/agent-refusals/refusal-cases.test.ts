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
      expect(outcome.checks.map((check) => check.name)).toEqual([
        'built by check',
        'built by loop',
        'built by host',
        'check lists only its line',
        'runs nothing',
      ]);
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

  it('a second line beside the row line fails the case, listing both', async () => {
    const row = REFUSAL_TABLE.find((r) => r.id === 'tool/zero-timeout')!;
    // The same agent with a policy rule naming a tool it does not have: two problems, the row's line first.
    const twice = {
      ...row,
      agent: () => ({ ...row.agent(), policy: { rules: [{ id: 'ghost', tools: ['no_such_tool'], decision: 'deny' as const }] } }),
    };
    const original = REFUSAL_TABLE.indexOf(row);
    (REFUSAL_TABLE as unknown as (typeof row)[]).splice(original, 1, twice);
    try {
      const outcome = await agentRefusalCases()[original]!.run({ seed: 1 });
      expect(outcome.status).toBe('failed');
      const listed = outcome.checks.find((check) => check.name === 'check lists only its line')!;
      expect(listed.passed).toBe(false);
      expect(listed.message).toContain('timeoutMs must be a positive number');
      expect(listed.actual).toBe(JSON.stringify([row.refused, 'policy rule "ghost": tools[0]: "no_such_tool" is not a registered tool']));
      expect(outcome.checks.filter((check) => !check.passed).map((check) => check.name)).toEqual(['check lists only its line']);
    } finally {
      (REFUSAL_TABLE as unknown as (typeof row)[]).splice(original, 1, row);
    }
  });
});
