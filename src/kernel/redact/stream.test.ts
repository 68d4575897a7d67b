import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { containsSecret, createRedactor, REDACTED } from './index.ts';
import { exactSecretStream, streamRedactor } from './stream.ts';

const SECRET = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';

/** Pushes `pieces` through a stream redactor and returns what it let out, piece by piece. */
function stream(pieces: readonly string[], redact = createRedactor({ secrets: [SECRET] })): string[] {
  const s = streamRedactor(redact);
  return [...pieces.map((p) => s.push(p)), s.end()];
}

/** `text` cut at the given positions. */
function cutAt(text: string, cuts: readonly number[]): string[] {
  const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const c of at) {
    out.push(text.slice(from, c));
    from = c;
  }
  out.push(text.slice(from));
  return out;
}

describe('streamRedactor', () => {
  it('never lets a secret out in pieces, wherever the stream is cut', () => {
    const redact = createRedactor({ secrets: [SECRET] });
    const texts = fc.constantFrom(
      `My key is ${SECRET}, please check it.`,
      `${SECRET}${SECRET} twice`,
      `url: ${encodeURIComponent(`x ${SECRET}`)} and Bearer abcdefghijklmnop.qrstuvwx!`,
      `${'x'.repeat(600)} ${SECRET} ${'y'.repeat(300)}`,
      `-----BEGIN RSA PRIVATE KEY-----\n${'MIIE'.repeat(200)}\n-----END RSA PRIVATE KEY----- done`,
    );
    fc.assert(
      fc.property(texts, fc.array(fc.nat(), { maxLength: 12 }), (text, cuts) => {
        const joined = stream(cutAt(text, cuts), redact).join('');
        expect(containsSecret(joined, SECRET)).toBe(false);
        expect(joined).toBe(redact(text));
      }),
    );
  });

  it('holds back only a bounded tail: text far from any secret is let out as it comes', () => {
    const out = stream(['a'.repeat(1000), 'b'.repeat(1000)]);
    expect(out[0]!.length).toBeGreaterThan(500);
    expect(out.join('')).toBe(`${'a'.repeat(1000)}${'b'.repeat(1000)}`);
  });

  it('with a plain-function redactor, holds everything until the end', () => {
    const out = stream(['my key is sk_live_4eC39Hq', 'LyjWDarjtT1zdp7dc'], (t) => t.replaceAll(SECRET, REDACTED));
    expect(out).toEqual(['', '', `my key is ${REDACTED}`]);
  });

  it('with a plain-function redactor, holds everything until the end, however long', () => {
    const pad = 'x'.repeat(600);
    const out = stream([`${pad} my key is sk_live_4eC39Hq`, `LyjWDarjtT1zdp7dc ${pad}`], (t) => t.replaceAll(SECRET, REDACTED));
    expect(out).toEqual(['', '', `${pad} my key is ${REDACTED} ${pad}`]);
  });

  it('a per-piece redactor would leak the same stream (what the stream exists for)', () => {
    const redact = createRedactor({ secrets: [SECRET] });
    // Each chunk holds less than half the key: alone, none is a piece of it the redactor replaces.
    const pieces = ['my key is sk_live_4eC', '39HqLyjWDar', 'jtT1zdp7dc ok'];
    expect(pieces.map(redact).join('')).toContain(SECRET);
    expect(stream(pieces, redact).join('')).toBe(`my key is ${REDACTED} ok`);
  });
});

describe('exactSecretStream', () => {
  const KEY = 'wire-fake-key-7c1e93ab';
  const redact = createRedactor({ secrets: [KEY], patterns: [] });
  const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
  const hex = (text: string) => Buffer.from(text, 'utf8').toString('hex');
  const run = (pieces: readonly string[]) => {
    const s = exactSecretStream([KEY]);
    return [...pieces.map((p) => s.push(p)), s.end()];
  };

  it('never lets a form of the key out in pieces, wherever the stream is cut, and loses nothing else', () => {
    const texts = fc.constantFrom(
      `The key you pasted, ${KEY}, is now stored.`,
      `${KEY}${KEY} twice, then ${KEY.toUpperCase()} shouting`,
      `query=${encodeURIComponent(`x ${KEY}`)}&half=${KEY.slice(0, 9)}%${hex(KEY.slice(9, 10))}${KEY.slice(10)}`,
      `{"note":"revoke ${b64(KEY)} now","pad":"${b64(`ab${KEY}`)}"}`,
      `json: ${[...KEY].map((c) => `\\\\u00${hex(c)}`).join('')} and ${hex(KEY).toUpperCase()}`,
      `almost: ${KEY.slice(0, -1)}! and w and wire- and ${'%77'.repeat(3)}`,
    );
    fc.assert(
      fc.property(texts, fc.array(fc.nat(), { maxLength: 12 }), (text, cuts) => {
        const out = run(cutAt(text, cuts));
        const joined = out.join('');
        expect(containsSecret(joined, KEY)).toBe(false);
        expect(joined).toBe(redact(text));
      }),
    );
  });

  it('holds a key outside ASCII the same way, in every form, wherever the stream is cut', () => {
    const key = 'Größe-Passwort-🔑';
    const plain = createRedactor({ secrets: [key], patterns: [] });
    const units = (s: string) => [...Array(s.length).keys()].map((i) => `\\u${s.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');
    const texts = fc.constantFrom(
      `it is ${key}.`,
      `pw=${encodeURIComponent(key)}&x=1`,
      `{"pw":"${units(key)}"} and ${b64(`:${key}`)}`,
      `Grö and Gr%C3 and \\u0047 near-misses, then ${key}`,
      // ö and ß as their one latin1 byte each, as latin1 code URL-encodes them.
      `pw=Gr%F6%dfe-Passwort-${encodeURIComponent('🔑')}&x=1`,
    );
    fc.assert(
      fc.property(texts, fc.array(fc.nat(), { maxLength: 12 }), (text, cuts) => {
        const s = exactSecretStream([key]);
        const joined = [...cutAt(text, cuts).map((p) => s.push(p)), s.end()].join('');
        expect(containsSecret(joined, key)).toBe(false);
        expect(joined).toBe(plain(text));
      }),
    );
  });

  it('lets text that cannot begin the key out as it comes, holding back only a tail that may', () => {
    expect(run(['The answer is 42.', ' Nothing more.'])).toEqual(['The answer is 42.', ' Nothing more.', '']);
    // "wi" may begin the key: held until the next piece shows it does not.
    expect(run(['Ask the wi', 'zard.'])).toEqual(['Ask the ', 'wizard.', '']);
    expect(run(['my key: wire-fake', '-key-7c1e93ab.'])).toEqual(['my key: ', `${REDACTED}.`, '']);
  });
});
