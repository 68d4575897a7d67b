import { describe, expect, it } from 'vitest';
import { EventLog } from '../log/event-log.ts';
import type { Outcome } from '../outcome.ts';
import { restatedSideEffects } from './compaction-notice.ts';

const usage = { inputTokens: 0, outputTokens: 0 };

/** A turn whose model called `callId` (STATEFUL) and whose call got `result`, closed with `outcome`. */
function turnWithCall(
  log: EventLog,
  turn: number,
  callId: string,
  result: { status: 'ok' | 'failed' | 'unknown'; attempts: number; code?: string },
  outcome: Outcome,
): void {
  log.append('inbox.received', { id: `m${turn}`, intent: 'follow_up', text: `message ${turn}`, source: 'user' });
  log.append('turn.opened', { turn, trigger: `m${turn}` });
  log.append('user.message', { turn, id: `m${turn}`, intent: 'follow_up', text: `message ${turn}` });
  log.append('assistant.message', { turn, step: 1, content: [{ type: 'tool_call', id: callId, name: 'issue_refund', args: {} }] });
  log.append('tool.started', { turn, step: 1, callId, name: 'issue_refund', args: {}, sideEffect: 'STATEFUL', attempt: 1 });
  const error = result.code ? { failed_tool: 'issue_refund', error_code: result.code, error_message: 'm', suggestion: 's' } : undefined;
  log.append('tool.result', { turn, step: 1, callId, name: 'issue_refund', content: 'c', durationMs: 0, ...result, ...(error ? { error } : {}) });
  log.append('turn.closed', { turn, outcome, steps: 1, usage, toolCalls: 1 });
}

function replied(log: EventLog, turn: number): void {
  log.append('inbox.received', { id: `m${turn}`, intent: 'follow_up', text: 'hi', source: 'user' });
  log.append('turn.opened', { turn, trigger: `m${turn}` });
  log.append('user.message', { turn, id: `m${turn}`, intent: 'follow_up', text: 'hi' });
  log.append('assistant.message', { turn, step: 1, content: [{ type: 'text', text: 'hello' }] });
  log.append('turn.closed', { turn, outcome: { kind: 'replied' }, steps: 1, usage, toolCalls: 0 });
}

describe('restatedSideEffects: what a compaction must not take from the model (invariant 14)', () => {
  it('a call of a cancelled turn whose result only the replaced range held is restated, as the notice words it', () => {
    const log = new EventLog({ now: () => 0 });
    replied(log, 0);
    turnWithCall(log, 1, 'refund', { status: 'unknown', attempts: 1, code: 'INTERRUPTED' }, { kind: 'cancelled', by: 'user' });
    expect(restatedSideEffects(log, 0, log.length - 1)).toBe(
      '[Turns summarized here ended without a reply after these actions were already carried out or may have been:\n- issue_refund (call refund): may have taken effect\nDo not repeat them without checking.]',
    );
    // Outside the range: nothing to restate.
    expect(restatedSideEffects(log, 0, 4)).toBeUndefined();
  });

  it('not once a later turn replied (the model acted on it), nor for a start the store refused', () => {
    const acted = new EventLog({ now: () => 0 });
    turnWithCall(acted, 0, 'refund', { status: 'unknown', attempts: 1, code: 'INTERRUPTED' }, { kind: 'cancelled', by: 'user' });
    replied(acted, 1);
    expect(restatedSideEffects(acted, 0, acted.length - 1)).toBeUndefined();
    const refused = new EventLog({ now: () => 0 });
    turnWithCall(refused, 0, 'refund', { status: 'failed', attempts: 0, code: 'NOT_RECORDED' }, { kind: 'cancelled', by: 'user' });
    expect(restatedSideEffects(refused, 0, refused.length - 1)).toBeUndefined();
  });

  it('a call of a failed turn is restated only if its notice was read inside the range', () => {
    const log = new EventLog({ now: () => 0 });
    turnWithCall(log, 0, 'refund', { status: 'ok', attempts: 1 }, { kind: 'failed', reason: 'max_steps' });
    expect(restatedSideEffects(log, 0, log.length - 1)).toBeUndefined(); // its notice still waits in the inbox
    log.append('inbox.received', { id: 'n', intent: 'inject', text: '- issue_refund (call refund): done', source: 'loop:side-effects' });
    log.append('turn.opened', { turn: 1, trigger: 'n' });
    log.append('user.message', { turn: 1, id: 'n', intent: 'inject', text: '- issue_refund (call refund): done' });
    log.append('turn.closed', { turn: 1, outcome: { kind: 'cancelled', by: 'user' }, steps: 0, usage, toolCalls: 0 });
    expect(restatedSideEffects(log, 0, log.length - 1)).toContain('- issue_refund (call refund): done');
  });
});
