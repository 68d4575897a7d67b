/**
 * How much YAML loopgate takes in (scenario files, host configs). Far above any
 * real file; low enough that a hostile or mistaken one costs milliseconds and
 * megabytes. Aliases are counted as what they stand for: a 400 KB file of nested
 * aliases would otherwise expand to gigabytes.
 */
export const YAML_LIMITS = {
  /** Bytes of one file. */
  bytes: 4 * 1024 * 1024,
  /** Nodes (mappings, sequences, scalars) once every alias is expanded — each alias counts its whole node again. */
  expandedNodes: 100_000,
  /** Characters of scalar text once every alias is expanded. */
  expandedChars: 16 * 1024 * 1024,
  /** Nesting depth. */
  depth: 500,
} as const;

/** What a text nested past `limit` is told, wherever it is found. */
export function depthMessage(limit: number): string {
  return `nested deeper than ${limit} levels`;
}
