/**
 * A consumer's own agent code, written against the published package: two tools,
 * one of them STATEFUL with state of its own. Type-checked under `strict` (with
 * loopgate's declarations checked too: skipLibCheck is off).
 */
import { AgentHost, defineTool, MemoryEventStore, ToolFailure, type AnyToolDeclaration, type EventStore, type Scenario } from 'loopgate';
import { describeScenarios } from 'loopgate/vitest';
import { z } from 'zod';

export const lookupOrder = defineTool({
  name: 'lookup_order',
  description: 'The status of an order.',
  input: z.object({ order_id: z.string() }),
  sideEffect: 'NONE',
  run: ({ order_id }) => ({ order_id, status: 'shipped' }),
});

/** A fresh reservation book per agent: a seat can be taken once. */
export function reserveSeat(): AnyToolDeclaration {
  const taken = new Set<string>();
  return defineTool({
    name: 'reserve_seat',
    description: 'Reserves a seat on a flight.',
    input: z.object({ flight: z.string(), seat: z.string() }),
    sideEffect: 'STATEFUL',
    run: ({ flight, seat }) => {
      const key = `${flight}/${seat}`;
      if (taken.has(key)) throw new ToolFailure('SEAT_TAKEN', `${seat} on ${flight} is already taken`, { suggestion: 'offer another seat' });
      taken.add(key);
      return { flight, seat, reserved: true };
    },
  });
}

export const tools: readonly AnyToolDeclaration[] = [lookupOrder, reserveSeat()];
export const store: EventStore = new MemoryEventStore();
export const hostClass: typeof AgentHost = AgentHost;
export const describeMine: typeof describeScenarios = describeScenarios;

// The declarations are precise, not `any`: each misuse below must be a type error
// (an unused @ts-expect-error fails the check).
defineTool({
  name: 'bad_level',
  description: 'x',
  input: z.object({}),
  // @ts-expect-error: not a side-effect level
  sideEffect: 'SOMETIMES',
  run: () => ({}),
});
defineTool({
  name: 'bad_argument',
  description: 'x',
  input: z.object({ seat: z.string() }),
  sideEffect: 'NONE',
  // @ts-expect-error: `row` is not in the input schema
  run: ({ row }) => ({ row }),
});
// @ts-expect-error: not a whole scenario (no name)
export const nameless: Scenario = { agent: 'none' };
