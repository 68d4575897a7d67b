/**
 * The characters YAML 1.2 allows in a stream (§5.1, c-printable): tab, line
 * feed, carriage return, the printable ASCII range, NEL, and the rest of
 * Unicode but the C1 controls, lone surrogates, U+FFFE and U+FFFF. The yaml
 * library reads the others as text, so a NUL or an escape sequence would end up
 * in a scenario's name, a reply or a key; loopgate refuses the file instead,
 * naming where the character is.
 */
const NOT_PRINTABLE = /[^\t\n\r\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

/** The first character YAML does not allow: its offset (UTF-16 units) and what is wrong; undefined when there is none. */
export function unprintableProblem(text: string): { offset: number; message: string } | undefined {
  const found = NOT_PRINTABLE.exec(text);
  if (!found) return undefined;
  const code = found[0].codePointAt(0)!;
  const name = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  const kind = code < 0x20 || (code >= 0x7f && code <= 0x9f) ? 'a control character' : code >= 0xd800 && code <= 0xdfff ? 'a lone surrogate' : 'a noncharacter';
  return {
    offset: found.index,
    message: `${kind} (${name}) is not allowed in YAML (among the controls only tab, line feed and carriage return are); to mean it, escape it in a double-quoted string: "\\u${name.slice(2)}"`,
  };
}
