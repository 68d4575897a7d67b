/**
 * The same travel agent as a team on AI SDK 6 writes it: a `ToolLoopAgent`,
 * built from a model by a function production calls with its provider's model.
 * loopgate gates it as it ships (loopgate.tool-loop-agent.config.ts): its own
 * instructions, stopWhen and context, each turn through `agent.generate`.
 */
import { stepCountIs, tool, ToolLoopAgent, type LanguageModel } from 'ai';
import { z } from 'zod';

export function travelToolLoopAgent(model: LanguageModel) {
  const taken = new Set<string>(); // the reservation book: fresh for every agent built
  return new ToolLoopAgent({
    model,
    instructions: 'You help travellers with their orders and seats.',
    stopWhen: stepCountIs(4),
    tools: {
      lookup_order: tool({
        description: 'The status of an order.',
        inputSchema: z.object({ order_id: z.string() }),
        execute: async ({ order_id }) => ({ order_id, status: 'shipped' }),
      }),
      reserve_seat: tool({
        description: 'Reserves a seat on a flight.',
        inputSchema: z.object({ flight: z.string(), seat: z.string() }),
        execute: async ({ flight, seat }) => {
          const key = `${flight}/${seat}`;
          if (taken.has(key)) throw new Error(`${seat} on ${flight} is already taken`);
          taken.add(key);
          return { flight, seat, reserved: true };
        },
      }),
    },
  });
}
