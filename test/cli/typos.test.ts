/**
 * A typo never makes the gate check nothing (issue 9, "gate your own agent"):
 * a tool name in an agent's policy rule or visibility layer that names no tool
 * of the agent, a broken tool declaration, a scenario key or tool name that
 * names nothing, and `fuzz` with several agents and none chosen — each is
 * exit 2 with one line per problem naming the file (and line), the key, and
 * the name meant; no stack, nothing run, no report written.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'loopgate-typos-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const from = (path: string) => JSON.stringify(join(ROOT, path));

/** A small bank: four tools at every side-effect level, and one (admin_reset) meant to stay hidden. */
writeFileSync(
  join(dir, 'agents.ts'),
  `import { z } from ${from('node_modules/zod/index.js')};
import { z as z3 } from ${from('node_modules/zod/v3/index.js')};
import { defineTool, type Agent, type AgentFactory } from ${from('src/index.ts')};

const tool = (name: string, sideEffect: 'NONE' | 'IDEMPOTENT' | 'STATEFUL' | 'CRITICAL') =>
  defineTool({ name, description: name.replace('_', ' '), input: z.object({ account: z.string().optional() }), sideEffect, run: () => ({ ok: true }) });

export const bank: AgentFactory = () => ({
  tools: [tool('get_balance', 'NONE'), tool('transfer_funds', 'STATEFUL'), tool('close_account', 'CRITICAL'), tool('admin_reset', 'CRITICAL')],
  visibility: [{ name: 'global', deny: ['admin_reset'] }],
});

const variant = (change: (a: Agent) => Agent): AgentFactory => async (ctx) => change(await bank(ctx));
export const policyTypo = variant((a) => ({ ...a, policy: { rules: [{ id: 'typo', tools: ['transfer_fund'], decision: 'deny' }] } }));
export const twoTypos = variant((a) => ({ ...a, visibility: [{ name: 'global', deny: ['admin_rest', 'close_acount'] }] }));
export const patternTypo = variant((a) => ({ ...a, visibility: [{ name: 'mode:read', allow: ['get_*', 'trnsfer_*'] }] }));
export const duplicateTool = variant((a) => ({ ...a, tools: [...a.tools!, a.tools![0]!] }));
export const badName = variant((a) => ({ ...a, tools: [...a.tools!, { ...a.tools![0]!, name: 'get balance' }] }));
export const badSideEffect = variant((a) => ({ ...a, tools: [...a.tools!, { ...a.tools![0]!, name: 'bad_level', sideEffect: 'WRITE' as never }] }));
export const noInput = variant((a) => ({ ...a, tools: [...a.tools!, { name: 'no_input', description: 'x', sideEffect: 'NONE', run: () => ({}) } as never] }));
export const zod3Tool = variant((a) => ({
  ...a,
  tools: [...a.tools!, { name: 'zod3_tool', description: 'x', input: z3.object({ n: z3.number() }), sideEffect: 'NONE', run: () => ({}) } as never],
}));
`,
);

mkdirSync(join(dir, 'scenarios'));
/** A scenario that passes against the bank: the model checks a balance, then calls a tool the agent does not have. */
const OK_SCENARIO = `name: balance
provider:
  script:
    - tool_use: [{ id: t1, name: get_balance, args: { account: ACC-1 } }]
    - tool_use: [{ id: t2, name: no_such_tool, args: {} }]
    - reply: Done.
inbox:
  - say: What is my balance?
expect:
  outcome: replied
  executions: { get_balance: 1, transfer_funds: 0 }
  toolCalls: [get_balance]
  toolResults: [{ tool: get_balance, status: ok }, { tool: no_such_tool, status: failed, code: TOOL_NOT_AVAILABLE }]
  policy: [{ tool: get_balance, decision: allow }, { tool: no_such_tool, decision: deny }]
  events: { turn.closed: 1, tool.started: 1 }
`;
writeFileSync(join(dir, 'scenarios', 'ok.yaml'), OK_SCENARIO);

function config(name: string, agents: string, extra: { defaultAgent?: string } = {}) {
  const names = [...new Set(agents.match(/: (\w+)/g)!.map((m) => m.slice(2)))];
  writeFileSync(
    join(dir, `${name}.config.ts`),
    `import { defineConfig } from ${from('src/index.ts')};
import { ${names.join(', ')} } from './agents.ts';
export default defineConfig({
  agents: {
    ${agents},
  },
  scenarios: ['scenarios/ok.yaml'],${extra.defaultAgent ? `\n  defaultAgent: '${extra.defaultAgent}',` : ''}
});
`,
  );
  return `${name}.config.ts`;
}

const HOST_YAML = 'model:\n  provider: anthropic\n  name: claude-sonnet-4-6\nstore: { kind: memory }\n';
writeFileSync(join(dir, 'host.yaml'), HOST_YAML);

function loopgate(args: string[]) {
  const clean = { ...process.env };
  delete clean.CI;
  delete clean.ANTHROPIC_API_KEY;
  return spawnSync(process.execPath, [join(ROOT, 'bin/loopgate.js'), ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: clean,
    timeout: 120_000,
    killSignal: 'SIGKILL',
  });
}

/** Exit 2, every stderr line a `loopgate:` line matching one of `lines` (in order), no stack, and nothing written to `out`. */
function refused(result: ReturnType<typeof loopgate>, out: string, lines: RegExp[]) {
  expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(2);
  const got = result.stderr.split('\n').filter((l) => l.trim() !== '');
  expect(got, result.stderr).toHaveLength(lines.length);
  lines.forEach((line, i) => expect(got[i]).toMatch(line));
  expect(result.stderr).not.toMatch(/internal error|the case threw|\n\s+at /);
  expect(existsSync(join(dir, out)), 'nothing written').toBe(false);
}

describe('the agents of loopgate.config.ts are checked when the config loads: exit 2, a line per problem naming the file, the agent, the part and the fix', () => {
  const cases: [agent: string, problems: RegExp[]][] = [
    ['policyTypo', [/policy rule "typo": tools\[0\]: "transfer_fund" is not a registered tool; did you mean "transfer_funds"\?$/]],
    [
      'twoTypos',
      [
        /visibility layer "global": deny\[0\]: "admin_rest" is not a registered tool; did you mean "admin_reset"\?$/,
        /visibility layer "global": deny\[1\]: "close_acount" is not a registered tool; did you mean "close_account"\?$/,
      ],
    ],
    ['patternTypo', [/visibility layer "mode:read": allow\[1\]: pattern "trnsfer_\*" matches no registered tool$/]],
    ['duplicateTool', [/tool "get_balance": declared twice \(tools\[0\] and tools\[4\]\); tool names must be unique: rename or remove one$/]],
    ['badName', [/tool "get balance": name must be 1-64 characters of letters, digits, "_" or "-"/]],
    ['badSideEffect', [/tool "bad_level": sideEffect must be one of NONE, IDEMPOTENT, STATEFUL, CRITICAL \(got "WRITE"\)$/]],
    ['noInput', [/tool "no_input": input is missing: declare the arguments as a zod schema, e\.g\. input: z\.object\(\{ … \}\)$/]],
    ['zod3Tool', [/tool "zod3_tool": input is a zod 3 schema: loopgate needs zod 4 \(import \{ z \} from 'zod' with zod@4\)$/]],
  ];
  // One agent per line of the config, so each problem's line is its agent's.
  const file = config('broken', cases.map(([agent]) => `${agent}: ${agent}`).join(',\n    '), { defaultAgent: 'policyTypo' });
  const lines = cases.flatMap(([agent, problems], i) =>
    problems.map((p) => new RegExp(`^loopgate: \\S*broken\\.config\\.ts:${5 + i}: agents\\.${agent}: ${p.source}`)),
  );

  it('loopgate run', () => refused(loopgate(['run', '--config', file, '--out', 'out-run']), 'out-run', lines));
  it('loopgate fuzz', () => refused(loopgate(['fuzz', '--runs', '3', '--agent', 'policyTypo', '--config', file, '--out', 'out-fuzz']), 'out-fuzz', lines));
  it('loopgate check-host', () => refused(loopgate(['check-host', 'host.yaml', '--agent', 'policyTypo', '--config', file]), 'data', lines));

  it('the correct agent runs: the scenario above passes (so the checks refuse only what is wrong)', () => {
    const result = loopgate(['run', '--config', config('good', 'bank: bank'), '--out', 'out-good', '--reporter', 'json']);
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
  });
});

describe('a scenario is checked against its agent’s tools: exit 2 naming file:line:col, the field and the name meant', () => {
  const good = config('scenario-checks', 'bank: bank');
  const cases: [name: string, yaml: string, problem: RegExp][] = [
    [
      'executions-key',
      OK_SCENARIO.replace('executions: { get_balance: 1, transfer_funds: 0 }', 'executions: { get_balance: 1, transfer_fund: 0 }'),
      /executions-key\.yaml:11:\d+: expect\.executions\.transfer_fund: "transfer_fund" is not a tool of agent bank or of this scenario; did you mean "transfer_funds"\?$/,
    ],
    [
      'events-key',
      OK_SCENARIO.replace('tool.started: 1', 'tool.start: 1'),
      /events-key\.yaml:15:\d+: expect\.events\.tool\.start: "tool\.start" is not a log event type; did you mean "tool\.started"\?$/,
    ],
    [
      'tool-calls',
      OK_SCENARIO.replace('toolCalls: [get_balance]', 'toolCalls: [get_balanse]'),
      /tool-calls\.yaml:12:\d+: expect\.toolCalls\[0\]: "get_balanse" is not a tool of agent bank or of this scenario; did you mean "get_balance"\?$/,
    ],
    [
      'tool-results',
      OK_SCENARIO.replace('toolResults: [{ tool: get_balance,', 'toolResults: [{ tool: get_balanc,'),
      /tool-results\.yaml:13:\d+: expect\.toolResults\[0\]\.tool: "get_balanc" .*did you mean "get_balance"\?$/,
    ],
    [
      'turn-tool-results',
      `${OK_SCENARIO}  turns:\n    0:\n      toolResults: [{ tool: get_balance, status: ok }, { tool: transfer_fund, status: ok }]\n`,
      /turn-tool-results\.yaml:18:\d+: expect\.turns\.0\.toolResults\[1\]\.tool: "transfer_fund" .*did you mean "transfer_funds"\?$/,
    ],
    [
      'expect-policy',
      OK_SCENARIO.replace('policy: [{ tool: get_balance,', 'policy: [{ tool: get_blance,'),
      /expect-policy\.yaml:14:\d+: expect\.policy\[0\]\.tool: "get_blance" .*did you mean "get_balance"\?$/,
    ],
    [
      'tool-start',
      OK_SCENARIO.replace('  - say: What is my balance?\n', '  - say: What is my balance?\n  - cancel: user\n    at: { toolStart: get_balanse }\n'),
      /tool-start\.yaml:10:\d+: inbox\[1\]\.at\.toolStart: "get_balanse" is not a tool of agent bank or of this scenario; did you mean "get_balance"\?$/,
    ],
    [
      'tool-recorded',
      OK_SCENARIO.replace('  - say: What is my balance?\n', '  - say: What is my balance?\n  - cancel: user\n    at: { toolRecorded: get_balanse }\n'),
      /tool-recorded\.yaml:10:\d+: inbox\[1\]\.at\.toolRecorded: "get_balanse" is not a tool of agent bank or of this scenario; did you mean "get_balance"\?$/,
    ],
    [
      'scenario-policy',
      OK_SCENARIO.replace('provider:', 'policy:\n  rules:\n    - { tools: [transfer_fund], decision: deny }\nprovider:'),
      /scenario-policy\.yaml:4:\d+: policy\.rules\[0\]\.tools\[0\]: "transfer_fund" is not a tool of agent bank or of this scenario; did you mean "transfer_funds"\?$/,
    ],
    [
      'scenario-visibility',
      OK_SCENARIO.replace('provider:', 'visibility:\n  - { name: global, deny: [close_acount] }\nprovider:'),
      /scenario-visibility\.yaml:3:\d+: visibility\[0\]\.deny\[0\]: "close_acount" .*did you mean "close_account"\?$/,
    ],
    [
      // Outside probe 62, LOW-2: the production host refused it as it was built, so the @host case "threw" (exit 1, a
      // stack frame in its message) after the loop's case had run.
      'operator-denied-and-asked',
      OK_SCENARIO.replace('provider:', 'operator: { deny: [close_account], ask: [close_account] }\nprovider:'),
      /operator-denied-and-asked\.yaml:2:\d+: operator\.ask\[0\]: close_account is also denied by operator\.deny\[0\]: a denied tool is never asked for; keep it in one list$/,
    ],
    [
      'tool-override',
      OK_SCENARIO.replace('provider:', 'tools:\n  - name: get_balanse\n    behaviour: [hang]\nprovider:'),
      /tool-override\.yaml:3:\d+: tools\[0\]\.name: "get_balanse" is not a tool of agent bank, and without a description this entry declares no new one; did you mean "get_balance"\?$/,
    ],
  ];
  it('every misspelled tool name in a folder of scenarios: one line each, in file order', () => {
    mkdirSync(join(dir, 'scenarios', 'typos'));
    const names = cases.filter(([name]) => name !== 'events-key').sort(([a], [b]) => a.localeCompare(b));
    for (const [name, yaml] of names) writeFileSync(join(dir, 'scenarios', 'typos', `${name}.yaml`), yaml);
    refused(
      loopgate(['run', 'scenarios/typos', '--config', good, '--out', 'out-typos']),
      'out-typos',
      names.map(([, , problem]) => new RegExp(`^loopgate: scenarios/typos/${problem.source}`)),
    );
  });

  it('a config with no agents (agents: {}) says so where a scenario names a tool', () => {
    writeFileSync(join(dir, 'no-agents.config.ts'), `export default { agents: {}, scenarios: ['scenarios/ok.yaml'] };\n`);
    const result = loopgate(['run', '--config', join(dir, 'no-agents.config.ts'), '--out', 'out-no-agents']);
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toMatch(
      /^loopgate: scenarios\/ok\.yaml:\d+:\d+: [^\n]*"transfer_funds" is not a tool of agent none \(the config defines no agents\) or of this scenario/m,
    );
    expect(existsSync(join(dir, 'out-no-agents'))).toBe(false);
  });

  it('an expect.events key that is not a log event type is a schema error', () => {
    const [, yaml, problem] = cases.find(([name]) => name === 'events-key')!;
    writeFileSync(join(dir, 'scenarios', 'events-key.yaml'), yaml);
    refused(loopgate(['run', 'scenarios/events-key.yaml', '--config', good, '--out', 'out-events']), 'out-events', [
      new RegExp(`^loopgate: scenarios/${problem.source}`),
    ]);
  });

  it('a tool the scenario declares (with a description) may be named everywhere', () => {
    const declared = OK_SCENARIO.replace(
      'provider:',
      'tools:\n  - name: audit_log\n    description: Writes an audit line.\npolicy:\n  rules:\n    - { tools: [audit_log], decision: deny }\nprovider:',
    ).replace('executions: { get_balance: 1, transfer_funds: 0 }', 'executions: { get_balance: 1, audit_log: 0 }');
    writeFileSync(join(dir, 'scenarios', 'declared.yaml'), declared);
    const result = loopgate(['run', 'scenarios/declared.yaml', '--config', good, '--out', 'out-declared', '--reporter', 'json']);
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
  });
});

describe('loopgate fuzz says which agent it fuzzes, and never guesses among several', () => {
  const two = config('two-agents', 'bank: bank, savings: bank');

  it('several agents, no defaultAgent, no fuzz.agent, no --agent: exit 2 naming the agents and how to choose', () => {
    refused(loopgate(['fuzz', '--runs', '3', '--config', two, '--out', 'out-fuzz-two']), 'out-fuzz-two', [
      /^loopgate: \S*two-agents\.config\.ts defines 2 agents \(bank, savings\) and names none to fuzz: choose one with --agent NAME, or set fuzz\.agent \(or defaultAgent\) in the config$/,
    ]);
  });

  // A config that registers no agent fuzzed only loopgate's scripted probe and exited 0: a forgotten agent read as green
  // (outside probe 14, CLI-7). As `run` with no scenario: exit 1, nothing checked, nothing run or written.
  it('a config with no agents (agents: {}): exit 1 "nothing was checked", naming the config; nothing written', () => {
    writeFileSync(join(dir, 'fuzz-no-agents.config.ts'), `export default { agents: {} };\n`);
    const result = loopgate(['fuzz', '--runs', '3', '--config', join(dir, 'fuzz-no-agents.config.ts'), '--out', 'out-fuzz-none']);
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^loopgate: nothing was checked: \S*fuzz-no-agents\.config\.ts defines no agents to fuzz \(only loopgate's scripted probe would run\); register yours under agents:\n$/,
    );
    expect(existsSync(join(dir, 'out-fuzz-none')), 'nothing written').toBe(false);
  });

  it('--agent picks one; the console and every report name the agent and the tools fuzzed', () => {
    const result = loopgate(['fuzz', '--runs', '3', '--seed', '7', '--agent', 'savings', '--config', two, '--out', 'out-fuzz-savings']);
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    const tools = 'get_balance, transfer_funds, close_account, admin_reset';
    // Probe 19 (F3) had a tool without fuzz.args get only {} and a non-JSON string; since its arguments are drawn from its
    // input schema, the line names only tools whose schema cannot be drawn from — none here (probe 29, F5: it named all).
    expect(result.stdout).toContain(`fuzzed agent savings: ${tools} (and the scripted probe)\n`);
    expect(result.stdout).not.toContain('got only {}');
    const results = JSON.parse(readFileSync(join(dir, 'out-fuzz-savings', 'results.json'), 'utf8'));
    const names = ['get_balance', 'transfer_funds', 'close_account', 'admin_reset'];
    expect(results.fuzz).toEqual({ agent: 'savings', tools: names });
    expect(results.cases[0].checks[0].message).toContain(`agent savings (${tools})`);
    expect(readFileSync(join(dir, 'out-fuzz-savings', 'junit.xml'), 'utf8')).toContain('<property name="fuzz.agent" value="savings"/>');
    expect(readFileSync(join(dir, 'out-fuzz-savings', 'summary.md'), 'utf8')).toContain(`fuzzed agent savings: ${tools.replaceAll('_', '\\_')}`); // Markdown-escaped
  });
});
