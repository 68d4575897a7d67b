/** `loopgate run --loop`: through the real command line, peers run what they can, name their violations, and bad input is exit 2. */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loopgate } from '../support/cli.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const run = (args: readonly string[]) => loopgate(['run', '--reporter', 'console', ...args], ROOT);

describe('loopgate run --loop', () => {
  it('an unknown loop, and --host with a peer, are exit 2 naming the input', async () => {
    const unknown = await run(['--loop', 'langchain', 'scenarios/bundled/outcomes/empty-reply-fails.yaml']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr.trim()).toBe('loopgate: --loop "langchain": unknown loop; known: loopgate, ai-sdk, openai-agents');
    const host = await run(['--loop', 'ai-sdk', '--host', 'loop', 'scenarios/bundled/outcomes/empty-reply-fails.yaml']);
    expect(host.status).toBe(2);
    expect(host.stderr).toContain("--host chooses loopgate's host; ai-sdk has none");
  });

  it('exits 1 where a peer violates an invariant, and names it; loopgate holds on the same file', async () => {
    const file = 'scenarios/bundled/safety/colliding-call-ids-each-run-once.yaml';
    const peer = await run(['--loop', 'ai-sdk', file]);
    expect(peer.status, peer.stderr).toBe(1);
    expect(peer.stderr).toMatch(/invariant-13-side-effects-once: issue_refund \(STATEFUL\) ran 2 times/);
    const own = await run(['--loop', 'loopgate', file]);
    expect(own.status, own.stdout).toBe(0);
  });

  it('skips, with the reason, what a peer cannot run — and a run that only skipped checked nothing', async () => {
    const steer = await run(['--loop', 'openai-agents', '--verbose', 'scenarios/bundled/inbox/steer-joins-next-step.yaml']);
    expect(steer.status).toBe(1);
    expect(`${steer.stdout}${steer.stderr}`).toContain('openai-agents has no steer (a steer reaches the running turn at its next step)');
    expect(steer.stderr).toContain('nothing was checked');
  });
});
