/** Before anything runs, each scenario is checked against the agent it runs with: file, line and field named. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type AgentFactory } from '../../kernel/index.ts';
import type { AgentRegistry } from '../world/agent-under-test.ts';
import { checkScenarioAgents } from './check-agents.ts';
import { loadScenarioFile } from './load.ts';

const dir = mkdtempSync(join(tmpdir(), 'loopgate-check-agents-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const refund = defineTool({
  name: 'issue_refund',
  description: 'Refund an order.',
  input: z.object({ order_id: z.string() }),
  sideEffect: 'STATEFUL',
  timeoutMs: 5_000,
  run: () => ({ ok: true }),
});
const shop: AgentFactory = () => ({ tools: [refund] });

function scenario(name: string, body: string) {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, `name: ${name}\n${body}inbox:\n  - say: hi\nprovider:\n  script:\n    - reply: hi\nexpect: {}\n`);
  return loadScenarioFile(file, dir);
}

const check = (registry: AgentRegistry, ...names: [string, string][]) =>
  checkScenarioAgents(
    names.map(([n, body]) => scenario(n, body)),
    registry,
  );

describe('scenarios checked against their agents', () => {
  it('passes a scenario that only scripts an own tool’s behaviour', async () => {
    await expect(
      check({ agents: new Map([['shop', shop]]), defaultAgent: 'shop' }, ['ok', 'tools:\n  - name: issue_refund\n    behaviour: [hang]\n']),
    ).resolves.toBeUndefined();
  });

  it("refuses a scenario naming a client the config's clients lack, with the closest name, before anything runs", async () => {
    const file = join(dir, 'own-typo.yaml');
    writeFileSync(file, 'name: own-typo\ninbox:\n  - say: hi\nprovider:\n  kind: own\n  client: gatewy\n  script:\n    - reply: hi\nexpect: {}\n');
    const gateway = { name: 'gateway', clientFor: () => ({ unsupported: 'x' }) };
    const registry: AgentRegistry = { agents: new Map([['shop', shop]]), defaultAgent: 'shop', clients: new Map([['gateway', gateway]]) };
    await expect(checkScenarioAgents([loadScenarioFile(file, dir)], registry)).rejects.toThrow(
      /own-typo\.yaml:6:11: provider\.client: no client "gatewy" in the config's clients \(did you mean gateway\?\); defined: gateway/,
    );
    await expect(checkScenarioAgents([loadScenarioFile(file, dir)], { agents: new Map([['shop', shop]]) })).rejects.toThrow(
      /no client "gatewy" in the config's clients; defined: none \(add clients:/,
    );
  });

  it('refuses a change to an own tool’s declaration, naming the line and the field', async () => {
    await expect(
      check({ agents: new Map([['shop', shop]]), defaultAgent: 'shop' }, ['downgrade', 'tools:\n  - name: issue_refund\n    sideEffect: NONE\n']),
    ).rejects.toThrow(/downgrade\.yaml:4:\d+: tools\[0\]\.sideEffect: issue_refund is agent shop's own tool/);
  });

  it("refuses a message id holding the agent's secret or the scenario's, never printing it (outside probe 47, F3)", async () => {
    const secret = 'trvk-Q7m2X9p4L8v3N6z1Hc5D';
    const keyed: AgentFactory = () => ({ tools: [refund], secrets: [secret] });
    const file = join(dir, 'secret-id.yaml');
    writeFileSync(
      file,
      `name: secret id\nhost: production\ninbox:\n  - say: hi\n  - say: again\n    messageId: "m-${secret}"\nprovider:\n  script:\n    - reply: hi\nexpect: {}\n`,
    );
    const refused = checkScenarioAgents([loadScenarioFile(file, dir)], { agents: new Map([['shop', keyed]]), defaultAgent: 'shop' });
    await expect(refused).rejects.toThrow(
      /secret-id\.yaml:6:\d+: inbox\[1\]\.messageId: holds a secret of the case or part of one: the production host refuses such an id \(400\); use an id that names no credential/,
    );
    await expect(refused).rejects.not.toThrow(new RegExp(secret));
  });

  it('refuses a secret that is a word of the log or part of a tool name, never printing it', async () => {
    const registry = { agents: new Map([['shop', shop]]), defaultAgent: 'shop' };
    const refused = check(registry, ['word', 'secrets: [sk_live_4eC39HqLyjWD, callId]\n'], ['tool', 'secrets: [refund]\n']);
    await expect(refused).rejects.toThrow(/word\.yaml:2:\d+: secrets\[1\]: 6 characters, occurs in a word the loop writes into its records/);
    await expect(refused).rejects.toThrow(/tool\.yaml:2:\d+: secrets\[0\]: 6 characters, occurs in the name of the tool "issue_refund"/);
    await expect(refused).rejects.not.toThrow(/callId/);
    await expect(check(registry, ['fine', 'secrets: [sk_live_4eC39HqLyjWD]\n'])).resolves.toBeUndefined();
  });

  it('refuses skips-redaction where no secret is declared: the case would check nothing', async () => {
    const registry = { agents: new Map([['shop', shop]]), defaultAgent: 'shop' };
    await expect(check(registry, ['no-secret', 'tools:\n  - name: issue_refund\n    executor: skips-redaction\n'])).rejects.toThrow(
      /no-secret\.yaml:4:\d+: tools\[0\]\.executor: skips-redaction hands the log issue_refund's output unredacted, but neither this scenario \(secrets:\) nor agent shop declares a secret/,
    );
    // A secret of the scenario's, or of the agent's own, gives the fault something to leak.
    await expect(
      check(registry, ['scenario-secret', 'secrets: [sk-test-0123456789abcdef]\ntools:\n  - name: issue_refund\n    executor: skips-redaction\n']),
    ).resolves.toBeUndefined();
    const keeper: AgentFactory = () => ({ tools: [refund], secrets: ['sk-test-0123456789abcdef'] });
    await expect(
      check({ agents: new Map([['keeper', keeper]]), defaultAgent: 'keeper' }, [
        'agent-secret',
        'tools:\n  - name: issue_refund\n    executor: skips-redaction\n',
      ]),
    ).resolves.toBeUndefined();
  });

  it('refuses an agent the config does not define, and a factory that throws', async () => {
    await expect(check({ agents: new Map([['shop', shop]]) }, ['typo', 'agent: shpo\n'])).rejects.toThrow(
      /typo\.yaml:2:\d+: agent: agent "shpo" is not defined \(known: shop, none\)/,
    );
    const broken: AgentFactory = () => {
      throw new Error('no database');
    };
    await expect(check({ agents: new Map([['shop', broken]]), defaultAgent: 'shop' }, ['any', ''])).rejects.toThrow(
      /any\.yaml:1:1: agent: agent shop: the factory threw: no database/,
    );
  });

  it('refuses a scenario that names no agent when the config has several and no default', async () => {
    const two = {
      agents: new Map([
        ['shop', shop],
        ['bank', shop],
      ]),
    };
    await expect(check(two, ['unnamed', ''])).rejects.toThrow(/unnamed\.yaml:1:1: agent: the config defines 2 agents \(shop, bank\) and no defaultAgent/);
    await expect(check(two, ['named', 'agent: bank\n'])).resolves.toBeUndefined();
  });

  it('refuses tool names that name no tool, with the closest; accepts the agent’s, the scenario’s and the ones the model calls', async () => {
    const registry = { agents: new Map([['shop', shop]]), defaultAgent: 'shop' };
    await expect(
      check(registry, [
        'names',
        [
          'tools:',
          '  - name: issue_refnd',
          '    behaviour: [hang]',
          'policy:',
          '  rules: [{ tools: [issue_refnd], decision: deny }]',
          'visibility: [{ name: global, deny: ["refund_*"] }]',
          '',
        ].join('\n'),
      ]),
    ).rejects.toThrow(
      new RegExp(
        [
          'names\\.yaml:3:\\d+: tools\\[0\\]\\.name: "issue_refnd" is not a tool of agent shop, and without a description this entry declares no new one; did you mean "issue_refund"\\?',
          'names\\.yaml:6:\\d+: policy\\.rules\\[0\\]\\.tools\\[0\\]: "issue_refnd" is not a tool of agent shop or of this scenario; did you mean "issue_refund"\\?',
          'names\\.yaml:7:\\d+: visibility\\[0\\]\\.deny\\[0\\]: pattern "refund_\\*" matches no tool of agent shop or of this scenario',
        ].join('\n\\S*'),
      ),
    );
    await expect(
      check({ agents: new Map() }, [
        'declared',
        'tools:\n  - name: notify\n    description: Sends a note.\npolicy:\n  rules: [{ tools: [notify, "issue_*"], decision: ask }]\n',
      ]),
    ).rejects.toThrow(
      /declared\.yaml:6:\d+: policy\.rules\[0\]\.tools\[1\]: pattern "issue_\*" matches no tool of agent none \(the config defines no agents\) or of this scenario$/,
    );
    await expect(
      check(registry, [
        'fine',
        'tools:\n  - name: notify\n    description: Sends a note.\npolicy:\n  rules: [{ tools: [notify, "issue_*"], decision: ask }]\n',
      ]),
    ).resolves.toBeUndefined();
  });

  it("checks the tool names of a bystander's expectations as the case's own (probe 24, F4: a typo checked nothing)", async () => {
    const registry = { agents: new Map([['shop', shop]]), defaultAgent: 'shop' };
    const bystander = (tool: string) =>
      [
        'bystander:',
        '  provider:',
        `    - tool_use: [{ id: b1, name: ${tool === 'issue_refund' ? 'issue_refund' : 'lookup_order'}, args: {} }]`,
        '    - reply: ok',
        '  inbox: [{ say: hi }]',
        `  expect: { executions: { ${tool}: 0 }, toolCalls: [${tool}] }`,
        '',
      ].join('\n');
    await expect(check(registry, ['bystander-typo', bystander('issue_refnd')])).rejects.toThrow(
      /bystander-typo\.yaml:7:\d+: bystander\.expect\.executions\.issue_refnd: "issue_refnd" is not a tool of agent shop or of this scenario; did you mean "issue_refund"\?/,
    );
    await expect(check(registry, ['bystander-fine', bystander('issue_refund')])).resolves.toBeUndefined();
  });
});
