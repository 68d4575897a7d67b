import { describe, expect, it } from 'vitest';
import { jsonForTerminal, printable, printableLines } from './terminal-text.ts';

const HOSTILE = 'a\u001b]0;title\u0007b\u001b[2Jc\u009b31md\u202eevil\u2066e\u200ff\u2028g\rh\u007f';

describe('terminal text', () => {
  it('shows every control a terminal would act on, bidi overrides included', () => {
    expect(printable(HOSTILE)).toBe('a\\x1b]0;title\\x07b\\x1b[2Jc\\x9b31md\\u202eevil\\u2066e\\u200ff\\u2028g\\x0dh\\x7f');
    expect(printable('line\nbreak\ttab')).toBe('line\\x0abreak\\x09tab');
  });

  it('keeps newlines and tabs when the text is meant to span lines', () => {
    expect(printableLines('one\n\ttwo\u001b[0m')).toBe('one\n\ttwo\\x1b[0m');
  });

  it('shows a lone surrogate as its escape (a terminal would print U+FFFD), and keeps pairs whole', () => {
    expect(printable('x \ud800 y \udc00 z 🙂')).toBe('x \\ud800 y \\udc00 z 🙂');
    expect(printableLines('a\n\udbff')).toBe('a\n\\udbff');
    const text = jsonForTerminal({ text: 'x \ud800 y' });
    expect(text).toBe('{"text":"x \\ud800 y"}');
    expect(JSON.parse(text)).toEqual({ text: 'x \ud800 y' });
  });

  it('leaves ordinary text, accents and emoji alone', () => {
    expect(printable('Café ✓ — 日本語 🙂')).toBe('Café ✓ — 日本語 🙂');
  });

  it('writes JSON whose value is unchanged and whose text holds no raw control', () => {
    const value = { text: HOSTILE, list: ['\u0085', 'ok'] };
    const text = jsonForTerminal(value, 2);
    expect(JSON.parse(text)).toEqual(value);
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f]/);
  });
});
