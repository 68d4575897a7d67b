/**
 * How much input loopgate reads before refusing it. Each limit is far above any
 * real file of its kind, and low enough that a hostile or mistaken file costs
 * seconds and megabytes, not minutes and gigabytes. YAML's own limits (a
 * scenario file or a host config: its bytes, depth and aliases) are in
 * src/yaml/limits.ts.
 */
const MiB = 1024 * 1024;

export const INPUT_LIMITS = {
  /** A baseline file. */
  baselineBytes: 64 * MiB,
  /** A results.json (merge-reports, or given as a baseline). */
  resultsBytes: 256 * MiB,
  /** A contract recording or a recorded response body (decode). */
  recordingBytes: 256 * MiB,
  /** An events file (replay of a .json / .jsonl file). */
  eventsBytes: 256 * MiB,
} as const;

export function formatBytes(bytes: number): string {
  if (bytes >= MiB && bytes % MiB === 0) return `${bytes / MiB} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
