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
export const visibilityTypo = variant((a) => ({ ...a, visibility: [{ name: 'global', deny: ['admin_rest'] }] }));
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

function config(name: string, agents: string, extra = '') {
  writeFileSync(
    join(dir, `${name}.config.ts`),
    `import { defineConfig } from ${from('src/index.ts')};
import { ${[...new Set(agents.match(/: (\w+)/g)!.map((m) => m.slice(2)))].join(', ')} } from './agents.ts';

export default defineConfig({
  agents: { ${agents} },
  scenarios: ['scenarios/ok.yaml'],${extra}
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
  return spawnSync(process.execPath, [join(ROOT, 'bin/loopgate.js'), ...args], { cwd: dir, encoding: 'utf8', env: clean, timeout: 120_000 });
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

const AGENT = (file: string) => new RegExp(`^loopgate: \\S*${file.replace('.', '\\.')}:\\d+: agents\\.bank: `);

describe('an agent of loopgate.config.ts is checked when the config loads: exit 2, naming the file, the agent, the part and the fix', () => {
  const cases: [variant: string, problems: RegExp[]][] = [
    ['policyTypo', [/policy rule "typo": tools\[0\]: "transfer_fund" is not a registered tool; did you mean "transfer_funds"\?$/]],
    ['visibilityTypo', [/visibility layer "global": deny\[0\]: "admin_rest" is not a registered tool; did you mean "admin_reset"\?$/]],
    ['patternTypo', [/visibility layer "mode:read": allow\[1\]: pattern "trnsfer_\*" matches no registered tool$/]],
    ['duplicateTool', [/tool "get_balance": declared twice \(tools\[0\] and tools\[4\]\); tool names must be unique: rename or remove one$/]],
    ['badName', [/tool "get balance": name must be 1-64 characters of letters, digits, "_" or "-"/]],
    ['badSideEffect', [/tool "bad_level": sideEffect must be one of NONE, IDEMPOTENT, STATEFUL, CRITICAL \(got "WRITE"\)$/]],
    ['noInput', [/tool "no_input": input is missing: declare the arguments as a zod schema, e\.g\. input: z\.object\(\{ … \}\)$/]],
    ['zod3Tool', [/tool "zod3_tool": input is a zod 3 schema: loopgate needs zod 4 \(import \{ z \} from 'zod' with zod@4\)$/]],
  ];
  for (const [variant, problems] of cases) {
    it(`loopgate run: ${variant}`, () => {
      const file = config(variant, `bank: ${variant}`);
      const out = `out-run-${variant}`;
      refused(loopgate(['run', '--config', file, '--out', out]), out, [...problems.map((p) => new RegExp(AGENT(file).source + p.source))]);
    });
  }

  it('loopgate fuzz and check-host refuse the same agents before anything runs', () => {
    for (const [variant, problems] of [cases[1]!, cases[3]!, cases[7]!]) {
      const file = config(variant, `bank: ${variant}`);
      const line = new RegExp(AGENT(file).source + problems[0]!.source);
      refused(loopgate(['fuzz', '--runs', '3', '--config', file, '--out', `out-fuzz-${variant}`]), `out-fuzz-${variant}`, [line]);
      refused(loopgate(['check-host', 'host.yaml', '--agent', 'bank', '--config', file]), 'data', [line]);
    }
  });

  it('one line per problem: two typos in one layer are two lines', () => {
    writeFileSync(
      join(dir, 'agents2.ts'),
      `import { bank } from './agents.ts';
import type { AgentFactory } from ${from('src/index.ts')};
export const twoTypos: AgentFactory = async (ctx) => ({ ...(await bank(ctx)), visibility: [{ name: 'global', deny: ['admin_rest', 'close_acount'] }] });
`,
    );
    writeFileSync(
      join(dir, 'two.config.ts'),
      `import { defineConfig } from ${from('src/index.ts')};\nimport { twoTypos } from './agents2.ts';\nexport default defineConfig({ agents: { bank: twoTypos }, scenarios: ['scenarios/ok.yaml'] });\n`,
    );
    refused(loopgate(['run', '--config', 'two.config.ts', '--out', 'out-two']), 'out-two', [
      /two\.config\.ts:3: agents\.bank: visibility layer "global": deny\[0\]: "admin_rest" .*did you mean "admin_reset"\?$/,
      /two\.config\.ts:3: agents\.bank: visibility layer "global": deny\[1\]: "close_acount" .*did you mean "close_account"\?$/,
    ]);
  });

  it('the correct agent runs: the scenario above passes (so the checks refuse only what is wrong)', () => {
    const file = config('good', 'bank: bank');
    const result = loopgate(['run', '--config', file, '--out', 'out-good', '--reporter', 'json']);
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
  });
});
