/**
 * How deep a YAML text nests its flow collections (`[`, `{`), read with the
 * yaml lexer before the text is parsed. yaml's composer recurses once per
 * level and overflows the stack at a few thousand; and the parser takes
 * seconds over a million brackets. A text past the limit is refused after
 * lexing up to the first bracket past it. The lexer knows quoted scalars,
 * block scalars and comments, so a `[` in text is never counted. Block nesting
 * costs indentation, or a `- ` per level: what passes here and still overflows
 * the composer is caught by loadYaml and told the same way.
 */
import { Lexer } from 'yaml';
import { depthMessage } from './limits.ts';

/** The lexer's own marks, not in the text: a document start, a flow's end, "a scalar follows". */
const DOCUMENT = '\u0002';
const FLOW_END = '\u0018';
const SCALAR = '\u001f';

/** The first bracket past the limit: its offset in the text, and what is wrong. */
export function flowDepthProblem(text: string, limit: number): { offset: number; message: string } | undefined {
  // Cheap first: too few brackets to nest past the limit, whatever they are.
  let brackets = 0;
  for (let i = 0; i < text.length && brackets <= limit; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) brackets++;
  }
  if (brackets <= limit) return undefined;
  let depth = 0;
  let offset = 0;
  let scalar = false;
  for (const token of new Lexer().lex(text)) {
    if (token === DOCUMENT || token === FLOW_END) continue;
    if (token === SCALAR) {
      scalar = true;
      continue;
    }
    if (!scalar && (token === '[' || token === '{') && ++depth > limit) return { offset, message: depthMessage(limit) };
    if (!scalar && (token === ']' || token === '}')) depth = Math.max(0, depth - 1);
    scalar = false;
    offset += token.length;
  }
  return undefined;
}
