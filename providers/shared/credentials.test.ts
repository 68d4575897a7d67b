import { describe, expect, it } from 'vitest';
import { reply, transportError } from '../fake/results.ts';
import { withoutCredentials } from './credentials.ts';

const KEY = 'sk-proj-4f9a1c7e2b8d6053';

describe('withoutCredentials', () => {
  it('returns a result that holds no credential as it is', () => {
    const result = reply('The capital of France is Paris.');
    expect(withoutCredentials(result, [KEY])).toBe(result);
    expect(withoutCredentials(result, [])).toBe(result);
  });

  it('redacts the key a provider quoted, literal or encoded, and nothing else', () => {
    const quoted = transportError('auth', {
      status: 401,
      message: `Invalid API key provided: ${KEY}; sent ${Buffer.from(`Bearer ${KEY}`).toString('base64')}`,
    });
    const out = withoutCredentials(quoted, [KEY]);
    expect(JSON.stringify(out)).not.toContain(KEY);
    expect(JSON.stringify(out)).not.toContain(Buffer.from(KEY).toString('base64').slice(4, 16));
    expect(out).toMatchObject({ type: 'transport_error', kind: 'auth', status: 401, message: expect.stringContaining('Invalid API key provided: [REDACTED]') });
  });
});
