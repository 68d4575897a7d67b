/**
 * A step of two STATEFUL calls — a refund, then a receipt — in which the user
 * cancels while the refund runs: the refund finishes, the receipt is closed
 * unrun. The turn the cases on how such a close is told and logged share
 * (contract:cancel-signals/…, contract:log-redaction/…).
 */
import { z } from 'zod';
import { call, reply, toolUse } from '../../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../../providers/fake/scripted.ts';
import { AgentLoop, defineTool, loopDeps, type Agent, type EventLog } from '../../kernel/index.ts';
import type { VirtualClock } from '../virtual-clock.ts';

/** The loop with the message sent; drain it for the turn. */
export function refundThenCancel(log: EventLog, clock: VirtualClock): AgentLoop {
  const loop: { current?: AgentLoop } = {};
  const agent: Agent = {
    tools: [
      defineTool({
        name: 'issue_refund',
        description: 'Refund an order.',
        input: z.object({ order: z.string() }),
        sideEffect: 'STATEFUL',
        run: () => {
          loop.current?.cancel('user'); // the user cancels while the refund runs
          return { ok: true };
        },
      }),
      defineTool({
        name: 'send_receipt',
        description: 'Send a receipt.',
        input: z.object({ order: z.string() }),
        sideEffect: 'STATEFUL',
        run: () => ({ ok: true }),
      }),
    ],
  };
  const model = new ScriptedModelClient(
    [toolUse([call('refund', 'issue_refund', { order: 'A1' }), call('receipt', 'send_receipt', { order: 'A1' })]), reply('Done.')],
    { clock },
  );
  loop.current = new AgentLoop(loopDeps({ log, model, agent, clock }));
  loop.current.send('Refund A1 and send the receipt.', { id: 'ask' });
  return loop.current;
}
