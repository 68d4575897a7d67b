/**
 * An agent may declare up to 256 secrets (MAX_SECRETS), and the production host
 * serves it: the host built from a config passed the checked build's secrets
 * again with its own keys, the list held each twice, and 130 were refused as
 * "261 secrets" at every conversation — after the host had started (review of
 * stop 66, HIGH-1). Through the gate's production host, as a scenario runs.
 */
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/harness/scenario/load.ts';
import { runScenario } from '../../src/harness/second-host.ts';

const secrets = Array.from({ length: 200 }, (_, i) => `sk_live_${String(i).padStart(5, '0')}Qz8Lp2Xv`);

describe('200 secrets through the production host', () => {
  it('serves the conversation, each secret redacted', async () => {
    const text = [
      `secrets: ${JSON.stringify(secrets)}`,
      'name: many secrets',
      'host: production',
      'provider:',
      '  script:',
      `    - reply: "The key is ${secrets[150]}."`,
      'inbox:',
      '  - say: What is the key?',
      'expect: {}',
      '',
    ].join('\n');
    const run = await runScenario(parseScenario(text, 'many-secrets.yaml'), { seed: 1 });
    const outcomes = run.results.map((r) => r.outcome.kind);
    expect(outcomes).toEqual(['replied']);
    expect(run.results[0]?.reply).toBe('The key is [REDACTED].');
  });
});
