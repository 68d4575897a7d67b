/**
 * The support agent with its order lookups over the network: the order service
 * answers after a real wait (a timer of ~15 ms, as a request to a service on
 * the same host takes). It is what most agents' tools are — real I/O, not a
 * value at hand — and shows that the gate gives such a tool the real time it
 * takes: virtual time stands still while the lookup waits on real work, so its
 * 5-second timeout is not reached in virtual time while a real 15 ms passes.
 */
import { setTimeout as realWait } from 'node:timers/promises';
import type { AgentFactory } from '../../src/kernel/index.ts';
import { supportAgent } from './agent.ts';

/** What the order service takes to answer, in real milliseconds. */
export const ORDER_SERVICE_MS = 15;

export const remoteOrdersAgent: AgentFactory = async (context) => {
  const agent = await supportAgent(context);
  return {
    ...agent,
    tools: (agent.tools ?? []).map((tool) =>
      tool.name === 'lookup_order'
        ? {
            ...tool,
            run: async (args: unknown, ctx: Parameters<typeof tool.run>[1]) => {
              await realWait(ORDER_SERVICE_MS, undefined, { signal: ctx.signal });
              return tool.run(args as never, ctx);
            },
          }
        : tool,
    ),
  };
};
