/** Fuzzing a user's own tools with a user's own invariant, through the same generators. */
import fc from 'fast-check';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { defineTool } from '../kernel/index.ts';
import { assertNoViolation, fuzzAgent } from './fuzz-agent.ts';
import { defineInvariant } from '../harness/invariants/index.ts';

function hotel() {
  const bookings: string[] = [];
  const tools = [
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
        return { booked: room };
      },
    }),
  ];
  const args = {
    search_rooms: fc.record({ city: fc.constant('Oslo') }),
    book_room: fc.record({ room: fc.constantFrom('A', 'B'), nights: fc.integer({ min: 1, max: 3 }) }),
  };
  return { tools, args };
}

describe('fuzzAgent', () => {
  it('runs your tools under the built-in properties and yours', async () => {
    const { tools, args } = hotel();
    const bookedOnceAtMost = defineInvariant({
      id: 'book-room-at-most-once-per-call',
      title: 'a booking call books once at most (while book_room stays STATEFUL)',
      check: (run) => {
        if (run.sideEffectLevels.get('book_room') !== 'STATEFUL') return undefined; // a generated override may make it retryable
        const bookingCalls = new Set(
          run.log.events
            .filter((e) => e.type === 'tool.started' && (e.payload as { name: string }).name === 'book_room')
            .map((e) => (e.payload as { callId: string }).callId),
        );
        for (const [callId, n] of run.executionsByCall) if (bookingCalls.has(callId) && n > 1) return `booking call ${callId} ran ${n} times`;
        return undefined;
      },
    });
    const result = await fuzzAgent({ tools, args, invariants: [bookedOnceAtMost], runs: 150, seed: 5 });
    expect(() => assertNoViolation(result)).not.toThrow();
    expect(result.invariants.map((p) => p.id)).toContain('book-room-at-most-once-per-call');
  });

  it('finds a violation of your invariant and shrinks it to a scenario over your tools', async () => {
    const { tools, args } = hotel();
    const neverBooks = defineInvariant({
      id: 'never-books',
      title: 'demo: no booking ever runs',
      check: (run) => ((run.executions.get('book_room') ?? 0) > 0 ? 'a room was booked' : undefined),
    });
    const result = await fuzzAgent({ tools, args, invariants: [neverBooks], builtIns: false, runs: 500, seed: 3 });
    expect(result.failure?.invariant.id).toBe('never-books');
    expect(result.failure!.scenario.agent).toBe('none');
    expect(result.failure!.scenario.provider.script).toHaveLength(1);
    expect(result.failure!.scenario.provider.script[0]!.tool_use?.map((c) => c.name)).toEqual(['book_room']);
    expect(() => assertNoViolation(result)).toThrow(
      /invariant never-books failed: a room was booked[\s\S]*name: "fuzz counterexample: never-books"[\s\S]*book_room/,
    );
  });

  it('refuses args for a tool it was not given, and invariant ids that are not kebab-case', () => {
    const { tools } = hotel();
    expect(() => fuzzAgent({ tools, args: { cancel_booking: fc.constant({}) } })).toThrow(/args for "cancel_booking", but no tool has that name/);
    expect(() => defineInvariant({ id: 'Not Kebab', title: '', check: () => undefined })).toThrow(/use lowercase letters, digits and dashes/);
  });
});
