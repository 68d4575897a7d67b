/**
 * Which of `count` items a check that costs as much as the log is long looks at: all of them up to `max`; past that,
 * `max` spread over the run — the first and last quarter of `max` from each end, the rest evenly between — so a
 * long conversation (thousands of turns, each request carrying the whole history) is checked in time linear in its
 * length, its beginning, its end and every stretch between sampled.
 */
export const SPREAD_MAX = 200;

export function spread(count: number, max = SPREAD_MAX): number[] {
  if (count <= max) return Array.from({ length: count }, (_, i) => i);
  const edge = Math.floor(max / 4);
  const middle = max - 2 * edge;
  const out = new Set<number>();
  for (let i = 0; i < edge; i++) {
    out.add(i);
    out.add(count - 1 - i);
  }
  const span = count - 2 * edge;
  for (let k = 0; k < middle; k++) out.add(edge + Math.floor(((k + 0.5) * span) / middle));
  return [...out].sort((a, b) => a - b);
}
