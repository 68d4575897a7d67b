/**
 * Text from data (model and user text, case ids, file names, error messages)
 * made safe to print to a terminal: every character that can drive it or
 * reorder what it shows is written out visibly instead — C0 controls (ESC, BEL,
 * CR, …), DEL, C1 controls (CSI, OSC as one byte, …), and the Unicode bidi
 * controls and line separators (U+202E RIGHT-TO-LEFT OVERRIDE and friends) —
 * and a lone surrogate, which a terminal would show as U+FFFD.
 */

/** Half of a surrogate pair, alone: not text, and a terminal shows it as U+FFFD — hiding what the data holds. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const ALL_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const CONTROLS_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** What JSON.stringify leaves as it is but a terminal would act on. */
const JSON_UNESCAPED_CONTROLS = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const shown = (c: string): string => {
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
};

/** One line: every control character visible, newlines and tabs included (`\x0a`, `\x09`). */
export function printable(text: string): string {
  return text.replace(ALL_CONTROLS, shown).replace(LONE_SURROGATE, shown);
}

/** Several lines: newlines and tabs kept, every other control character visible. */
export function printableLines(text: string): string {
  return text.replace(CONTROLS_BUT_LINES, shown).replace(LONE_SURROGATE, shown);
}

/** JSON for a terminal: the same JSON value, with the controls JSON.stringify leaves raw written as `\u` escapes. */
export function jsonForTerminal(value: unknown, indent?: number): string {
  const text = JSON.stringify(value, null, indent) ?? 'null';
  return text.replace(JSON_UNESCAPED_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
