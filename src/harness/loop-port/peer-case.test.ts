import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { persistedChecks } from './peer-case.ts';
import type { PeerRun } from './peer-run.ts';

describe('persisted lines of a peer case', () => {
  // Review of stop 47, LOW: the digest of a long line covered the secret in it, so the pinned verdicts held an
  // offline guessing oracle for a short secret (a PIN) even though the line itself is redacted in every report.
  it('digests a long line after redacting the run secrets, so the pin tells nothing of them', () => {
    const secret = 'pin-4711-x';
    const text = `The account is unlocked with ${secret}. ${'Details follow. '.repeat(20)}`;
    const run = { histories: [[{ role: 'assistant', content: [{ type: 'text', text }] }]], secrets: [secret] } as unknown as PeerRun;
    const [check] = persistedChecks(run);
    const digest = /sha256 ([0-9a-f]{12})\)$/.exec(check!.message ?? '')?.[1];
    const line = `assistant: ${text}`;
    const of = (value: string) => createHash('sha256').update(value).digest('hex').slice(0, 12);
    expect(digest).toBeDefined();
    expect(digest).not.toBe(of(line));
    expect(check!.message).not.toContain(secret);
  });
});
