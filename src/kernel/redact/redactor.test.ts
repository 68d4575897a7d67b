import { describe, expect, it } from 'vitest';
import { containsSecret, createRedactor, DEFAULT_SECRET_PATTERNS, REDACTED, redactDeep } from './index.ts';

const SECRETS = [
  'sk-ant-api03-abcdefghijklmnopqrstuvwxyz',
  'sk-proj-abcdefghijklmnopqrstuvwxyz012345',
  'Bearer abcdefghijklmnop.qrstuvwx',
  'AKIAABCDEFGHIJKLMNOP',
  'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
  'xoxb-1234567890-abcdef',
  '-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----',
];

describe('createRedactor', () => {
  it('redacts every default credential shape, alone and inside text', () => {
    const redact = createRedactor();
    for (const secret of SECRETS) {
      expect(redact(secret)).toBe(REDACTED);
      expect(redact(`before ${secret} after`)).toBe(`before ${REDACTED} after`);
    }
  });

  it('leaves text without secrets unchanged', () => {
    const redact = createRedactor();
    for (const text of ['', 'add', '{"sum":4}', 'sk-short', 'Bearer short', 'a task-list of ghp items']) expect(redact(text)).toBe(text);
  });

  it('gives the same result as running each pattern in turn (the one-scan pre-check changes nothing)', () => {
    const redact = createRedactor();
    const oneByOne = (text: string) => DEFAULT_SECRET_PATTERNS.reduce((out, p) => out.replace(new RegExp(p.source, p.flags), REDACTED), text);
    const texts = [SECRETS.join(' '), `${SECRETS[0]}${SECRETS[3]}`, 'nothing here', `x ${SECRETS[6]} y ${SECRETS[2]}`];
    for (const text of texts) expect(redact(text)).toBe(oneByOne(text));
  });

  it('redacts exact secrets, longest first', () => {
    const redact = createRedactor({ secrets: ['hunter2-secret', 'hunter2-secret-longer'], patterns: [] });
    expect(redact('pw hunter2-secret-longer and hunter2-secret')).toBe(`pw ${REDACTED} and ${REDACTED}`);
  });

  it('custom patterns with different flags or back-references still all apply', () => {
    const mixedFlags = createRedactor({ patterns: [/token-[a-z]+/g, /PASSWORD=\S+/gi] });
    expect(mixedFlags('token-abc password=xyz')).toBe(`${REDACTED} ${REDACTED}`);
    const backReference = createRedactor({ patterns: [/(["'])secret:.+?\1/g, /key-\d{4}/g] });
    expect(backReference(`"secret:abc" and key-1234`)).toBe(`${REDACTED} and ${REDACTED}`);
    const sameGroupName = createRedactor({ patterns: [/(?<v>sek-\d+)/g, /(?<v>tok-\d+)/g] });
    expect(sameGroupName('sek-1 tok-2')).toBe(`${REDACTED} ${REDACTED}`);
  });
});

describe('redactDeep', () => {
  it('redacts strings in keys and values at any depth, and copies', () => {
    const redact = createRedactor();
    const input = { a: [SECRETS[1], 1, null, { [SECRETS[3]!]: SECRETS[0] }], b: true };
    const out = redactDeep(input, redact);
    expect(out).toEqual({ a: [REDACTED, 1, null, { [REDACTED]: REDACTED }], b: true });
    expect(out).not.toBe(input);
  });
});

describe('exact secrets in their encoded forms', () => {
  const secret = 'p@ss/Word+2024!xyz';
  const redact = createRedactor({ secrets: [secret], patterns: [] });

  it('redacts the URL-encoded, \\u-escaped and base64 forms', () => {
    const encoded = [
      encodeURIComponent(secret),
      [...secret].map((c) => `\\u00${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join(''),
      Buffer.from(`user:${secret}`).toString('base64'),
      Buffer.from(`ab${secret}`).toString('base64url'),
    ];
    for (const form of encoded) {
      const out = redact(`x ${form} y`);
      expect(out, form).toContain(REDACTED);
      expect(containsSecret(out, secret), form).toBe(false);
    }
  });

  it('finds where each form is, sorted', () => {
    const text = `a ${secret} b ${encodeURIComponent(secret)} c`;
    const spans = redact.find!(text);
    expect(spans.map(([s, e]) => text.slice(s, e))).toEqual([secret, encodeURIComponent(secret)]);
  });
});

describe('a secret with characters outside ASCII, in its encoded forms', () => {
  const secrets = ['Pw~~>>??-9f8e7d6c-Ωmega', 'Größe-Passwort-2024', 'key-🔑-0f3a9c2e'];
  const escapeAll = (s: string) =>
    [...s].flatMap((c) => [...Array(c.length).keys()].map((i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`)).join('');
  const asciiOnly = (s: string) =>
    JSON.stringify(s)
      .slice(1, -1)
      .replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

  it('redacts it URL-encoded (its UTF-8 bytes, either case), \\u-escaped (Python ensure_ascii, every character) and base64', () => {
    for (const secret of secrets) {
      const redact = createRedactor({ secrets: [secret], patterns: [] });
      const forms = [
        encodeURIComponent(secret),
        encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
        asciiOnly(secret),
        escapeAll(secret),
        Buffer.from(`user:${secret}`).toString('base64'),
      ];
      for (const form of forms) {
        expect(containsSecret(`x ${form} y`, secret), `${secret}: ${form} is found`).toBe(true);
        const out = redact(`x ${form} y`);
        expect(out, `${secret}: ${form}`).toContain(REDACTED);
        expect(containsSecret(out, secret), `${secret}: ${form}`).toBe(false);
      }
    }
  });

  it('redacts a latin1 secret base64- and hex-encoded from its latin1 bytes (ü as FC)', () => {
    const secret = 'Schlüssel-2718-Ahorn';
    const redact = createRedactor({ secrets: [secret], patterns: [] });
    for (const pad of ['', 'a', 'ab']) {
      for (const form of [
        Buffer.from(`${pad}${secret}!`, 'latin1').toString('base64'),
        Buffer.from(`${pad}${secret}`, 'latin1').toString('base64url'),
        Buffer.from(secret, 'latin1').toString('hex'),
        Buffer.from(secret, 'latin1').toString('hex').toUpperCase(),
      ]) {
        expect(containsSecret(`x ${form} y`, secret), form).toBe(true);
        const out = redact(`x ${form} y`);
        expect(out, form).toContain(REDACTED);
        expect(containsSecret(out, secret), form).toBe(false);
      }
    }
    // A secret with a character beyond latin1 has no latin1 form to look for.
    expect(containsSecret(Buffer.from('Schlüssel-Ωmega-2718', 'latin1').toString('hex'), 'Schlüssel-Ωmega-2718')).toBe(false);
  });
});

describe('redactDeep keeps keys as data', () => {
  it('copies __proto__ and constructor as own keys, never as a prototype', () => {
    const input = JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":1},"a":"sk-proj-abcdefghijklmnopqrstuvwxyz012345"}');
    const out = redactDeep(input, createRedactor()) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__', 'constructor', 'a']);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toEqual({ polluted: true });
    expect(out.a).toBe(REDACTED);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
