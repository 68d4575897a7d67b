/**
 * Runs contenders interleaved: each round runs every contender once (in a rotated
 * order), so drift in the machine (other load, thermal, GC pressure) spreads over
 * all of them instead of landing on whichever ran last.
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

/** Per contender: one sample (µs per step) per round. */
export async function interleave(contenders: readonly Contender[], options: InterleaveOptions): Promise<Map<string, number[]>> {
  const samples = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
  for (let round = 0; round < options.warmupRounds + options.rounds; round++) {
    for (let k = 0; k < contenders.length; k++) {
      const contender = contenders[(round + k) % contenders.length]!;
      let steps = 0;
      const start = process.hrtime.bigint();
      for (let i = 0; i < options.batch; i++) steps += await contender.run();
      const elapsedUs = Number(process.hrtime.bigint() - start) / 1_000;
      if (round >= options.warmupRounds) samples.get(contender.name)!.push(elapsedUs / steps);
    }
  }
  return samples;
}
