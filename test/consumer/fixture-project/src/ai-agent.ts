/**
 * The same travel agent as the team runs it in production: on the Vercel AI
 * SDK, its tools written with `tool()` from `ai`. loopgate gates it in the AI
 * SDK's own `generateText` loop (loopgate.ai-sdk.config.ts): the tools below run
 * inside it, scripted and counted by the harness.
 */
import { tool } from 'ai';
import { aiSdkAgent } from 'loopgate/loops/ai-sdk';
import { z } from 'zod';

/** The travel agent's tools, with a fresh reservation book: built per case, and by the ToolLoopAgent of src/tool-loop-agent.ts. */
export function travelTools() {
  const taken = new Set<string>(); // the reservation book
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
}

export const travelAiAgent = aiSdkAgent({
  system: 'You help travellers with their orders and seats.',
  tools: travelTools,
  sideEffects: { reserve_seat: 'STATEFUL' },
});
