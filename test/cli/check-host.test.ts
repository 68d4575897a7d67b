/**
 * `loopgate check-host agent.yaml`: the production host's config checked against
 * the agent it will serve (from loopgate.config.ts) before a deploy — every tool
 * named in tools.deny/ask/allow/modes must be one of the agent's, every key known
 * — exit 0, or exit 2 naming file, line and key and the closest tool name. It
 * opens nothing: no store, no model client, no collector.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'loopgate-check-host-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function checkHost(args: string[], env: NodeJS.ProcessEnv = {}) {
  const clean = { ...process.env };
  delete clean.ANTHROPIC_API_KEY;
  return spawnSync(process.execPath, [join(ROOT, 'bin/loopgate.js'), 'check-host', ...args], { cwd: dir, encoding: 'utf8', env: { ...clean, ...env } });
}

const HOST = (deny: string) => `model:
  provider: anthropic
  name: claude-sonnet-4-6
tools:
  deny: [${deny}]
  ask: [notify_customer]
store: { kind: sqlite, path: data/agent.db }
`;

describe('loopgate check-host', () => {
  it('passes a host config whose tool names are the agent’s, opening nothing', () => {
    writeFileSync(join(dir, 'agent.yaml'), HOST('issue_refund'));
    const ok = checkHost(['agent.yaml', '--agent', 'support']);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/agent\.yaml: OK for agent support/);
    // The lists shown are the file's, not all the agent asks before (outside probe 56: "ask: none" read as if nothing asked).
    expect(ok.stdout).toContain("the file's tools.deny: issue_refund, tools.ask: notify_customer, beside the agent's own policy)");
    expect(existsSync(join(dir, 'data'))).toBe(false); // the store was not opened
    // No config of the user's here: the agent judged against is loopgate's bundled example, and the command says so.
    expect(ok.stderr).toMatch(
      /^loopgate: no loopgate\.config\.ts found from .* upwards: checking against loopgate's bundled example agents \(give --config for yours\)$/m,
    );
  });

  it('exits 2 naming a misspelled tool in tools.deny, its line, and the tool meant', () => {
    writeFileSync(join(dir, 'typo.yaml'), HOST('isue_refund'));
    const typo = checkHost(['typo.yaml', '--agent', 'support']);
    expect(typo.status).toBe(2);
    expect(typo.stderr).toMatch(/typo\.yaml:5:\d+: tools\.deny\[0\]: .*isue_refund.*did you mean "issue_refund"\?/);
    expect(typo.stderr).not.toMatch(/\n\s+at /); // no stack
  });

  it('names every problem found after the file parsed in one run, each on its line (probe 21, F10)', () => {
    mkdirSync(join(dir, 'blocked'), { recursive: true });
    writeFileSync(join(dir, 'blocked', 'file'), 'a file, not a folder');
    writeFileSync(
      join(dir, 'many.yaml'),
      `model:
  provider: anthropic
  name: claude-sonnet-4-6
tools:
  deny: [isue_refund]
trace:
  export:
    jsonl: blocked/file/turns.jsonl
store: { kind: sqlite, path: blocked/file/agent.db }
`,
    );
    const run = checkHost(['many.yaml', '--agent', 'support']);
    expect(run.status, run.stderr).toBe(2);
    const lines = run.stderr.split('\n').filter((line) => line.includes('many.yaml:'));
    expect(lines.some((line) => /tools\.deny/.test(line) && /issue_refund/.test(line))).toBe(true);
    expect(lines.some((line) => /trace\.export\.jsonl/.test(line))).toBe(true);
    expect(lines.some((line) => /store\.path/.test(line))).toBe(true);
    expect(existsSync(join(dir, 'blocked', 'file', 'agent.db'))).toBe(false);
  });

  it('exits 2 for a file with no settings, saying so rather than naming one missing key', () => {
    for (const [name, text] of [
      ['empty.yaml', ''],
      ['comments.yaml', '# the host for the support agent\n# (to be written)\n'],
      ['null.yaml', '---\n~\n'],
    ]) {
      writeFileSync(join(dir, name), text);
      const r = checkHost([name, '--agent', 'support']);
      expect(r.status, name).toBe(2);
      expect(r.stderr, name).toMatch(new RegExp(`${name.replace('.', '\\.')}:1:1: the file holds no settings \\(it is empty, or only comments\\)`));
      expect(r.stderr, name).not.toMatch(/model\.provider/);
    }
  });

  it('exits 2 for an unknown agent, a missing file, and a key the schema does not know', () => {
    writeFileSync(join(dir, 'agent.yaml'), HOST('issue_refund'));
    expect(checkHost(['agent.yaml', '--agent', 'shop']).stderr).toMatch(/--agent shop: no such agent .* defined: support/);
    expect(checkHost(['nowhere.yaml']).status).toBe(2);
    writeFileSync(join(dir, 'extra.yaml'), `${HOST('issue_refund')}modle: {}\n`);
    const extra = checkHost(['extra.yaml', '--agent', 'support']);
    expect(extra.status).toBe(2);
    expect(extra.stderr).toMatch(/extra\.yaml:\d+:\d+: .*modle/);
  });

  it('refuses a model baseURL carrying a key, naming file, line and key, as it refuses a password in store.url (probe 9, P-1)', () => {
    writeFileSync(
      join(dir, 'keyed.yaml'),
      `${HOST('issue_refund')}`.replace('  name: claude-sonnet-4-6', '  name: claude-sonnet-4-6\n  baseURL: "http://user:sk-ant-api03-keyinurl@proxy.local"'),
    );
    const keyed = checkHost(['keyed.yaml', '--agent', 'support']);
    expect(keyed.status).toBe(2);
    expect(keyed.stderr).toMatch(/keyed\.yaml:4:\d+: model\.baseURL: must not carry credentials/);
    expect(keyed.stderr + keyed.stdout).not.toContain('sk-ant-api03-keyinurl');
  });

  it('refuses a trace.export.jsonl it could not write, naming file, line and key, and creates nothing (probe 9, P-2)', () => {
    writeFileSync(join(dir, 'a-file'), 'not a folder');
    writeFileSync(join(dir, 'traced.yaml'), `${HOST('issue_refund')}trace:\n  export:\n    jsonl: a-file/turns.jsonl\n`);
    const traced = checkHost(['traced.yaml', '--agent', 'support']);
    expect(traced.status).toBe(2);
    expect(traced.stderr).toMatch(/traced\.yaml:10:\d+: trace\.export\.jsonl: cannot write .*a-file.* is a file, not a folder/);
  });

  it('refuses a sqlite store.path that is a folder or sits under a file, naming file, line, key and path, creating nothing (probe 11, F1)', () => {
    writeFileSync(join(dir, 'a-file'), 'not a folder');
    mkdirSync(join(dir, 'a-folder'), { recursive: true });
    for (const [name, path, problem] of [
      ['under-file', 'a-file/agent.db', /a-file.* is a file, not a folder/],
      ['deep-under-file', 'a-file/sub/agent.db', /a-file.* is a file, not a folder/],
      ['is-folder', 'a-folder', /it is a folder, not a file/],
    ] as const) {
      writeFileSync(join(dir, `${name}.yaml`), HOST('issue_refund').replace('path: data/agent.db', `path: ${path}`));
      const result = checkHost([`${name}.yaml`, '--agent', 'support']);
      expect(result.status, `${name}: ${result.stdout}${result.stderr}`).toBe(2);
      expect(result.stderr, name).toMatch(
        new RegExp(`${name}\\.yaml:7:\\d+: store\\.path: cannot write ${join(dir, path).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `),
      );
      expect(result.stderr, name).toMatch(problem);
      expect(result.stderr, name).not.toMatch(/\n\s+at /); // no stack
    }
    expect(readdirSync(join(dir, 'a-folder'))).toEqual([]); // nothing created in it
  });
  // A secret that is a word of the gate's reports is the gate's refusal: a host writes no reports and serves the agent
  // (review of stop 66, MED-3: check-host refused what createHostFromConfig accepts).
  it("says OK for an agent whose secret is a word of the gate's reports, which run refuses", () => {
    writeFileSync(join(dir, 'word.config.mjs'), "export default { agents: { a: () => ({ secrets: ['passed'] }) } };\n");
    writeFileSync(join(dir, 'word-host.yaml'), 'model:\n  provider: anthropic\n  name: claude-sonnet-4-5\n');
    const checked = checkHost(['word-host.yaml', '--agent', 'a', '--config', 'word.config.mjs']);
    expect(checked.status, checked.stdout + checked.stderr).toBe(0);
    expect(checked.stdout).toMatch(/word-host\.yaml: OK for agent a/);
  });
  // Outside probe 41, F1 (HIGH): check-host said OK for an Agents agent whose input guardrail the host would not run.
  it('exits 2 for an Agents agent whose guardrail the host would not run, naming it; OK once the team says it serves it without', () => {
    const from = (path: string) => JSON.stringify(join(ROOT, path));
    const config = (extra: string) => `import { z } from ${from('node_modules/zod/index.js')};
import { Agent, tool } from ${from('node_modules/@openai/agents/dist/index.mjs')};
import { defineConfig } from ${from('src/index.ts')};
import { openAiAgent } from ${from('src/loops/openai-agents/index.ts')};
const guard = { name: 'refund_limit', execute: async () => ({ tripwireTriggered: false, outputInfo: null }) };
const build = (model) => new Agent({ name: 'support', model, instructions: 'You help.', inputGuardrails: [guard],
  tools: [tool({ name: 'issue_refund', description: 'Refund.', parameters: z.object({ order: z.string() }), execute: () => 'ok' })] });
const support = openAiAgent(build, { sideEffects: { issue_refund: 'STATEFUL' }${extra} });
export default defineConfig({ agents: { support: support.agent }, loop: support.loop });
`;
    writeFileSync(join(dir, 'guarded.config.ts'), config(''));
    writeFileSync(join(dir, 'accepted.config.ts'), config(", outsideItsLoop: 'instructions-and-tools'"));
    writeFileSync(join(dir, 'agents-host.yaml'), 'model:\n  provider: openai-responses\n  name: gpt-5\n');
    const refused = checkHost(['agents-host.yaml', '--agent', 'support', '--config', 'guarded.config.ts']);
    expect(refused.status, refused.stdout + refused.stderr).toBe(2);
    const lines = refused.stderr.split('\n').filter((line) => line !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^loopgate: --agent support: openAiAgent: loopgate's loop and host run only the agent's instructions and tools, and it has what only the Agents run\(\) runs: input guardrails \(refund_limit\); /,
    );
    const accepted = checkHost(['agents-host.yaml', '--agent', 'support', '--config', 'accepted.config.ts']);
    expect(accepted.status, accepted.stderr).toBe(0);
    expect(accepted.stdout).toMatch(/agents-host\.yaml: OK for agent support \(1 tool;/);
  });
});
