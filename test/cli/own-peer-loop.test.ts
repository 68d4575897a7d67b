/**
 * A team whose agent runs in the Vercel AI SDK's loop (`loop: aiSdkLoop(…)` in
 * its own config): its scenarios are its requirements of that loop, so every
 * expectation a run of that loop can answer is judged — not shown as a diff, as
 * it is when `--loop` compares another loop with the bundled suite's exact
 * lines. And the config's parts of that loop are never dropped silently: a
 * misspelled glue, the team's own `onStepFinish`, an AI SDK tool setting the
 * gate cannot carry (probe 25: F1, F2, F3, F5, F6). A tool that needs approval is
 * asked about in loopgate's loop and skipped, named, in the SDK's.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loopgate } from '../support/cli.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const from = (path: string) => JSON.stringify(join(ROOT, path));

/** A project with an AI SDK agent (a lookup and a STATEFUL refund) and its config; `loop` and `tools` are the config's text. */
function project(options: { loop?: string; refund?: string; lookup?: string; agentExtra?: string; extra?: string; scenarios: Record<string, string> }): string {
  const dir = mkdtempSync(join(tmpdir(), 'loopgate-own-peer-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, 'loopgate.config.ts'),
    `import { z } from ${from('node_modules/zod/index.js')};
import { tool } from ${from('node_modules/ai/dist/index.mjs')};
import { appendFileSync } from 'node:fs';
import { defineConfig, defineInvariant } from ${from('src/index.ts')};
import { aiSdkAgent, aiSdkLoop } from ${from('src/loops/ai-sdk/index.ts')};
export default defineConfig({
  agents: {
    billing: aiSdkAgent({
      system: 'You help customers with their invoices.',
      tools: () => ({
        lookup_invoice: tool({ description: 'Look an invoice up.', inputSchema: z.object({ id: z.string() }), ${options.lookup ?? 'execute: async ({ id }) => ({ id, total: 40 })'} }),
        issue_refund: tool({ description: 'Refund an invoice.', inputSchema: z.object({ id: z.string() }), ${options.refund ?? 'execute: async ({ id }) => ({ refunded: id })'} }),
      }),
      sideEffects: { issue_refund: 'STATEFUL' },
      ${options.agentExtra ?? ''}
    }),
  },
  scenarios: ['scenarios'],
  loop: ${options.loop ?? 'aiSdkLoop()'},
  ${options.extra ?? ''}
});
`,
  );
  mkdirSync(join(dir, 'scenarios'));
  for (const [name, text] of Object.entries(options.scenarios)) writeFileSync(join(dir, 'scenarios', `${name}.yaml`), text);
  return dir;
}

const REFUND = `name: a refund
provider:
  script:
    - tool_use: [{ id: r1, name: issue_refund, args: { id: INV-7 } }]
    - reply: INV-7 is refunded.
inbox:
  - say: Refund INV-7.
`;

const WRONG = `${REFUND}expect:
  outcome: replied
  executions: { issue_refund: 0 }
  toolCalls: [lookup_invoice]
  reply: { contains: NOT THERE }
  history: { contains: ['nothing like this'] }
  assert: [{ matches: NOPE }]
  usage: { maxToolCalls: 0 }
  turns:
    0: { reply: Something else. }
`;

const RIGHT = `${REFUND}expect:
  outcome: replied
  executions: { issue_refund: 1 }
  toolCalls: [issue_refund]
  reply: INV-7 is refunded.
  history: { contains: ['assistant: INV-7 is refunded.'] }
  assert: [{ matches: 'refunded\\.$' }]
  usage: { maxToolCalls: 1 }
  turns:
    0: { reply: INV-7 is refunded. }
`;

/** A scenario whose model looks INV-7 up once, then replies; `expect` is its expect block's lines. */
const lookupScenario = (name: string, expect: string) => `name: ${name}
provider:
  script:
    - tool_use: [{ id: l1, name: lookup_invoice, args: { id: INV-7 } }]
    - reply: Found it.
inbox:
  - say: Show INV-7.
expect:
  outcome: replied
${expect}`;

/** Runs the project through its own loop and through loopgate's: both must pass. */
async function passesInEveryLoop(dir: string): Promise<void> {
  for (const loop of [[], ['--loop', 'loopgate']]) {
    const got = await loopgate(['run', ...loop, '--reporter', 'console', '--out', join(dir, 'reports')], dir);
    expect(got.status, `${loop.join(' ')}\n${got.stdout}\n${got.stderr}`).toBe(0);
  }
}

describe("a team's own AI SDK loop", () => {
  it('judges every expectation the loop can answer: a wrong one fails the case, each named', async () => {
    const dir = project({ scenarios: { wrong: WRONG, right: RIGHT } });
    const out = join(dir, 'reports');
    const got = await loopgate(['run', '--reporter', 'console,json', '--out', out], dir);
    expect(got.status, `${got.stdout}\n${got.stderr}`).toBe(1);
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as {
      cases: { id: string; status: string; checks: { name: string; passed: boolean }[] }[];
    };
    const byId = new Map(results.cases.map((c) => [c.id, c]));
    expect(byId.get('scenario:scenarios/right')?.status).toBe('passed');
    const wrong = byId.get('scenario:scenarios/wrong');
    expect(wrong?.status).toBe('failed');
    const failed = wrong!.checks.filter((c) => !c.passed).map((c) => c.name);
    expect(failed).toEqual(expect.arrayContaining(['reply', 'history', 'tool calls', 'executions issue_refund', 'assert[0] matches', 'usage', 'turn 0 reply']));
    expect(wrong!.checks.some((c) => c.name.startsWith('diff: '))).toBe(false);
  });

  it('an expectation only loopgate’s event log can answer fails the case on the team’s own loop, naming what to write instead (probe 31, F1)', async () => {
    // The lookup forgets its return: a `toolResults` output expectation must not pass unjudged.
    const scenario = lookupScenario(
      'a lookup whose result is expected',
      `  toolResults: [{ call: l1, status: ok, output: '{"id":"INV-7","total":40}' }]
  turns:
    0: { toolResults: [{ call: l1, status: ok }] }
`,
    );
    const dir = project({ lookup: 'execute: async ({ id }) => { void id; }', scenarios: { results: scenario } });
    const out = join(dir, 'reports');
    const got = await loopgate(['run', '--reporter', 'console,json', '--out', out], dir);
    expect(got.status, `${got.stdout}\n${got.stderr}`).toBe(1);
    expect(got.stdout).toMatch(/not judged: toolResults/);
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as {
      cases: { status: string; checks: { name: string; passed: boolean; message?: string }[] }[];
    };
    expect(results.cases[0]!.status).toBe('failed');
    const check = results.cases[0]!.checks.find((c) => c.name === 'not judged');
    expect(check?.passed).toBe(false);
    expect(check?.message).toMatch(/^toolResults, turns\.0\.toolResults: ai-sdk keeps no event log to judge them against: say it in `history` lines/);
    // Through loopgate's own loop the same file is judged: the missing output fails the case there too.
    const own = await loopgate(['run', '--loop', 'loopgate', '--reporter', 'console', '--out', out], dir);
    expect(own.status, own.stdout).toBe(1);
    expect(own.stdout).toMatch(/tool results/);
  });

  it('a config predicate that reads the event log is not judged on the team’s own loop: it fails saying so (probe 32, F18)', async () => {
    const dir = project({
      refund: "execute: async () => { throw new Error('card declined'); }",
      extra:
        "assertions: { 'no-tool-failed': (_reply: string, run: { events: readonly { type: string; payload: { status?: string } }[] }) => !run.events.some((e) => e.type === 'tool.result' && e.payload.status !== 'ok') || 'a tool failed' },",
      scenarios: { pred: `${REFUND}expect:\n  outcome: replied\n  assert: [{ assertion: no-tool-failed }]\n` },
    });
    const out = join(dir, 'reports');
    const got = await loopgate(['run', '--reporter', 'console,json', '--out', out], dir);
    expect(got.status, `${got.stdout}\n${got.stderr}`).toBe(1);
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as {
      cases: { checks: { name: string; passed: boolean; message?: string }[] }[];
    };
    const check = results.cases[0]!.checks.find((c) => c.name.startsWith('assert[0]'));
    expect(check?.passed).toBe(false);
    expect(check?.message).toMatch(/run\.events: ai-sdk keeps no event log/);
    // Through loopgate's own loop the predicate reads the log and fails on the declined card.
    const own = await loopgate(['run', '--loop', 'loopgate', '--reporter', 'console', '--out', out], dir);
    expect(own.status, own.stdout).toBe(1);
  });

  it("compared with another loop (--loop), the same file's lines are shown as differences, and none is dropped unsaid", async () => {
    const dir = project({ loop: "'loopgate'", scenarios: { wrong: WRONG } });
    const out = join(dir, 'reports');
    const got = await loopgate(['run', '--loop', 'ai-sdk', '--reporter', 'json', '--out', out], dir);
    expect(got.status, `${got.stdout}\n${got.stderr}`).toBe(0);
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as { cases: { checks: { name: string; passed: boolean }[] }[] };
    const names = results.cases[0]!.checks.map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(['diff: executions issue_refund', 'diff: assert[0] matches', 'diff: usage', 'diff: turn 0 reply']));
  });

  it('a glue that is not one of on-success and per-step is exit 2 naming it, and nothing runs', async () => {
    const dir = project({ loop: "aiSdkLoop({ glue: 'per-turn' as 'per-step' })", scenarios: { right: RIGHT } });
    const got = await loopgate(['run', '--reporter', 'console', '--out', join(dir, 'reports')], dir);
    expect(got.status, got.stdout).toBe(2);
    expect(got.stderr).toMatch(/loop\.glue: "per-turn" is not a glue; known: on-success, per-step/);
  });

  it('a generateText option that is not one, or one the harness owns, is exit 2 naming it and the option meant (probe 31, F10)', async () => {
    for (const [options, said] of [
      ['{ temperatur: 0 }', /options\.temperatur is not a generateText option of ai 6\.\d+\.\d+ \(did you mean temperature\?\)/],
      ['{ system: "Be terse." }', /options\.system is the harness's: give it to aiSdkAgent\(\{ system \}\)/],
      ['{ model: "gpt-5" }', /options\.model is the harness's: the gate runs the scenario's model/],
    ] as const) {
      const dir = project({ loop: `aiSdkLoop({ options: ${options} as never })`, scenarios: { right: RIGHT } });
      const got = await loopgate(['run', '--reporter', 'console', '--out', join(dir, 'reports')], dir);
      expect(got.status, `${options}\n${got.stdout}\n${got.stderr}`).toBe(2);
      expect(got.stderr).toMatch(said);
    }
  });

  it("calls the team's own onStepFinish after each step, as generateText would", async () => {
    const log = join(mkdtempSync(join(tmpdir(), 'loopgate-own-peer-log-')), 'steps.log');
    const dir = project({
      loop: `aiSdkLoop({ options: { onStepFinish: () => appendFileSync(${JSON.stringify(log)}, 'step\\n') } })`,
      scenarios: { right: RIGHT },
    });
    const got = await loopgate(['run', '--reporter', 'console', '--out', join(dir, 'reports')], dir);
    expect(got.status, `${got.stdout}\n${got.stderr}`).toBe(0);
    expect(readFileSync(log, 'utf8')).toBe('step\nstep\n');
  });

  it('an AI SDK tool setting the gate cannot carry (toModelOutput) is exit 2 naming the tool, never dropped', async () => {
    const dir = project({
      refund: "toModelOutput: () => ({ type: 'text', value: 'done' }), execute: async ({ id }) => ({ refunded: id })",
      scenarios: { right: RIGHT },
    });
    const got = await loopgate(['run', '--reporter', 'console', '--out', join(dir, 'reports')], dir);
    expect(got.status, got.stdout).toBe(2);
    expect(got.stderr).toMatch(/issue_refund.*toModelOutput/);
  });

  it('a tool that needs approval asks the scenario\'s approver in both loops; a "no", or no approver, runs nothing', async () => {
    const approved = `${REFUND}approver: { answers: [approve] }\nexpect:\n  outcome: replied\n  executions: { issue_refund: 1 }\n  reply: INV-7 is refunded.\n`;
    const denied = `${REFUND}approver: { answers: [deny] }\nexpect:\n  outcome: replied\n  executions: { issue_refund: 0 }\n`;
    const unanswered = `${REFUND}expect:\n  outcome: replied\n  executions: { issue_refund: 0 }\n`;
    const dir = project({ refund: 'needsApproval: true, execute: async ({ id }) => ({ refunded: id })', scenarios: { approved, denied, unanswered } });
    const out = join(dir, 'reports');
    const inLoopgate = await loopgate(['run', '--loop', 'loopgate', '--reporter', 'console', '--out', out], dir);
    expect(inLoopgate.status, `${inLoopgate.stdout}\n${inLoopgate.stderr}`).toBe(0);
    expect(inLoopgate.stdout).toMatch(/6 cases, 6 passed, 0 failed/);
    const inSdk = await loopgate(['run', '--reporter', 'console,json', '--out', out], dir);
    expect(inSdk.status, `${inSdk.stdout}\n${inSdk.stderr}`).toBe(0);
    const results = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as {
      cases: { id: string; status: string; checks: { name: string; passed: boolean; message?: string }[] }[];
    };
    expect(results.cases.map((c) => [c.id, c.status])).toEqual([
      ['scenario:scenarios/approved', 'passed'],
      ['scenario:scenarios/denied', 'passed'],
      ['scenario:scenarios/unanswered', 'passed'],
    ]);
    const persisted = (id: string) =>
      results.cases
        .find((c) => c.id === id)!
        .checks.filter((c) => c.name.startsWith('persisted'))
        .map((c) => c.message);
    // What the app keeps: the call, the SDK's denied result, the reply (the approval's request and answer are the SDK's).
    expect(persisted('scenario:scenarios/denied')).toEqual([
      'user: Refund INV-7.',
      'assistant: call issue_refund#r1 {"id":"INV-7"}',
      'user: result#r1 failed: execution denied: The approver did not approve this call.',
      'assistant: INV-7 is refunded.',
    ]);
    expect(persisted('scenario:scenarios/approved')).toEqual([
      'user: Refund INV-7.',
      'assistant: call issue_refund#r1 {"id":"INV-7"}',
      'user: result#r1 ok: {"refunded":"INV-7"}',
      'assistant: INV-7 is refunded.',
    ]);
  });

  it("gives the tools the agent's context (the AI SDK's experimental_context) in every loop, and refuses it where it never reaches them", async () => {
    const lookup =
      "execute: async ({ id }, options) => { const who = (options.experimental_context as { customer?: string } | undefined)?.customer; if (!who) throw new Error('not signed in'); return { id, customer: who }; }";
    const scenario = lookupScenario(
      'a lookup for the signed-in customer',
      `  history: { contains: ['user: result#l1 ok: {"id":"INV-7","customer":"ada@example.com"}'] }
`,
    );
    const dir = project({ lookup, agentExtra: "context: { customer: 'ada@example.com' },", scenarios: { ctx: scenario } });
    await passesInEveryLoop(dir);
    const refused = project({
      lookup,
      loop: "aiSdkLoop({ options: { experimental_context: { customer: 'ada@example.com' } } })",
      scenarios: { ctx: scenario },
    });
    const got = await loopgate(['run', '--reporter', 'console', '--out', join(refused, 'reports')], refused);
    expect(got.status, got.stdout).toBe(2);
    expect(got.stderr).toMatch(/experimental_context.*aiSdkAgent\(\{ context \}\)/);
  });

  it("a fuzz counterexample found with a peer config and --loop loopgate is reproduced through loopgate's loop, and says so", async () => {
    const dir = project({
      scenarios: { right: RIGHT },
      extra:
        "invariants: [defineInvariant({ id: 'team-no-turns', title: 'no turn ever runs', check: (run) => (run.results.length > 0 ? 'a turn ran' : undefined) })],",
    });
    const out = join(dir, 'fuzz');
    const got = await loopgate(['fuzz', '--loop', 'loopgate', '--runs', '200', '--seed', '1', '--reporter', 'console', '--out', out], dir);
    expect(got.status, got.stderr).toBe(1);
    expect(got.stderr).toMatch(/violation of team-no-turns/);
    expect(got.stderr).toMatch(/reproduce: loopgate run --loop loopgate \S+team-no-turns-seed-1\.yaml/);
    // Found with --config: the command carries it (the default config may hold no such invariant, and pass the file).
    const withConfig = await loopgate(
      ['fuzz', '--config', 'loopgate.config.ts', '--loop', 'loopgate', '--runs', '50', '--seed', '1', '--reporter', 'console', '--out', out],
      dir,
    );
    expect(withConfig.stderr).toMatch(/reproduce: loopgate run --config loopgate\.config\.ts --loop loopgate \S+team-no-turns-seed-1\.yaml/);
    const file = /reproduce: loopgate run .* (\S+team-no-turns-seed-1\.yaml)/.exec(withConfig.stderr)![1]!;
    expect(readFileSync(join(dir, file), 'utf8')).toContain('Reproduce: loopgate run --config loopgate.config.ts --loop loopgate <this file> (exit 1)');
  });

  it('--update with a config whose loop is a peer names the flag that fixes it', async () => {
    const dir = project({ scenarios: { right: RIGHT } });
    const got = await loopgate(['run', '--update', '--reporter', 'console', '--out', join(dir, 'reports')], dir);
    expect(got.status).toBe(2);
    expect(got.stderr).toContain("--update rewrites expectations from loopgate's own loop; the config's loop is ai-sdk: add --loop loopgate");
  });

  it("an async-generator execute gives its last value, as the AI SDK's does, in every loop", async () => {
    const lookup = "async *execute({ id }) { yield { status: 'loading' }; yield { id, total: 40 }; }";
    const scenario = lookupScenario(
      'a streamed lookup',
      `  history: { contains: ['user: result#l1 ok: {"id":"INV-7","total":40}'] }
`,
    );
    const dir = project({ lookup, scenarios: { gen: scenario } });
    await passesInEveryLoop(dir);
  });

  it("a loop's options are checked when the config loads: an unknown one, or an OpenAI Agents session that is not a factory, is exit 2 naming it", async () => {
    for (const [loop, message] of [
      ["aiSdkLoop({ glu: 'per-step' } as never)", /aiSdkLoop: unknown option "glu"; known: glue, options/],
      ["aiSdkLoop('per-step' as never)", /aiSdkLoop: expected \{ glue, options \}, got string/],
      ["aiSdkLoop({ glue: ['notice'] } as never)", /aiSdkLoop: glue must be one of on-success, per-step, notice, or a function, got a list/],
      ['aiSdkLoop({ glue: null } as never)', /aiSdkLoop: glue must be one of on-success, per-step, notice, or a function, got null/],
      [
        "aiSdkLoop({ options: 'temperature=0' } as never)",
        /aiSdkLoop: options must be an object of generateText options \(e\.g\. \{ temperature: 0 \}\), got string/,
      ],
      ["openAiAgentsLoop({ session: 'x' } as never)", /openAiAgentsLoop: session must be a function that returns a Session \(one per case\), got string/],
      [
        "openAiAgentsLoop({ errorFunction: 'Sorry, try again.' } as never)",
        /openAiAgentsLoop: errorFunction must be a function \(context, error\) => string, or null, got string/,
      ],
    ] as const) {
      const dir = project({ loop, scenarios: { right: RIGHT } });
      const config = join(dir, 'loopgate.config.ts');
      writeFileSync(config, `import { openAiAgentsLoop } from ${from('src/loops/openai-agents/index.ts')};\n${readFileSync(config, 'utf8')}`);
      const got = await loopgate(['run', '--reporter', 'console', '--out', join(dir, 'reports')], dir);
      expect(got.status, got.stdout).toBe(2);
      expect(got.stderr).toMatch(message);
    }
  });

  it('an OpenAI Agents session factory that throws, or gives no Session, fails each case in one line naming it; an async one is awaited', async () => {
    const cases = [
      ["openAiAgentsLoop({ session: () => { throw new Error('redis session store down'); } })", 'openAiAgentsLoop: session() threw: redis session store down'],
      [
        'openAiAgentsLoop({ session: () => ({}) as never })',
        'openAiAgentsLoop: session() gave an object without getSessionId, getItems, addItems, popItem, clearSession: not a Session',
      ],
    ] as const;
    for (const [loop, message] of cases) {
      const dir = project({ loop, scenarios: { right: RIGHT } });
      const config = join(dir, 'loopgate.config.ts');
      writeFileSync(config, `import { openAiAgentsLoop } from ${from('src/loops/openai-agents/index.ts')};\n${readFileSync(config, 'utf8')}`);
      const got = await loopgate(['run', '--reporter', 'console', '--out', join(dir, 'reports')], dir);
      expect(got.status, got.stdout).toBe(1);
      expect(got.stdout.replace(/[│\s]+/g, ' ')).toContain(message); // the console's table wraps it
      expect(got.stdout).not.toMatch(/\bat .*adapter\.(ts|js)/);
    }
    const dir = project({
      loop: `openAiAgentsLoop({ session: async () => new MemorySession() })`,
      scenarios: { right: RIGHT.replace(/\nexpect:[\s\S]*$/, '\nexpect:\n  outcome: replied\n') },
    });
    const config = join(dir, 'loopgate.config.ts');
    writeFileSync(
      config,
      `import { openAiAgentsLoop } from ${from('src/loops/openai-agents/index.ts')};\nimport { MemorySession } from ${from('node_modules/@openai/agents/dist/index.mjs')};\n${readFileSync(config, 'utf8')}`,
    );
    const got = await loopgate(['run', '--reporter', 'console', '--out', join(dir, 'reports')], dir);
    expect(got.status, `${got.stdout}\n${got.stderr}`).toBe(0);
  });

  it('a credential of a known shape a tool lets out is named when it reaches the model through a loop that redacts nothing (probe 25, F8)', async () => {
    const lookup = "execute: async ({ id }) => ({ id, psp: ['sk', 'live', '51HqLyjWDarjtT1zdp7dcQw9'].join('_') })";
    const scenario = lookupScenario('a lookup that leaks a payment key', '');
    const dir = project({ lookup, scenarios: { leak: scenario } });
    const got = await loopgate(['run', '--reporter', 'console', '--out', join(dir, 'reports')], dir);
    expect(got.status, `${got.stdout}\n${got.stderr}`).toBe(1);
    expect(got.stdout.replace(/[│\s]+/g, ' ')).toMatch(
      /credential-shapes-redacted: a credential of a known shape \(Stripe secret or restricted key, live or test, 32 characters\), configured nowhere, reached model request 2: ai-sdk redacts none/,
    );
    expect(got.stdout).not.toContain('51HqLyjWDarjtT1zdp7dcQw9');
  });

  it("a tool that threw is shown to the model as failed on the OpenAI Agents loop, never as ok, and the team's errorFunction is what the model reads (probe 25, F16)", async () => {
    const refund = 'execute: async ({ id }) => { throw new Error(`refund 200 exceeds what is left on ${id}`); }';
    const fails = (name: string, contains: string) => `name: ${name}
provider:
  script:
    - tool_use: [{ id: r1, name: issue_refund, args: { id: INV-7 } }]
    - reply: The refund did not go through.
inbox:
  - say: Refund INV-7.
expect:
  outcome: replied
  executions: { issue_refund: 1 }
  history: { contains: [${JSON.stringify(contains)}] }
`;
    const agents = (loop: string, refundBody: string, contains = 'result#r1 failed') => {
      const dir = project({ loop, refund: refundBody, scenarios: { fails: fails('a refund that fails', contains) } });
      const config = join(dir, 'loopgate.config.ts');
      writeFileSync(config, `import { openAiAgentsLoop } from ${from('src/loops/openai-agents/index.ts')};\n${readFileSync(config, 'utf8')}`);
      return dir;
    };
    // The correct agent passes in every loop: the model was told the refund failed.
    await passesInEveryLoop(agents('openAiAgentsLoop()', refund));
    // A refund that swallows its backend's error and says it went through is caught.
    const swallowed = agents(
      'openAiAgentsLoop()',
      "execute: async ({ id }) => { try { throw new Error('backend down'); } catch { return { refunded: id }; } }",
    );
    const got = await loopgate(['run', '--reporter', 'console', '--out', join(swallowed, 'reports')], swallowed);
    expect(got.status, `${got.stdout}\n${got.stderr}`).toBe(1);
    expect(got.stdout).toContain('history: no line contains "result#r1 failed"');
    // The team's own errorFunction gives the text the model reads.
    const own = agents(
      'openAiAgentsLoop({ errorFunction: (_context, error) => `refund failed: ${(error as Error).message}` })',
      refund,
      'result#r1 failed: refund failed: refund 200 exceeds what is left on INV-7',
    );
    const ran = await loopgate(['run', '--reporter', 'console', '--out', join(own, 'reports')], own);
    expect(ran.status, `${ran.stdout}\n${ran.stderr}`).toBe(0);
    // errorFunction: null, as in the SDK, lets the error end the run (an error the classifier does not know: failed{internal}).
    const raises = agents('openAiAgentsLoop({ errorFunction: null })', refund);
    const raised = await loopgate(['run', '--reporter', 'console', '--out', join(raises, 'reports')], raises);
    expect(raised.status, `${raised.stdout}\n${raised.stderr}`).toBe(1);
    expect(raised.stdout.replace(/[│\s]+/g, ' ')).toContain('outcome: expected "replied", got "failed{internal}"');
  });

  it("a refund followed by a provider outage passes on the AI SDK loop with the notice glue, or the team's own glue (probe 25, F4)", async () => {
    const outage = (then: string) => `name: the provider goes down after the refund ran
config: { retry: { jitter: 0, immediateRetries: 1, backoffRetries: 3 } }
provider:
  script:
    - tool_use: [{ id: r1, name: issue_refund, args: { id: INV-7 } }]
    - { error: { kind: server_error, status: 500 }, times: 5 }
${then}inbox:
  - say: Refund INV-7.
expect:
  outcomes: ['failed{provider_unavailable}'${then ? ', replied' : ''}]
  executions: { issue_refund: 1 }
`;
    const later = `    - reply: Yes, INV-7 was refunded.
`;
    const withLater = outage(later).replace('inbox:\n  - say: Refund INV-7.\n', 'inbox:\n  - say: Refund INV-7.\n  - say: Did it go through?\n');
    const scenarios = { alone: outage(''), later: withLater };
    // Neither of the SDK docs' glues can: on-success forgets the refund, per-step keeps a failed turn's steps.
    for (const [glue, broken] of [
      ['on-success', 'invariant-14-side-effects-told'],
      ['per-step', 'invariant-05-failed-turns-add-nothing'],
    ]) {
      const dir = project({ loop: `aiSdkLoop({ glue: '${glue}' })`, scenarios });
      const got = await loopgate(['run', '--reporter', 'console', '--out', join(dir, 'reports')], dir);
      expect(got.status, `${glue}\n${got.stdout}\n${got.stderr}`).toBe(1);
      expect(got.stdout.replace(/[│\s]+/g, ' ')).toContain(broken);
    }
    // The notice glue keeps nothing of the failed turn and tells the next one, as loopgate's loop does; a cancelled turn
    // keeps its message and its finished steps, as loopgate's loop does too (probe 28, F5: its message was lost).
    const cancelled = `name: the customer cancels while the refund runs
provider:
  script:
    - tool_use: [{ id: r1, name: issue_refund, args: { id: INV-7 } }]
    - reply: It may have gone through; I will check.
inbox:
  - say: Refund INV-7.
  - cancel: user
    at: { time: 2000 }
  - say: Did it go through?
expect:
  outcomes: ['cancelled{user}', replied]
`;
    // The refund's request honours the turn's abort signal, as fetch does: a body deaf to it keeps the AI SDK's loop
    // waiting a minute after the customer's cancel, which cancel-stops-the-wait fails (the loop does not stop its wait).
    const slowRefund =
      "execute: async ({ id }, { abortSignal }) => { await new Promise((resolve, reject) => { const t = setTimeout(resolve, 60_000); abortSignal?.addEventListener('abort', () => { clearTimeout(t); reject(new Error('This operation was aborted')); }); }); return { refunded: id }; }";
    await passesInEveryLoop(project({ loop: "aiSdkLoop({ glue: 'notice' })", scenarios }));
    await passesInEveryLoop(project({ loop: "aiSdkLoop({ glue: 'notice' })", refund: slowRefund, scenarios: { cancelled } }));
    // A team's own glue is what runs: one that forgets the refund is caught, one that tells it passes.
    const forgets = project({
      loop: 'aiSdkLoop({ glue: ({ kept, input, result }) => (result ? { history: [...input, ...result.response.messages] } : kept) })',
      scenarios,
    });
    const forgot = await loopgate(['run', '--reporter', 'console', '--out', join(forgets, 'reports')], forgets);
    expect(forgot.status, `${forgot.stdout}\n${forgot.stderr}`).toBe(1);
    expect(forgot.stdout.replace(/[│\s]+/g, ' ')).toContain('invariant-14-side-effects-told: issue_refund (call r1) ran in turn 0');
    const tells = project({
      loop: `aiSdkLoop({
    glue: ({ kept, input, result, steps }) => {
      if (result) return { history: [...input, ...result.response.messages] };
      const ran = steps.flatMap((s) => s.toolResults).map((r) => \`\${r.toolName} (call \${r.toolCallId}) ran before the turn failed\`);
      return { history: kept.history, waiting: [...(kept.waiting ?? []), { role: 'user', content: ran.join('; ') }] };
    },
  })`,
      scenarios,
    });
    const told = await loopgate(['run', '--reporter', 'console', '--out', join(tells, 'reports')], tells);
    expect(told.status, `${told.stdout}\n${told.stderr}`).toBe(0);
    // A glue that throws, or keeps something that is not a history, fails the turn naming it.
    for (const [glue, message] of [
      ["() => { throw new Error('sessions table is locked'); }", 'aiSdkLoop: the glue threw: sessions table is locked'],
      ['() => undefined as never', 'aiSdkLoop: the glue must return { history: ModelMessage[], waiting?: ModelMessage[] }'],
      ["() => ({ history: [{ role: 'user', content: 42 }] }) as never", 'aiSdkLoop: the glue returned history[0], which is not a ModelMessage'],
    ]) {
      const dir = project({ loop: `aiSdkLoop({ glue: ${glue} })`, scenarios: { right: RIGHT } });
      const got = await loopgate(['run', '--reporter', 'console', '--out', join(dir, 'reports')], dir);
      expect(got.status, `${got.stdout}\n${got.stderr}`).toBe(1);
      expect(got.stdout.replace(/[│\s]+/g, ' ')).toContain(message);
    }
  });

  it('a tool calling an in-process fake service that answers after a timer of its own waits real time for it on a peer, not virtual time (probe 25, F17)', async () => {
    const lookup = 'execute: async ({ id }) => ({ id, ...((await (await fetch(service)).json()) as object) })';
    const dir = project({
      lookup,
      scenarios: { service: lookupScenario('a lookup through a local service', '  executions: { lookup_invoice: 1 }\n  clock: 0\n') },
    });
    const config = join(dir, 'loopgate.config.ts');
    writeFileSync(
      config,
      `import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
// A team's in-process fake of its billing service, started when the config loads: it answers after a timer.
const fake = createServer((_request, response) => void setTimeout(() => response.end(JSON.stringify({ total: 40 })), 30));
await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
fake.unref();
const service = \`http://127.0.0.1:\${(fake.address() as AddressInfo).port}/\`;
${readFileSync(config, 'utf8')}`,
    );
    // The service's timer is the service's, outside the case: virtual time never passes for it.
    await passesInEveryLoop(dir);
  });

  it("a tool that times out on the OpenAI Agents loop reads unknown (it may have run), as in loopgate's loop (probe 28, F1)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopgate-own-peer-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(
      join(dir, 'loopgate.config.ts'),
      `import { z } from ${from('node_modules/zod/index.js')};
import { defineConfig, defineTool } from ${from('src/index.ts')};
import { openAiAgentsLoop } from ${from('src/loops/openai-agents/index.ts')};
export default defineConfig({
  agents: {
    billing: () => ({
      system: 'You charge cards.',
      tools: [
        defineTool({
          name: 'charge_card', description: 'Charge a card.', input: z.object({ amount: z.number() }), sideEffect: 'STATEFUL', timeoutMs: 1000,
          // The payment provider hangs; the request is given the call's signal, as fetch is (a body deaf to it fails
          // tools-stop-when-told: the charge would land after the turn told the model it timed out).
          run: (_args, ctx) =>
            new Promise((resolve, reject) => {
              const timer = setTimeout(() => resolve('charged'), 60_000);
              ctx.signal.addEventListener('abort', () => { clearTimeout(timer); reject(ctx.signal.reason); }, { once: true });
            }),
        }),
      ],
    }),
  },
  scenarios: ['scenarios'],
  loop: openAiAgentsLoop(),
});
`,
    );
    mkdirSync(join(dir, 'scenarios'));
    writeFileSync(
      join(dir, 'scenarios', 'hung.yaml'),
      `name: the payment provider hangs
provider:
  script:
    - tool_use: [{ id: h1, name: charge_card, args: { amount: 30 } }]
    - reply: I could not confirm the charge; I will check before trying again.
inbox:
  - say: Charge 30.
expect:
  outcome: replied
  history: { contains: ['result#h1 unknown'] }
`,
    );
    await passesInEveryLoop(dir);
  });

  it('a scenario with a bystander is skipped on a peer, saying why — never run with its bystander dropped (probe 26, F7)', async () => {
    const withBystander = `${RIGHT}bystander:
  provider: [{ reply: Hello. }]
  inbox: [{ say: Hi }]
  expect: { executions: { issue_refund: 0 } }
`;
    const dir = project({ scenarios: { beside: withBystander, right: RIGHT } });
    const got = await loopgate(['run', '--reporter', 'console', '--verbose', '--out', join(dir, 'reports')], dir);
    expect(got.status, `${got.stdout}\n${got.stderr}`).toBe(0);
    expect(got.stdout.replace(/[│\s]+/g, ' ')).toMatch(
      /○ scenario:scenarios\/beside — \d+ ms ai-sdk has no bystander \(a second conversation beside the case's, on the same host and store\)/,
    );
  });
});
