/**
 * A consumer's own agent, written against the published package: two tools, one
 * of them STATEFUL with state of its own, built fresh by the factory for every
 * case and fuzz run.
 */
import { defineTool, ToolFailure, type AgentFactory, type AnyToolDeclaration } from 'loopgate';
import { z } from 'zod';

export const lookupOrder = defineTool({
  name: 'lookup_order',
  description: 'The status of an order.',
  input: z.object({ order_id: z.string() }),
  sideEffect: 'NONE',
  run: ({ order_id }) => ({ order_id, status: 'shipped' }),
});

/** A reservation book: a seat can be taken once. */
export function reserveSeat(taken: Set<string>): AnyToolDeclaration {
  return defineTool({
    name: 'reserve_seat',
    description: 'Reserves a seat on a flight.',
    input: z.object({ flight: z.string(), seat: z.string() }),
    sideEffect: 'STATEFUL',
    timeoutMs: 5_000,
    run: ({ flight, seat }) => {
      const key = `${flight}/${seat}`;
      if (taken.has(key)) throw new ToolFailure('SEAT_TAKEN', `${seat} on ${flight} is already taken`, { suggestion: 'offer another seat' });
      taken.add(key);
      return { flight, seat, reserved: true };
    },
  });
}

export const travelAgent: AgentFactory = () => ({
  system: 'You help travellers with their orders and seats.',
  tools: [lookupOrder, reserveSeat(new Set())],
});
