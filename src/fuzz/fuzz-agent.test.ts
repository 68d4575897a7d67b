/** Fuzzing a user's own tools with a user's own invariant, through the same generators. */
import fc from 'fast-check';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { defineTool } from '../kernel/index.ts';
import { assertNoViolation, fuzzAgent } from './fuzz-agent.ts';
import { defineInvariant } from '../harness/invariants/index.ts';

let hotels = 0;

/** A hotel agent: each call of the factory opens a fresh hotel (no bookings yet). */
function hotel() {
  const agent = () => ({ tools: hotelTools(`hotel-${++hotels}`) });
  const args = {
    search_rooms: fc.record({ city: fc.constant('Oslo') }),
    book_room: fc.record({ room: fc.constantFrom('A', 'B'), nights: fc.integer({ min: 1, max: 3 }) }),
  };
  return { agent, args };
}

function hotelTools(hotelId: string) {
  const bookings: string[] = [];
  return [
    defineTool({
      name: 'search_rooms',
      description: 'Find free rooms.',
      input: z.object({ city: z.string() }),
      sideEffect: 'NONE',
      parallelSafe: true,
      run: () => ({ rooms: ['A', 'B'] }),
    }),
    defineTool({
      name: 'book_room',
      description: 'Book a room.',
      input: z.object({ room: z.string(), nights: z.number().int().positive() }),
      sideEffect: 'STATEFUL',
      run: ({ room }: { room: string }) => {
        bookings.push(room);
        return { booked: room, hotel: hotelId };
      },
    }),
  ];
}

describe('fuzzAgent', () => {
  it("runs your tools under the registry's invariants and yours", async () => {
    const { agent, args } = hotel();
    const bookedOnceAtMost = defineInvariant({
      id: 'book-room-at-most-once-per-call',
      title: 'a booking call books once at most (while book_room stays STATEFUL)',
      check: (run) => {
        const bookingCalls = new Set(
          run.log.events
            .filter((e) => e.type === 'tool.started' && (e.payload as { name: string }).name === 'book_room')
            .map((e) => (e.payload as { callId: string }).callId),
        );
        for (const [callId, n] of run.executionsByCall) if (bookingCalls.has(callId) && n > 1) return `booking call ${callId} ran ${n} times`;
        return undefined;
      },
    });
    const result = await fuzzAgent({ agent, args, invariants: [bookedOnceAtMost], runs: 150, seed: 5 });
    expect(() => assertNoViolation(result)).not.toThrow();
    expect(result.invariants.map((p) => p.id)).toContain('book-room-at-most-once-per-call');
  });

  it("builds a fresh agent for every run: a stateful tool never sees another run's bookings", async () => {
    const { agent, args } = hotel();
    // Across runs: a hotel that served one run must never serve another.
    const servedBy = new Map<string, object>();
    const freshHotel = defineInvariant({
      id: 'fresh-hotel',
      title: 'no two runs book in the same hotel',
      check: (run) => {
        for (const e of run.log.events) {
          const hotel = e.type === 'tool.result' ? (e.payload as { output?: { hotel?: string } }).output?.hotel : undefined;
          if (hotel === undefined) continue;
          const first = servedBy.get(hotel) ?? run;
          servedBy.set(hotel, first);
          if (first !== run) return `${hotel} served an earlier run too: its bookings leaked into this one`;
        }
        return undefined;
      },
    });
    const result = await fuzzAgent({ agent, args, invariants: [freshHotel], builtIns: false, runs: 200, seed: 9 });
    expect(result.failure?.message).toBeUndefined();
    // The check can fail: one hotel shared by every run leaks bookings from run to run.
    const shared = hotelTools('the-only-hotel');
    const leaky = await fuzzAgent({ agent: () => ({ tools: shared }), args, invariants: [freshHotel], builtIns: false, runs: 200, seed: 9 });
    expect(leaky.failure?.invariant.id).toBe('fresh-hotel');
  });

  it('finds a violation of your invariant and shrinks it to a scenario over your tools', async () => {
    const { agent, args } = hotel();
    const neverBooks = defineInvariant({
      id: 'never-books',
      title: 'demo: no booking ever runs',
      check: (run) => ((run.executions.get('book_room') ?? 0) > 0 ? 'a room was booked' : undefined),
    });
    const result = await fuzzAgent({ agent, args, invariants: [neverBooks], builtIns: false, runs: 500, seed: 3 });
    expect(result.failure?.invariant.id).toBe('never-books');
    expect(result.failure!.scenario.agent).toBe('agent-under-fuzz');
    expect(result.failure!.scenario.provider.script).toHaveLength(1);
    expect(result.failure!.scenario.provider.script[0]!.tool_use?.map((c) => c.name)).toEqual(['book_room']);
    expect(() => assertNoViolation(result)).toThrow(
      /invariant never-books failed: a room was booked[\s\S]*name: "fuzz counterexample: never-books"[\s\S]*book_room/,
    );
  });

  it('refuses args for a tool the agent does not have, and invariant ids that are not kebab-case', async () => {
    const { agent } = hotel();
    await expect(fuzzAgent({ agent, args: { cancel_booking: fc.constant({}) } })).rejects.toThrow(
      /args for "cancel_booking", but agent agent-under-fuzz has no tool of that name/,
    );
    await expect(fuzzAgent({ agent, args: { book_rooms: fc.constant({}) } })).rejects.toThrow(
      'fuzz args for "book_rooms", but agent agent-under-fuzz has no tool of that name; did you mean "book_room"? (it has: search_rooms, book_room)',
    );
    expect(() => defineInvariant({ id: 'Not Kebab', title: '', check: () => undefined })).toThrow(/use lowercase letters, digits and dashes/);
  });
});
