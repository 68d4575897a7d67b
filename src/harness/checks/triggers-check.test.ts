import { describe, expect, it } from 'vitest';
import { triggersCheck } from './expectations.ts';
import type { ScenarioRun } from '../second-host.ts';

type Unfired = ScenarioRun['unfired'][number];
const unfired = (at: Record<string, unknown>): Unfired => ({ index: 1, entry: { steer: 'x', at } as unknown as Unfired['entry'] });

describe('triggersCheck', () => {
  it('names the trigger as written, the attempt of a toolStart among it (outside probe 65, F2)', () => {
    const [check] = triggersCheck({ unfired: [unfired({ toolStart: 'book_slot', attempt: 3 })] });
    expect(check?.message).toBe('inbox[1]: steer at {toolStart: book_slot, attempt: 3} never happened (the case ended first; ifReached: true if it may not)');
  });

  it('a toolStart without an attempt, as before', () => {
    const [check] = triggersCheck({ unfired: [unfired({ toolStart: 'book_slot' })] });
    expect(check?.message).toBe('inbox[1]: steer at {toolStart: book_slot} never happened (the case ended first; ifReached: true if it may not)');
  });
});
