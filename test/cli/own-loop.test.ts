/**
 * A team whose agent runs in a loop of its own (neither loopgate's nor a framework's): it writes the loop against
 * the port `loopgate` exports (`LoopUnderTestFactory`), names it in its config, and pins what that loop does as
 * verdicts under the loop's own id — as a team pins the AI SDK's (outside probe 37, F1, F8: the port's types were
 * not exported, `verdicts:` took only `ai-sdk` and `openai-agents`, and a loop could call itself `loopgate`).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loopgate } from '../support/cli.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const from = (path: string) => JSON.stringify(join(ROOT, path));

/** A project: an agent with a STATEFUL refund, a hand-written loop of the team's, and its config. */
function project(options: { id?: string; extra?: string; capabilities?: string; createNamed?: string }): string {
  const dir = mkdtempSync(join(tmpdir(), 'loopgate-own-loop-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    join(dir, 'team-loop.ts'),
    `import type { LoopUnderTestFactory, Message, TurnReport } from ${from('src/index.ts')};
// The team's loop: ask the model, run the tools it asks for, until it replies.
export const teamLoop: LoopUnderTestFactory = {
  id: ${JSON.stringify(options.id ?? 'team-loop')},
  version: 'team-loop 1.0.0',
  capabilities: ${options.capabilities ?? "{ supports: [], history: 'session', time: 'patched-timers' }"},
  ${options.createNamed ?? 'create'}: (world) => {
    const history: Message[] = [];
    return {
      runTurn: async ({ turn, text, signal }): Promise<TurnReport> => {
        history.push({ role: 'user', content: [{ type: 'text', text }] });
        for (let step = 1; step <= world.maxSteps; step++) {
          const answer = await world.model.call({ model: 'm', system: world.system, messages: history, tools: [], maxTokens: world.maxTokens, signal });
          if (answer.type !== 'tool_use') {
            const reply = answer.type === 'reply' ? answer.text : undefined;
            if (reply !== undefined) history.push({ role: 'assistant', content: [{ type: 'text', text: reply }] });
            return { turn, outcome: reply !== undefined ? { kind: 'replied' } : { kind: 'failed', reason: 'provider_unavailable', detail: answer.type }, ending: { kind: 'resolved', finishReason: 'stop' }, ...(reply !== undefined ? { reply } : {}), steps: step, usage: { inputTokens: 1, outputTokens: 1 } };
          }
          history.push({ role: 'assistant', content: answer.content });
          const results = [];
          for (const call of answer.calls) {
            const tool = world.tools.find((t) => t.name === call.name)!;
            const output = await tool.run(call.args, { callId: call.id, signal });
            results.push({ type: 'tool_result' as const, callId: call.id, status: 'ok' as const, content: JSON.stringify(output) });
          }
          history.push({ role: 'user', content: results });
        }
        return { turn, outcome: { kind: 'failed', reason: 'max_steps' }, ending: { kind: 'resolved' }, steps: world.maxSteps, usage: { inputTokens: 1, outputTokens: 1 } };
      },
      persistedHistory: () => [...history],
      traces: () => [],
    };
  },
};
`,
  );
  writeFileSync(
    join(dir, 'loopgate.config.ts'),
    `import { z } from ${from('node_modules/zod/index.js')};
import { defineConfig, defineTool } from ${from('src/index.ts')};
import { teamLoop } from './team-loop.ts';
const refund = defineTool({ name: 'issue_refund', description: 'Refund an order.', input: z.object({ id: z.string() }), sideEffect: 'STATEFUL', run: async ({ id }) => ({ refunded: id }) });
export default defineConfig({
  agents: { billing: () => ({ system: 'You refund orders.', tools: [refund] }) },
  scenarios: ['scenarios'],
  loop: teamLoop,
  ${options.extra ?? ''}
});
`,
  );
  mkdirSync(join(dir, 'scenarios'));
  // The scenario asks for two refunds and the loop runs one: a failure of the loop's, which the pin records.
  writeFileSync(
    join(dir, 'scenarios', 'refund.yaml'),
    `name: a refund
provider:
  script:
    - tool_use: [{ id: r1, name: issue_refund, args: { id: INV-7 } }]
    - reply: INV-7 is refunded.
inbox:
  - say: Refund INV-7.
expect:
  outcome: replied
  executions: { issue_refund: 2 }
`,
  );
  return dir;
}

describe("a team's own loop", () => {
  it('is gated through the exported port, and its verdicts are pinned under its own id', async () => {
    const dir = project({ extra: "verdicts: { 'team-loop': 'verdicts/team-loop.json' }," });
    const update = await loopgate(['run', '--reporter', 'console', '--update-verdicts'], dir);
    // Recording is the run's result: exit 0 once the verdicts are written.
    expect(update.status, update.stderr).toBe(0);
    expect(update.stderr).toContain('verdicts recorded:');
    const file = join(dir, 'verdicts', 'team-loop.json');
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, 'utf8')).toContain('executions');
    const again = await loopgate(['run', '--reporter', 'console'], dir);
    expect(again.status, `${again.stdout}\n${again.stderr}`).toBe(0);
    expect(again.stdout).toContain('team-loop fails exactly as documented: 1 case(s) judged as pinned');
  });

  // Outside probe 45, F4, F5, F7, F3: a misspelled capability turned cases into skips unsaid; one the port cannot
  // deliver (steer) threw inside a tool call; a scenario's policy never reached the loop that claimed it; an empty id
  // lost the run's results.json. Each is exit 2 naming it, before anything runs.
  it.each([
    [
      "{ supports: ['steeer'], history: 'session', time: 'patched-timers' }",
      /loop\.capabilities\.supports\[0\]: "steeer" is not a capability \(did you mean steer\?\)/,
    ],
    [
      "{ supports: ['steer'], history: 'session', time: 'patched-timers' }",
      /loop\.capabilities\.supports\[0\]: a loop behind the port cannot do steer: the port hands it each message as a turn \(runTurn\), never into a running one/,
    ],
    [
      "{ supports: ['policy'], history: 'session', time: 'patched-timers' }",
      /loop\.capabilities\.supports\[0\]: a loop behind the port cannot do policy: its world holds no policy \(a scenario's would be dropped\)/,
    ],
    ["{ supports: [], history: 'disk', time: 'patched-timers' }", /loop\.capabilities\.history: expected event-log, session or app-glue, got "disk"/],
    ["{ supports: [], history: 'session' }", /loop\.capabilities\.time: expected clock-injected or patched-timers, got undefined/],
    // Outside probe 46: a misspelled key (`support`) was taken and the real list read as missing, or ignored.
    [
      "{ supports: [], history: 'session', time: 'patched-timers', histroy: 'session' }",
      /loop\.capabilities\.histroy: unknown key \(did you mean history\?\); known: supports, history, time/,
    ],
  ])('capabilities %s: exit 2 naming what is wrong', async (capabilities, said) => {
    const dir = project({ capabilities });
    const r = await loopgate(['run', '--reporter', 'console'], dir);
    expect(r.status, r.stdout).toBe(2);
    expect(r.stderr).toMatch(said);
  });

  // Outside probe 45, F11: verdicts pinned for another loop only were silently unused by a run of the team's loop.
  it('verdicts that pin other loops only: the run says it is judged unpinned', async () => {
    const dir = project({ extra: "verdicts: { 'ai-sdk': 'verdicts/ai-sdk.json' }," });
    const r = await loopgate(['run', '--reporter', 'console'], dir);
    // Unpinned, the case the loop fails is a failure (pinned, the same run is exit 0: the first test).
    expect(r.status, r.stdout).toBe(1);
    expect(r.stderr).toContain(
      "note: verdicts: in loopgate.config.ts pins ai-sdk, not team-loop: this run of team-loop is judged unpinned (add 'team-loop': 'verdicts/team-loop.json' to pin it)",
    );
  });

  // Outside probe 45, F9: the two were taken together and the pins re-recorded.
  it('--update-verdicts with --no-verdicts is exit 2 naming both, and records nothing', async () => {
    const dir = project({ extra: "verdicts: { 'team-loop': 'verdicts/team-loop.json' }," });
    const r = await loopgate(['run', '--reporter', 'console', '--update-verdicts', '--no-verdicts'], dir);
    expect(r.status, r.stdout).toBe(2);
    expect(r.stderr).toMatch(/--update-verdicts records the pinned verdicts, --no-verdicts ignores them: give one of the two/);
    expect(existsSync(join(dir, 'verdicts', 'team-loop.json'))).toBe(false);
  });

  it('an empty id is exit 2 naming it', async () => {
    const dir = project({ id: '' });
    const r = await loopgate(['run', '--reporter', 'console'], dir);
    expect(r.status, r.stdout).toBe(2);
    expect(r.stderr).toMatch(/loop\.id: expected a non-empty name/);
  });

  // Outside probe 54: "expected loopgate, ai-sdk, openai-agents or an adapter (aiSdkLoop({ … })), got an object".
  it('a loop of its own without create(world) is exit 2 naming create', async () => {
    const dir = project({ createNamed: 'build' });
    const r = await loopgate(['run', '--reporter', 'console'], dir);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /loop\.create: a loop of your own needs create\(world\), which builds its adapter per case \(runTurn, persistedHistory, traces\); got undefined/,
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it("may not call itself loopgate (reports could not tell it from loopgate's own loop): exit 2 naming it", async () => {
    const dir = project({ id: 'loopgate' });
    const r = await loopgate(['run', '--reporter', 'console'], dir);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/loop\.id: "loopgate" names loopgate's own loop; give your loop an id of its own/);
  });

  // Outside probe 46: a team's loop named ai-sdk read as the AI SDK adapter in reports, baselines and pinned verdicts.
  it.each(['ai-sdk', 'openai-agents'])("may not take the id of loopgate's %s adapter: exit 2 naming it", async (id) => {
    const dir = project({ id });
    const r = await loopgate(['run', '--reporter', 'console'], dir);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`loop.id: "${id}" names loopgate's adapter of that framework; give your loop an id of its own`);
  });
});

describe("loopgate fuzz of a team's own loop", () => {
  // The loop above runs a tool body that throws straight out of its turn and sends every id it is given back: the
  // search finds such a bug, writes it as a scenario, and that file fails `loopgate run` against the same loop.
  it('fuzzes the config’s loop behind the port; its counterexample fails loopgate run on that loop', async () => {
    const dir = project({});
    const r = await loopgate(['fuzz', '--runs', '200', '--seed', '1', '--reporter', 'console', 'json'], dir);
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(1);
    expect(r.stderr).toContain('loopgate: fuzzing team-loop (team-loop 1.0.0) behind the port');
    const results = JSON.parse(readFileSync(join(dir, 'reports', 'results.json'), 'utf8')) as {
      loop?: { name: string };
      fuzz: { notFuzzed?: string };
      cases: { id: string; status: string }[];
    };
    expect(results.loop?.name).toBe('team-loop');
    expect(results.fuzz.notFuzzed).toBeUndefined();
    const failed = results.cases.find((c) => c.status === 'failed')!.id.replace(/^fuzz:/, '');
    const file = /counterexample \(shrunk in \d+ step\(s\)\): (\S+)/.exec(r.stderr)![1]!;
    expect(r.stderr).toContain(`reproduce: loopgate run ${file}`);
    const again = await loopgate(['run', file, '--reporter', 'console', '--out', 'replay'], dir);
    expect(again.status, again.stdout).toBe(1);
    expect(again.stdout).toContain(failed);
  });

  it('--loop loopgate fuzzes loopgate’s own loop, and says the config’s loop is not fuzzed', async () => {
    const dir = project({});
    const r = await loopgate(['fuzz', '--loop', 'loopgate', '--runs', '3', '--seed', '1', '--reporter', 'console', 'json'], dir);
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stderr).toContain("loopgate: fuzz drives loopgate's own loop (--loop loopgate): the config's loop team-loop is not fuzzed");
    const results = JSON.parse(readFileSync(join(dir, 'reports', 'results.json'), 'utf8')) as { loop?: { name: string }; fuzz: { notFuzzed?: string } };
    expect(results.fuzz.notFuzzed).toBe('team-loop');
    expect(results.loop).toBeUndefined();
  });
});
