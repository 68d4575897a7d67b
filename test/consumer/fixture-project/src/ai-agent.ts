/**
 * The same travel agent as the team runs it in production: on the Vercel AI
 * SDK, its tools written with `tool()` from `ai`. loopgate gates it in the AI
 * SDK's own `generateText` loop (loopgate.ai-sdk.config.ts): the tools below run
 * inside it, scripted and counted by the harness.
 */
import { tool } from 'ai';
import { aiSdkAgent } from 'loopgate/loops/ai-sdk';
import { z } from 'zod';

export const travelAiAgent = aiSdkAgent({
  system: 'You help travellers with their orders and seats.',
  tools: () => {
    const taken = new Set<string>(); // the reservation book: fresh for every case
    return {
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
    };
  },
  sideEffects: { reserve_seat: 'STATEFUL' },
});
