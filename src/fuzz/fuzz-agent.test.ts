/** Fuzzing a user's own tools with a user's own invariant, through the same generators. */
import fc from 'fast-check';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { defineTool } from '../kernel/index.ts';
import { assertNoViolation, fuzzAgent, fuzzTools } from './fuzz-agent.ts';
import { runFuzz } from './run-fuzz.ts';
import { INVARIANTS, defineInvariant, type Invariant } from '../harness/invariants/index.ts';

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
  it("draws a tool's arguments from its input schema when fuzz.args says nothing: most are ones it accepts, so its body runs (outside probe 27, F6)", () => {
    const refund = defineTool({
      name: 'issue_refund',
      description: 'Refund an order.',
      input: z.object({
        order_id: z.string().regex(/^ORD-\d{4}$/),
        amount: z.number().positive().max(500),
        reason: z.enum(['broken', 'late', 'other']),
        note: z.string().max(40).optional(),
        items: z.array(z.object({ sku: z.string(), qty: z.number().int().min(1) })).max(3),
      }),
      sideEffect: 'STATEFUL',
      run: () => 'refunded',
    });
    const [tool] = fuzzTools([refund]);
    const drawn = fc.sample(tool!.args, { numRuns: 300, seed: 7 });
    const valid = drawn.filter((args) => refund.input.safeParse(args).success);
    // A team's refund is run with arguments its schema accepts — its body, not only its refusal, is fuzzed.
    expect(valid.length).toBeGreaterThan(200);
    expect(new Set(valid.map((args) => (args as { reason: string }).reason))).toEqual(new Set(['broken', 'late', 'other']));
    expect(valid.some((args) => (args as { items: unknown[] }).items.length > 0)).toBe(true);
    // The old defaults stay in the mix: no arguments, and text that is not JSON.
    expect(drawn.some((args) => JSON.stringify(args) === '{}')).toBe(true);
    expect(drawn).toContain('not json');
    // A tool whose schema JSON Schema cannot state (a custom check) keeps the old defaults.
    const odd = defineTool({ name: 'odd', description: 'Odd.', input: z.custom<string>((t) => typeof t === 'string'), sideEffect: 'NONE', run: () => 'ok' });
    expect(new Set(fc.sample(fuzzTools([odd])[0]!.args, { numRuns: 50, seed: 7 }).map((a) => JSON.stringify(a)))).toEqual(new Set(['{}', '"not json"']));
    // The reports name only such a tool as one that got no arguments (outside probe 29, F5: they named every tool without fuzz.args).
    expect(fuzzTools([refund, odd]).map((t) => `${t.name} ${t.undrawn ?? false}`)).toEqual(['issue_refund false', 'odd true']);
  });

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

  it('names the agent as your config does, so `loopgate run FILE` replays the counterexample', async () => {
    const { agent, args } = hotel();
    const neverBooks = defineInvariant({
      id: 'never-books',
      title: 'demo: no booking ever runs',
      check: (run) => ((run.executions.get('book_room') ?? 0) > 0 ? 'a room was booked' : undefined),
    });
    const result = await fuzzAgent({ agent, name: 'hotel', args, invariants: [neverBooks], builtIns: false, runs: 500, seed: 3 });
    expect(result.failure!.scenario.agent).toBe('hotel');
    expect(() => assertNoViolation(result)).toThrow(
      /Reproduce: loopgate run <this file> \(with agents: \{ hotel \} in loopgate\.config\.ts and your invariants\)[\s\S]*\nagent: hotel\n/,
    );
    await expect(fuzzAgent({ agent, name: 'not a name', args, runs: 5, seed: 1 })).rejects.toThrow(/^fuzz: name: "not a name" is not an agent name/);
  });

  it('refuses options that would check nothing or could not be replayed, each named, before any case runs', async () => {
    const { agent, args } = hotel();
    const escaped = (value: unknown) => (typeof value === 'string' ? `"${value}"` : String(value)).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const refused = async (options: Record<string, unknown>, message: RegExp) => {
      let ran = 0;
      const counting = () => {
        ran++;
        return agent();
      };
      await expect(fuzzAgent({ agent: counting, args, ...options } as Parameters<typeof fuzzAgent>[0])).rejects.toThrow(message);
      expect(ran, `a case ran before ${JSON.stringify(options)} was refused`).toBeLessThanOrEqual(2); // built twice to read its tools and check a second build declares the same (probe 17, F5)
    };
    // runs: 0, negative or NaN checked nothing and passed assertNoViolation; 2.5 ran until a failure (4,508 runs).
    for (const runs of [0, -3, 2.5, Number.NaN, 1e99, '5'])
      await refused({ runs, seed: 1 }, new RegExp(`^fuzz: runs: expected an integer from 1 to 10000000, got ${escaped(runs)}$`));
    // A seed fast-check reads some other way cannot be replayed as printed.
    for (const seed of [-1, 1.5, Number.NaN, 2 ** 40, '7'])
      await refused({ runs: 5, seed }, new RegExp(`^fuzz: seed: expected an integer from 0 to 4294967295, got ${escaped(seed)}$`));
    for (const timeLimitMs of [0, -5, Number.NaN, 'soon']) await refused({ timeLimitMs }, /^fuzz: timeLimitMs: expected a positive number of milliseconds/);
    await refused({ runs: 5, seed: 1, path: 'x:y' }, /^fuzz: path: expected fast-check's path, numbers separated by colons \(e\.g\. 41:2:0\), got "x:y"/);
    await refused({ runs: 5, path: '1:0' }, /^fuzz: path needs the seed it was found with/);
    await refused(
      { runs: 5, seed: 1, args: { ...args, book_room: { room: 'A', nights: 1 } } },
      /^fuzz args for "book_room": expected a fast-check arbitrary \(fc\.record\(…\), fc\.constant\(…\)\), got an object/,
    );
  });

  it('refuses invariant lists with a repeated id or an entry that is no invariant', async () => {
    const { agent, args } = hotel();
    const mine = defineInvariant({ id: 'never-books', title: 'no booking', check: () => undefined });
    await expect(fuzzAgent({ agent, args, runs: 5, seed: 1, invariants: [mine, mine] })).rejects.toThrow(
      /^fuzz: invariants: two invariants have the id "never-books"/,
    );
    const clash = defineInvariant({ id: 'invariant-12-nothing-throws', title: 'mine', check: () => undefined });
    await expect(fuzzAgent({ agent, args, runs: 5, seed: 1, invariants: [clash] })).rejects.toThrow(
      /^fuzz: invariants: two invariants have the id "invariant-12-nothing-throws" \(one of loopgate's\)/,
    );
    await expect(fuzzAgent({ agent, args, runs: 5, seed: 1, invariants: [{ id: 'x', title: 'y' } as unknown as Invariant] })).rejects.toThrow(
      /^fuzz: invariants\[0\]: expected an invariant: defineInvariant\(\{ id, title, check\(run\) \}\)/,
    );
    await expect(runFuzz({ runs: 5, seed: 1, invariants: [...INVARIANTS, INVARIANTS[0]!] })).rejects.toThrow(
      /two invariants have the id "invariant-12-nothing-throws"/,
    );
  });

  it('reports a verdict that is neither undefined nor a sentence as what it is', async () => {
    const { agent, args } = hotel();
    for (const [value, said] of [
      [42, 'returned 42'],
      ['', 'returned an empty string'],
      [null, 'returned null'],
    ] as const) {
      const odd = defineInvariant({ id: 'odd-verdict', title: 'odd', check: () => value as unknown as string });
      const result = await fuzzAgent({ agent, args, runs: 3, seed: 1, builtIns: false, invariants: [odd] });
      expect(result.failure?.message).toMatch(
        new RegExp(`^the check ${said}: return undefined when the invariant holds, a sentence saying what went wrong when it does not`),
      );
    }
  });
});
