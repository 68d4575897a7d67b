/**
 * Where a key of the config object sits in the config file's source, found by
 * reading the text: each key of the path in turn (`prices`, then `models`,
 * then `gpt-4o`, then `input`), as a property name — bare or quoted, followed
 * by a colon — after the previous one. A courtesy for error messages: a value
 * built elsewhere (imported, computed) is not found, and then the message has
 * no line.
 */

/** The 1-based line of the last key of `path`, or undefined. */
export function lineOfKey(source: string, path: readonly string[]): number | undefined {
  let from = 0;
  let at: number | undefined;
  for (const key of path) {
    const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const pattern = new RegExp(`(^|[\\s{,])(?:${escaped}|'${escaped}'|"${escaped}")\\s*:`, 'g');
    pattern.lastIndex = from;
    const match = pattern.exec(source);
    if (!match) return at === undefined ? undefined : lineAt(source, at);
    at = match.index + match[1]!.length;
    from = at + key.length;
  }
  return at === undefined ? undefined : lineAt(source, at);
}

function lineAt(source: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (source.charCodeAt(i) === 10) line++;
  return line;
}
