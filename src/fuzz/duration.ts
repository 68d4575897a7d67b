/** Durations people type: `500ms`, `30s`, `5m`, `1h`, `1.5m`. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text.trim());
  if (!match) return undefined;
  const n = Number(match[1]);
  const ms = n * { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[match[2] as 'ms' | 's' | 'm' | 'h'];
  return ms > 0 && Number.isFinite(ms) ? Math.round(ms) : undefined;
}
