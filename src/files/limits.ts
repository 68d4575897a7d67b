/**
 * How much input loopgate reads before refusing it. Each limit is far above any
 * real file of its kind, and low enough that a hostile or mistaken file costs
 * seconds and megabytes, not minutes and gigabytes.
 */
const MiB = 1024 * 1024;

export const INPUT_LIMITS = {
  /** A scenario file or a host config (YAML). */
  yamlBytes: 4 * MiB,
  /**
   * Nodes a YAML document may have once its aliases are expanded (every alias
   * counts the whole node it stands for, again). Counted before the document
   * is turned into data, so an alias bomb is refused before it grows.
   */
  yamlExpandedNodes: 100_000,
  /** Characters of scalar text a YAML document may hold once its aliases are expanded. */
  yamlExpandedChars: 16 * MiB,
  /** Nesting depth of a YAML document. */
  yamlDepth: 200,
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
