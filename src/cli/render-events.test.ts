import { describe, expect, it } from 'vitest';
import type { AnyEvent } from '../kernel/index.ts';
import { renderEvent } from './render-events.ts';

const result = (error_code: string, durationMs: number, status: 'unknown' | 'failed') =>
  ({
    seq: 9,
    type: 'tool.result',
    v: 1,
    at: 0,
    payload: {
      turn: 0,
      step: 1,
      callId: 'p1',
      name: 'charge',
      status,
      content: 'charge was interrupted',
      error: { failed_tool: 'charge', error_code, error_message: 'x', suggestion: 'y' },
      durationMs,
      attempts: 1,
    },
  }) as unknown as AnyEvent;

describe('renderEvent: a tool result', () => {
  // Outside probe 35, F6: a call closed by crash recovery read "unknown INTERRUPTED in 0 ms" — it ran until the crash.
  it('closed with its turn (by crash recovery, or the loop at a cancel) does not say it took 0 ms: how long it ran is not known', () => {
    expect(renderEvent(result('INTERRUPTED', 0, 'unknown'))).toBe(
      '#9        tool charge#p1 unknown INTERRUPTED (closed with its turn, by the loop or crash recovery: how long it ran is not recorded): charge was interrupted',
    );
    expect(renderEvent(result('NOT_RUN', 0, 'failed'))).toBe(
      '#9        tool charge#p1 failed NOT_RUN (closed with its turn, by the loop or crash recovery: it never ran): charge was interrupted',
    );
  });

  it('that the loop settled says how long it took', () => {
    expect(renderEvent(result('TIMEOUT', 30_000, 'failed'))).toBe('#9        tool charge#p1 failed TIMEOUT in 30000 ms: charge was interrupted');
  });
});
