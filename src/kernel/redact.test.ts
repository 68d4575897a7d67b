import { describe, expect, it } from 'vitest';
import { createRedactor, DEFAULT_SECRET_PATTERNS, REDACTED, redactDeep } from './redact.ts';

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
