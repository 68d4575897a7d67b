/** Small order statistics for benchmark samples. */

export function median(samples: readonly number[]): number {
  return quantile(samples, 0.5);
}

/** Linear-interpolated quantile (q in [0, 1]). */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) throw new Error('quantile of no samples');
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

export interface Summary {
  readonly samples: number;
  readonly median: number;
  readonly p10: number;
  readonly p90: number;
  readonly min: number;
}

export function summarize(samples: readonly number[]): Summary {
  return {
    samples: samples.length,
    median: round(median(samples)),
    p10: round(quantile(samples, 0.1)),
    p90: round(quantile(samples, 0.9)),
    min: round(Math.min(...samples)),
  };
}

/** Three significant decimals are plenty for µs and ms figures. */
export function round(n: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
