/**
 * The support agent with its order lookup as a team hardens it: an output
 * schema (what the order service promises) and a rendering for the model (a
 * line, not the record). The order service answers ORD-1004 in its newer
 * format — the total as a text — which the schema refuses: loopgate's loop
 * fails the call INVALID_OUTPUT and the model is told, instead of reading a
 * text where a number was promised. A peer is given neither setting, so a case
 * that calls the lookup is skipped for it, saying so (agent-requirements.ts).
 */
import { z } from 'zod';
import { defineTool, type AgentFactory } from '../../src/kernel/index.ts';
import { supportAgent } from './agent.ts';

const ORDER = z.looseObject({
  id: z.string(),
  status: z.enum(['processing', 'shipped', 'delivered']),
  total: z.number(),
  items: z.array(z.string()),
});
type Order = z.infer<typeof ORDER>;

export const renderedOrdersAgent: AgentFactory = async (context) => {
  const agent = await supportAgent(context);
  return {
    ...agent,
    tools: (agent.tools ?? []).map((tool) =>
      tool.name === 'lookup_order'
        ? defineTool({
            ...tool,
            output: ORDER,
            run: async (args, ctx) => {
              const order = (await tool.run(args as never, ctx)) as Order;
              // The order service's newer format for this one order: the total as a text.
              return order.id === 'ORD-1004' ? ({ ...order, total: `${order.total.toFixed(2)} USD` } as unknown as Order) : order;
            },
            renderForModel: (order: Order) => `${order.id}: ${order.status}, ${order.total} USD (${order.items.join(', ')})`,
          })
        : tool,
    ),
  };
};
