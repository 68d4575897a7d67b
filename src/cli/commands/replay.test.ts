import { describe, expect, it } from 'vitest';
import type { AnyEvent } from '../../kernel/index.ts';
import { requestAtOrBefore } from './replay.ts';

describe('replay --at: the request in force at a seq', () => {
  // Outside probe 29, plant RP1: --at the seq of a model.request showed the request before it, and nothing caught it.
  const events = ['user.message', 'turn.started', 'model.request', 'model.result', 'tool.started', 'tool.result', 'model.request', 'model.result'].map(
    (type, seq) => ({ seq, type }) as unknown as AnyEvent,
  );

  it('is the model.request at that seq itself, else the last one before it; none before the first', () => {
    expect(requestAtOrBefore(events, 6)).toBe(6);
    expect(requestAtOrBefore(events, 2)).toBe(2);
    expect(requestAtOrBefore(events, 5)).toBe(2);
    expect(requestAtOrBefore(events, 7)).toBe(6);
    expect(requestAtOrBefore(events, 99)).toBe(6);
    expect(requestAtOrBefore(events, 1)).toBeUndefined();
  });
});
