/**
 * No command prints a secret of the environment, in any form, whatever data it
 * prints: a failing case's progress line quoting a reply, `decode` of a recorded
 * body, `replay` of a store. The key here matches no credential shape the
 * redactor knows, so only the environment can tell it is one.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.ts';
import { defaultHostConfig } from '../../src/host/config.ts';
import { AgentHost } from '../../src/host/host.ts';
import { SqliteEventStore } from '../../src/stores/sqlite-store.ts';
import { reply } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { loopgate, type CliResult } from '../support/cli.ts';

const KEY = 'zq9-team-token-7f3a9c2e1b4d6f80a1c3e5';
const ENV = { SUPPORT_API_KEY: KEY };
const FORMS = [KEY, Buffer.from(KEY).toString('base64').slice(0, 40), KEY.slice(0, 24)];

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'loopgate-printed-secrets-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function expectNoKey(result: CliResult, what: string): void {
  for (const form of FORMS) {
    expect(result.stdout, `${what}: stdout`).not.toContain(form);
    expect(result.stderr, `${what}: stderr`).not.toContain(form);
  }
}

describe('nothing a command prints holds a secret of the environment', () => {
  it('the progress line of a failing case quoting a reply that holds the key, base64-encoded too', async () => {
    const encoded = Buffer.from(KEY).toString('base64');
    writeFileSync(
      join(dir, 'leaky.yaml'),
      [
        'name: a reply that quotes the key',
        'provider:',
        '  script:',
        `    - reply: "plain ${KEY} and encoded ${encoded}"`,
        'inbox:',
        '  - say: What is the key?',
        'expect:',
        '  reply: something else',
        '',
      ].join('\n'),
    );
    const result = await loopgate(['run', 'leaky.yaml', '--host', 'loop', '--reporter', 'console', '--out', 'out'], dir, ENV);
    expect(result.status).toBe(EXIT.failed);
    expect(result.stdout + result.stderr).toContain('[REDACTED]');
    expectNoKey(result, 'run');
  });

  it('decode of a recorded response body', async () => {
    const body = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: `the key is ${KEY}` }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 3, output_tokens: 5 },
    };
    writeFileSync(join(dir, 'body.json'), JSON.stringify(body));
    const result = await loopgate(['decode', 'body.json', '--provider', 'anthropic'], dir, ENV);
    expect(result.status, result.stderr).toBe(EXIT.passed);
    expectNoKey(result, 'decode');
  });

  it('replay of a store the key reached before it was known to be secret', async () => {
    const store = new SqliteEventStore(join(dir, 'store.db'));
    const host = new AgentHost({ config: defaultHostConfig(), store, model: new ScriptedModelClient([reply(`noted: ${KEY}`)]) });
    await host.handle('c', `my key is ${KEY}`);
    await host.close();
    await store.close();
    for (const args of [
      ['replay', 'store.db'],
      ['replay', 'store.db', '--json'],
    ]) {
      const result = await loopgate(args, dir, ENV);
      expect(result.status, result.stderr).toBe(EXIT.passed);
      expectNoKey(result, args.join(' '));
    }
  });
});

describe("nothing a command prints holds an agent's declared secret", () => {
  // Outside probe 38, F4: the agent's own secret pasted into the wrong place of a scenario (an unknown key, a tool
  // name of expect.executions) was echoed whole in the exit-2 line, on stderr — CI logs.
  it('a scenario refused at load, naming the secret as a key or a tool, says [REDACTED]', async () => {
    const secret = 'pay_live_Q7mK2xR9vT4nW8bZ3cL6';
    const root = JSON.stringify(join(import.meta.dirname, '../../src/index.ts'));
    const project = mkdtempSync(join(dir, 'declared-'));
    writeFileSync(
      join(project, 'loopgate.config.ts'),
      `import { defineConfig } from ${root};\nexport default defineConfig({ agents: { pay: () => ({ system: 'You pay.', secrets: [${JSON.stringify(secret)}] }) } });\n`,
    );
    const scenario = (extra: string) =>
      [
        'name: a paste in the wrong place',
        'provider:',
        '  script:',
        '    - reply: done',
        'inbox:',
        '  - say: pay',
        'expect:',
        '  outcome: replied',
        extra,
        '',
      ].join('\n');
    writeFileSync(join(project, 'unknown-key.yaml'), `${secret}: 1\n${scenario('')}`);
    writeFileSync(join(project, 'executions.yaml'), scenario(`  executions: { ${secret}: 1 }`));
    for (const file of ['unknown-key.yaml', 'executions.yaml']) {
      const result = await loopgate(['run', file, '--out', 'out'], project);
      expect(result.status, `${file}: ${result.stderr}`).toBe(EXIT.usage);
      expect(result.stderr, file).toContain('[REDACTED]');
      expect(result.stderr + result.stdout, file).not.toContain(secret.slice(0, 16));
    }
  });

  // Outside probe 42, F1 and F2: a config refused at load printed a declared secret in clear — in the name of the tool
  // the refusal was about, and in another agent's factory error (finance declared the key; b's factory threw it).
  it("a config refused at load says [REDACTED] for any of its agents' declared secrets", async () => {
    const secret = 'ledger_key_Zr7Qm2Lx9Kp4Vb';
    const root = JSON.stringify(join(import.meta.dirname, '../../src/index.ts'));
    const project = mkdtempSync(join(dir, 'config-secrets-'));
    const tool = `{ name: 'get_${secret}', description: 'Reads the ledger.', input: z.object({}), sideEffect: 'NONE', run: async () => 'ok' }`;
    const zod = JSON.stringify(join(import.meta.dirname, '../../node_modules/zod/index.js'));
    writeFileSync(
      join(project, 'in-a-tool.config.ts'),
      `import { z } from ${zod};\nimport { defineConfig } from ${root};\nexport default defineConfig({ agents: { a: () => ({ system: 'You read.', secrets: [${JSON.stringify(secret)}], tools: [${tool}] }) } });\n`,
    );
    writeFileSync(
      join(project, 'another-agent.config.ts'),
      `import { defineConfig } from ${root};\nconst KEY = ${JSON.stringify(secret)};\nexport default defineConfig({ agents: { finance: () => ({ system: 'You keep books.', secrets: [KEY] }), b: () => { throw new Error('b failed: ' + KEY); } } });\n`,
    );
    // Review of stop 51: a "secret" refused as a word of the loop's records ('tool') is no credential: redacting it
    // garbled another agent's line ("[REDACTED]s must be a list of [REDACTED] declarations").
    writeFileSync(
      join(project, 'a-word.config.ts'),
      `import { defineConfig } from ${root};\nexport default defineConfig({ agents: { a: () => ({ system: 'You read.', secrets: ['tool'] }), b: () => ({ system: 'You keep books.', tools: 'lookup_tool' }) } });\n`,
    );
    const worded = await loopgate(['run', '--config', 'a-word.config.ts', '--out', 'out'], project);
    expect(worded.status, worded.stderr).toBe(EXIT.usage);
    expect(worded.stderr).toMatch(/agents\.b: tools must be a list of tool declarations/);
    for (const [config, line] of [
      ['in-a-tool.config.ts', /agents\.a: secrets\[0\] \(25 characters\) occurs in the name of the tool "get_\[REDACTED\]"/],
      ['another-agent.config.ts', /agents\.b: the factory threw: b failed: \[REDACTED\]$/m],
    ] as const) {
      const result = await loopgate(['run', '--config', config, '--out', 'out'], project);
      expect(result.status, `${config}: ${result.stderr}`).toBe(EXIT.usage);
      expect(result.stderr, config).toMatch(line);
      expect(result.stderr + result.stdout, config).not.toContain(secret.slice(0, 12));
    }
  });

  // Outside probe 39, F4: a secret the scenario itself declares (`secrets:`), in its file name, or a tool's name,
  // printed raw in the exit-2 lines — while the same file, running, is `scenario:[REDACTED]`.
  it("a scenario refused at load says [REDACTED] for the secrets it declares itself, in its name or a tool's", async () => {
    const own = 'zz_SECRET_Hq7Lw2Pk9Xv4Rm8T';
    const project = mkdtempSync(join(dir, 'own-'));
    const body = (extra: string, say = '  - say: pay') =>
      [`secrets: [${own}]`, 'name: a typo', 'provider:', '  script:', '    - reply: done', 'inbox:', say, 'expect:', '  outcome: replied', extra, ''].join(
        '\n',
      );
    writeFileSync(join(project, `${own}.yaml`), body('  outcom: replied'));
    writeFileSync(join(project, 'tool.yaml'), `tools:\n  - name: t_${own}\n    description: a tool named after the key\n${body('')}`);
    // Its secrets list itself at fault (a number among the texts): the texts are still its secrets.
    writeFileSync(join(project, `list-${own}.yaml`), body('').replace(`secrets: [${own}]`, `secrets: [${own}, 5]`));
    for (const file of [`${own}.yaml`, 'tool.yaml', `list-${own}.yaml`]) {
      const result = await loopgate(['run', file, '--out', 'out'], project);
      expect(result.status, `${file}: ${result.stderr}`).toBe(EXIT.usage);
      expect(result.stderr, file).toContain('[REDACTED]');
      expect(result.stderr + result.stdout, `${file}: ${result.stderr}`).not.toContain(own.slice(0, 16));
    }
  });
});
