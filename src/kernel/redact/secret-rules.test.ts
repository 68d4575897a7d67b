import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED } from './redactor.ts';
import { SECRET_RULES } from './secret-rules.ts';

/** One realistic sample per rule (made-up values in the real shapes), and text that must stay as it is. */
const SAMPLES: Readonly<Record<string, string>> = {
  'anthropic-api-key': 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz',
  'openai-api-key': 'sk-proj-abcdefghijklmnopqrstuvwxyz012345',
  'stripe-access-token': 'sk_live_4eC39HqLyjWDarjtT1zdp7dc',
  'gcp-api-key': 'AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW',
  'gcp-oauth-client-secret': 'GOCSPX-abcdefghijklmnopqrstuvwx12',
  jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
  'aws-access-key-id': 'AKIAABCDEFGHIJKLMNOP',
  'aws-secret-access-key': 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  'aws-session-token': 'aws_session_token = FwoGZXIvYXdzEXAMPLEtokenEXAMPLEtoken0123',
  'github-pat': 'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
  'github-fine-grained-pat': 'github_pat_11ABCDEFG0123456789_abcdefghijklmnop',
  'gitlab-pat': 'glpat-abcdefghij0123456789',
  'slack-token': 'xoxb-1234567890-abcdef',
  'slack-webhook-url': 'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX',
  'npm-access-token': 'npm_abcdefghijklmnopqrstuvwxyz0123456789',
  'sendgrid-api-token': 'SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG',
  'huggingface-access-token': 'hf_abcdefghijklmnopqrstuvwxyzABCDEFGH',
  'bearer-token': 'Bearer abcdefghijklmnop.qrstuvwx',
  'basic-auth': 'Basic dXNlcjpwYXNzd29yZDEyMzQ1Ng==',
  'url-credentials': 'postgres://app:s3cr3t-pa55@',
  'private-key': '-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----',
};

describe('the default secret rules', () => {
  it('have a sample each, and each sample is matched by its own rule, whole, and at least minLength long', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual(SECRET_RULES.map((r) => r.id).sort());
    for (const rule of SECRET_RULES) {
      const sample = SAMPLES[rule.id]!;
      const matches = [...sample.matchAll(rule.pattern)].map((m) => m[0]);
      expect(matches, rule.id).toEqual([sample]);
      expect(sample.length, rule.id).toBeGreaterThanOrEqual(rule.minLength);
    }
  });

  it('redact every sample inside text', () => {
    const redact = createRedactor();
    for (const [id, sample] of Object.entries(SAMPLES)) expect(redact(`before ${sample} after`), id).toBe(`before ${REDACTED} after`);
  });

  it('keep the rest of a connection URL, and redact an unterminated private key to the end', () => {
    const redact = createRedactor();
    expect(redact('DATABASE_URL=postgresql://admin:hunter2@db.internal:5432/shop')).toBe(`DATABASE_URL=${REDACTED}db.internal:5432/shop`);
    // A password loopgate already masked is shown as it is: the user can still tell which server.
    expect(redact('postgres://ops:****@db.internal/agents: connection refused')).toBe('postgres://ops:****@db.internal/agents: connection refused');
    expect(redact('key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA')).toBe(`key:\n${REDACTED}`);
  });

  it('redact a session token named by its header or its JSON key, whatever it opens with', () => {
    const redact = createRedactor();
    expect(redact('x-amz-security-token: AQoDYXdzEPT//////////wEXAMPLEtC\n')).toBe(`${REDACTED}\n`);
    expect(redact('{"sessionToken":"AQoDYXdzEPT//////////wEXAMPLEtC"}')).toBe(`{"${REDACTED}"}`);
  });

  it('leave ordinary text alone', () => {
    const redact = createRedactor();
    const plain = [
      'Your order ORD-1001 was refunded 120.',
      'see https://example.com/docs:intro and http://host:8080/path',
      'the task-list of sk items',
      'Bearer short',
      'mailto:ada@example.com',
      '{"order_id":"ORD-1002","amount":45.5}',
      // Code a coding agent reads: a credential's name beside an identifier, not a value (review of stop 65, MED-1).
      'const sessionToken = getSessionTokenFromEnvironment();',
      'return { sessionToken: sessionTokenFromTheRequest, region };',
      'session_token = load_session_token_from_keychain(profile)',
      'AWS_SESSION_TOKEN = getAwsSessionTokenFromEnvironment()',
    ];
    for (const text of plain) expect(redact(text)).toBe(text);
  });
});
