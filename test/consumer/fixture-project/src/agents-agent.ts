/**
 * The same travel agent as a team on OpenAI Agents writes it: `new Agent({ … })`
 * with `tool()` from `@openai/agents`, built from a model by a function
 * production calls with its provider's model. loopgate gates it as it ships
 * (loopgate.openai-agent.config.ts): each turn through the Agents `run()`.
 */
import { Agent, tool, type Model } from '@openai/agents';
import { z } from 'zod';

export function travelAgentsAgent(model: Model) {
  const taken = new Set<string>(); // a fresh reservation book for every agent built
  return new Agent({
    name: 'travel',
    model,
    instructions: 'You help travellers with their orders and seats.',
    tools: [
      tool({
        name: 'lookup_order',
        description: 'The status of an order.',
        parameters: z.object({ order_id: z.string() }),
        execute: async ({ order_id }) => ({ order_id, status: 'shipped' }),
      }),
      tool({
        name: 'reserve_seat',
        description: 'Reserves a seat on a flight.',
        parameters: z.object({ flight: z.string(), seat: z.string() }),
        errorFunction: (_context, error) => `not reserved: ${(error as Error).message}`,
        execute: async ({ flight, seat }) => {
          const key = `${flight}/${seat}`;
          if (taken.has(key)) throw new Error(`${seat} on ${flight} is already taken`);
          taken.add(key);
          return { flight, seat, reserved: true };
        },
      }),
    ],
  });
}
