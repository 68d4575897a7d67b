import { describe, expect, it } from 'vitest';
import { heldForApproval, markSdkApproval } from './tool-approval.ts';

describe('heldForApproval (what a peer is held to by the agent’s own needsApproval)', () => {
  const rule = (when?: (args: unknown) => unknown) =>
    markSdkApproval({ id: 'issue_refund.needsApproval', tools: ['issue_refund'], decision: 'ask' as const, ...(when ? { when: when as never } : {}) }, true);

  it('holds every call of a tool marked true, and only that tool', () => {
    const held = heldForApproval({ policy: { rules: [rule()] } });
    expect(held('issue_refund', {})).toBe(true);
    expect(held('lookup_order', {})).toBe(false);
  });

  it('asks the rule of the arguments; an error, or a promise, holds the call — and a rejecting promise is never an unhandled one', async () => {
    const held = heldForApproval({
      policy: {
        rules: [
          rule((args) => {
            const { order } = args as { order?: string };
            if (order === 'boom') throw new Error('boom');
            if (order === 'later') return Promise.reject(new Error('no answer'));
            return order?.startsWith('VIP') === true;
          }),
        ],
      },
    });
    expect(held('issue_refund', { order: 'VIP-1' })).toBe(true);
    expect(held('issue_refund', { order: 'ORD-1' })).toBe(false);
    expect(held('issue_refund', { order: 'boom' })).toBe(true);
    expect(held('issue_refund', { order: 'later' })).toBe(true);
    await new Promise((resolve) => setImmediate(resolve)); // an unhandled rejection would fail the run here
  });

  it('ignores a policy rule that is not an SDK approval', () => {
    expect(heldForApproval({ policy: { rules: [{ id: 'ask-all', decision: 'ask' }] } })('issue_refund', {})).toBe(false);
  });
});
