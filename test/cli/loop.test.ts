/** `loopgate run --loop`: through the real command line, peers run what they can, name their violations, and bad input is exit 2. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
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
    // Outside probe 50, LOW-5: ignoring the pins of a loop that has none did nothing, silently.
    const unpinned = await run(['--loop', 'loopgate', '--no-verdicts', 'scenarios/bundled/outcomes/empty-reply-fails.yaml']);
    expect(unpinned.status).toBe(2);
    expect(unpinned.stderr.trim()).toBe(
      "loopgate: --no-verdicts ignores a peer loop's pinned verdicts; loopgate's own loop has none: drop it, or add --loop ai-sdk or --loop openai-agents",
    );
  });

  it('exits 1 where a peer violates an invariant, and names it; loopgate holds on the same file', async () => {
    const file = 'scenarios/bundled/safety/colliding-call-ids-each-run-once.yaml';
    const peer = await run(['--loop', 'ai-sdk', '--no-verdicts', file]);
    expect(peer.status, peer.stderr).toBe(1);
    // The repeated id is sent back as it is (a request providers refuse), and the refund runs twice.
    expect(peer.stderr).toMatch(
      /invariant-06-tool-pairing: request 2, message 1: tool call id r is used again .*also failed: .*invariant-13-side-effects-once/,
    );
    // The bundled config pins that failure (verdicts:): judged against it, the same run fails exactly as documented.
    const pinned = await run(['--loop', 'ai-sdk', file]);
    expect(pinned.status, pinned.stdout).toBe(0);
    expect(pinned.stderr).toMatch(/invariant-06-tool-pairing: request 2, message 1: tool call id r is used again/);
    // From the built package (CI builds dist/ first) the bundled config, and so its pins, are dist's.
    expect(pinned.stdout).toMatch(/ai-sdk fails exactly as documented: 1 case\(s\) judged as pinned in (dist\/)?scenarios\/bundled\/verdicts\/ai-sdk\.json/);
    const own = await run(['--loop', 'loopgate', file]);
    expect(own.status, own.stdout).toBe(0);
  });

  it('skips, with the reason, what a peer cannot run — and a run that only skipped checked nothing', async () => {
    const steer = await run(['--loop', 'openai-agents', '--verbose', 'scenarios/bundled/inbox/steer-joins-next-step.yaml']);
    expect(steer.status).toBe(1);
    expect(`${steer.stdout}${steer.stderr}`).toContain('openai-agents has no steer (a steer reaches the running turn at its next step)');
    expect(steer.stderr).toContain('nothing was checked');
  });

  it("skips, naming the agent's own setting, a case the agent's policy decides: a peer dropping it never passes a call the agent forbids", async () => {
    // Probe 15: an agent asks before merge_pr (CRITICAL) and its approver denies; the scenario
    // expects the model to be told no. A peer runs without the agent's policy, so merge_pr ran
    // and the case passed, the difference only shown.
    const dir = mkdtempSync(join(tmpdir(), 'loopgate-loop-policy-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const from = (path: string) => JSON.stringify(join(ROOT, path));
    writeFileSync(
      join(dir, 'loopgate.config.ts'),
      `import { z } from ${from('node_modules/zod/index.js')};
import { defineConfig, defineTool } from ${from('src/index.ts')};
const tool = (name: string, sideEffect: 'NONE' | 'CRITICAL') =>
  defineTool({ name, description: name, input: z.object({ pr: z.number() }), sideEffect, run: () => ({ ok: true }) });
export default defineConfig({
  agents: {
    review: () => ({
      tools: [tool('read_diff', 'NONE'), tool('merge_pr', 'CRITICAL')],
      system: 'You review pull requests.',
      policy: { rules: [{ id: 'merge-asks', tools: ['merge_pr'], decision: 'ask' }] },
      approver: { approve: async () => 'deny' as const },
    }),
  },
  scenarios: ['scenarios'],
});
`,
    );
    mkdirSync(join(dir, 'scenarios'));
    const scenario = (name: string, tool: string) => `name: ${name}
provider:
  script:
    - tool_use: [{ id: c1, name: ${tool}, args: { pr: 7 } }]
    - reply: Done.
inbox:
  - say: Merge PR 7.
expect:
  outcome: replied
`;
    writeFileSync(join(dir, 'scenarios', 'merge-denied.yaml'), scenario('merge denied', 'merge_pr'));
    writeFileSync(join(dir, 'scenarios', 'read-only.yaml'), scenario('read only', 'read_diff'));
    const peer = await loopgate(['run', '--reporter', 'console', '--verbose', '--loop', 'ai-sdk', '--out', join(dir, 'out')], dir);
    const said = `${peer.stdout}${peer.stderr}`;
    expect(said).toContain(
      "ai-sdk has no policy (a layered tool policy (allow, deny, ask)): the agent's own — its policy decides merge_pr: ask (rule merge-asks)",
    );
    expect(said).toMatch(/1 passed/);
    expect(said).toMatch(/1 skipped/);
    expect(peer.status, said).toBe(0);
  });

  it('a peer told absurd token counts still writes a results file loopgate reads back (counts held at 2^53 − 1)', async () => {
    // The AI SDK sums the usage a client reports: 1e308 twice is Infinity, which JSON cannot hold.
    const dir = mkdtempSync(join(tmpdir(), 'loopgate-loop-usage-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const peer = await loopgate(['run', '--loop', 'ai-sdk', '--out', dir, 'scenarios/bundled/loop/client-reporting-absurd-usage-still-replies.yaml'], ROOT);
    expect(peer.stderr).not.toContain('disagrees with the run');
    const results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as { cases: { metrics?: { inputTokens: number } }[] };
    expect(results.cases[0]?.metrics?.inputTokens).toBe(Number.MAX_SAFE_INTEGER);
  });
});
