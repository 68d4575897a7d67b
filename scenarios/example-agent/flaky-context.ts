/**
 * The support agent with a dynamic prompt fragment that depends on a flaky
 * service: the orders on file, read at every assembly, whose read fails every
 * second time. It shows what the loop does with a fragment that throws: the
 * request goes out without it, and the failure is recorded — in the log
 * (`prompt.assembled` errors) and as a `prompt` error span — never dropped in
 * silence.
 */
import type { AgentFactory } from '../../src/kernel/index.ts';
import { supportAgent } from './agent.ts';

export const flakyContextAgent: AgentFactory = async (context) => {
  const agent = await supportAgent(context);
  let reads = 0;
  return {
    ...agent,
    prompt: [
      {
        id: 'orders-on-file',
        priority: 0,
        text: () => {
          reads++;
          if (reads % 2 === 0) throw new Error('order context service timed out');
          return 'Orders on file: ORD-1001, ORD-1002, ORD-1003.';
        },
      },
    ],
  };
};
