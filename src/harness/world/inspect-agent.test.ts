/** Building an agent once to inspect it: every problem the kernel would refuse, one line each. */
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { defineTool } from '../../kernel/index.ts';
import { inspectFactory } from './inspect-agent.ts';

const tool = (name: string, sideEffect: unknown) => defineTool({ name, description: 'd', input: z.object({}), sideEffect: sideEffect as 'NONE', run: () => 1 });

describe('inspectFactory', () => {
  it('lists every broken tool, and the policy and visibility problems beside them, one line each', async () => {
    const inspection = await inspectFactory(() => ({
      tools: [
        tool('a', 'NONE'),
        tool('bad name!', 'NONE'),
        tool('c', 'SOMETIMES'),
        { name: 'd', description: 'x', sideEffect: 'NONE', run: () => 1 } as never,
        tool('a', 'NONE'),
      ],
      policy: { rules: [{ id: 'r', tools: ['zz'], decision: 'deny' }] },
      visibility: [{ name: 'g', deny: ['yy', 'bad name!'] }],
    }));
    expect(inspection.problems).toEqual([
      'tool "bad name!": name must be 1-64 characters of letters, digits, "_" or "-" (what providers accept)',
      'tool "c": sideEffect must be one of NONE, IDEMPOTENT, STATEFUL, CRITICAL (got "SOMETIMES")',
      'tool "d": input is missing: declare the arguments as a zod schema, e.g. input: z.object({ … })',
      'tool "a": declared twice (tools[0] and tools[4]); tool names must be unique: rename or remove one',
      'policy rule "r": tools[0]: "zz" is not a registered tool',
      'visibility layer "g": deny[0]: "yy" is not a registered tool',
    ]);
  });

  it('every problem of one tool, not only its first', async () => {
    const inspection = await inspectFactory(() => ({
      tools: [{ name: 'x y', description: '', input: z.object({}), sideEffect: 'MAYBE', run: 1 } as never],
    }));
    expect(inspection.problems).toEqual([
      'tool "x y": name must be 1-64 characters of letters, digits, "_" or "-" (what providers accept)',
      'tool "x y": description is empty; it is what the model reads to decide whether to call the tool',
      'tool "x y": sideEffect must be one of NONE, IDEMPOTENT, STATEFUL, CRITICAL (got "MAYBE")',
      'tool "x y": run must be a function',
    ]);
  });

  it('a broken policy rule is listed beside broken tools', async () => {
    const inspection = await inspectFactory(() => ({
      tools: [tool('c', 'SOMETIMES')],
      policy: { rules: [{ id: 'r', tools: ['c'], decision: 'maybe' as 'deny' }] },
    }));
    expect(inspection.problems).toEqual([
      'tool "c": sideEffect must be one of NONE, IDEMPOTENT, STATEFUL, CRITICAL (got "SOMETIMES")',
      'policy rule "r": decision must be allow, deny or ask (got "maybe")',
    ]);
  });
});
