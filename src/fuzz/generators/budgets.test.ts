import { describe, expect, it } from 'vitest';
import { atScriptBoundary } from './budgets.ts';

const call = { name: 'probe', args: {} };
const script = [
  { reply: 'Hello.', usage: { input: 10, output: 5 } }, // ends turn 0
  { tool_use: [call], usage: { input: 300, output: 40 } },
  { error: { kind: 'rate_limited' as const, retryAfterMs: 3_000 } },
  { tool_use: [call, call, call], usage: { input: 200, output: 60 } },
  { reply: 'Done.' },
];

describe('atScriptBoundary', () => {
  it('session: the per-session call budget and the retry-after limit on the script', () => {
    expect(atScriptBoundary({}, script)).toEqual({ maxToolCallsPerSession: 4, retry: { maxRetryAfterMs: 3_000 } });
  });

  it('turn-calls: the batch that crosses the per-turn budget after the turn’s earlier call', () => {
    // turn 1 makes 1 call, then a batch of 3: a budget of 3 fits the first call and not the batch.
    expect(atScriptBoundary({}, script, 'turn-calls').maxToolCallsPerTurn).toBe(3);
  });

  it('session-crossed: the batch that crosses the per-session budget after every earlier call, in any turn', () => {
    expect(atScriptBoundary({}, script, 'session-crossed').maxToolCallsPerSession).toBe(3);
    // A call in turn 0, a reply, then a batch of 2 in turn 1: the session's budget counts across the turns.
    const across = [{ tool_use: [call] }, { reply: 'Hi.' }, { tool_use: [call, call] }];
    expect(atScriptBoundary({}, across, 'session-crossed').maxToolCallsPerSession).toBe(2);
    expect(atScriptBoundary({}, across, 'turn-calls').maxToolCallsPerTurn).toBe(1);
  });

  it('turn-tokens: spent exactly when the turn’s first tool-call step with usage ends', () => {
    expect(atScriptBoundary({}, script, 'turn-tokens').maxTokensPerTurn).toBe(340);
    expect(atScriptBoundary({}, script, 'turn-tokens').maxToolCallsPerTurn).toBeUndefined();
  });

  it('leaves a turn budget alone when the script has no step to put it on', () => {
    const replies = [{ reply: 'Hi.' }, { tool_use: [call] }];
    expect(atScriptBoundary({ maxTokensPerTurn: 7 }, replies, 'turn-tokens').maxTokensPerTurn).toBe(7);
    expect(atScriptBoundary({}, replies, 'turn-calls').maxToolCallsPerTurn).toBeUndefined();
    expect(atScriptBoundary({}, [{ tool_use: [call], usage: { input: 1e308, output: 1 } }], 'turn-tokens').maxTokensPerTurn).toBeUndefined();
  });
});
