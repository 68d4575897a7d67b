/**
 * Runs contenders interleaved: each round runs every contender once (in a rotated
 * order), so drift in the machine (other load, thermal, GC pressure) spreads over
 * all of them instead of landing on whichever ran last. Every other cycle of
 * rotations runs in reverse, so each contender follows each other one equally
 * often: the garbage a heavy contender leaves (the AI SDK's) is collected during
 * whoever runs next, and with rotation alone, of three contenders A B C, A would
 * follow C twice as often as B does (an A/B's base would pay for it).
 *
 * Each sample records wall time and the process's CPU time. On a shared machine
 * wall time also counts the time other processes held the CPU; CPU time does not,
 * but it counts V8's garbage-collector threads too, so it can exceed wall time.
 */

export interface Contender {
  readonly name: string;
  /** One measured unit of work; returns how many steps it ran (for per-step figures). */
  run(): Promise<number>;
}

export interface InterleaveOptions {
  readonly warmupRounds: number;
  readonly rounds: number;
  /** Units of work per contender per round; a sample is their mean. */
  readonly batch: number;
}

export interface Samples {
  /** µs of wall time per step, one per round. */
  readonly wall: number[];
  /** µs of CPU time (user + system) per step, one per round. */
  readonly cpu: number[];
}

/** Times `work` (which returns a step count): µs of wall and CPU time per step. */
export async function timed(work: () => Promise<number>): Promise<{ wall: number; cpu: number }> {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  const steps = await work();
  const wallUs = Number(process.hrtime.bigint() - start) / 1_000;
  const used = process.cpuUsage(cpu);
  return { wall: wallUs / steps, cpu: (used.user + used.system) / steps };
}

/** Per contender: one sample per measured round. */
export async function interleave(contenders: readonly Contender[], options: InterleaveOptions): Promise<Map<string, Samples>> {
  const samples = new Map<string, Samples>(contenders.map((c) => [c.name, { wall: [], cpu: [] }]));
  for (let round = 0; round < options.warmupRounds + options.rounds; round++) {
    const n = contenders.length;
    const reversed = Math.floor(round / n) % 2 === 1;
    for (let k = 0; k < n; k++) {
      const contender = contenders[(round + (reversed ? n - 1 - k : k)) % n]!;
      const sample = await timed(async () => {
        let steps = 0;
        for (let i = 0; i < options.batch; i++) steps += await contender.run();
        return steps;
      });
      if (round >= options.warmupRounds) {
        samples.get(contender.name)!.wall.push(sample.wall);
        samples.get(contender.name)!.cpu.push(sample.cpu);
      }
    }
  }
  return samples;
}
