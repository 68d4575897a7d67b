/** Loading a suite's scenarios: every problem of every file in one pass, whatever kind. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type AgentFactory } from '../kernel/index.ts';
import { NO_REPLY_ASSERTIONS } from './checks/reply-assertions.ts';
import { loadSuiteScenarios, type SuiteContext } from './suites.ts';

const dir = mkdtempSync(join(tmpdir(), 'loopgate-suites-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const freeze = defineTool({ name: 'freeze_card', description: 'Freeze a card.', input: z.object({}), sideEffect: 'IDEMPOTENT', run: () => 'ok' });
const bank: AgentFactory = () => ({ tools: [freeze] });
const context: SuiteContext = {
  registry: { agents: new Map([['bank', bank]]), defaultAgent: 'bank' },
  invariants: [],
  root: dir,
  replies: NO_REPLY_ASSERTIONS,
};

function problemsOf(name: string, text: string): Promise<string[]> {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, text);
  return loadSuiteScenarios([file], context).then(
    () => [],
    (error: Error) => error.message.split('\n').map((line) => line.replace(/^.*?\.yaml:/, '')),
  );
}

const HEAD = 'name: typo\ninbox: [{ say: hi }]\nprovider: { script: [{ reply: ok }] }\n';

describe('loadSuiteScenarios', () => {
  it('a schema problem does not hide the tool-name problems of the same file', async () => {
    const problems = await problemsOf('schema', `${HEAD}expect: { executions: { freez_card: 0 }, events: { tool.start: 1 }, toolCalls: [freez_card] }\n`);
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/^4:\d+: expect\.events\.tool\.start: "tool\.start" is not a log event type/);
    expect(problems.slice(1)).toEqual([
      expect.stringMatching(
        /^4:\d+: expect\.executions\.freez_card: "freez_card" is not a tool of agent bank or of this scenario; did you mean "freeze_card"\?$/,
      ),
      expect.stringMatching(/^4:\d+: expect\.toolCalls\[0\]: "freez_card" is not a tool of agent bank or of this scenario; did you mean "freeze_card"\?$/),
    ]);
  });

  it('a tool-name problem does not hide the reply assertions naming nothing', async () => {
    const problems = await problemsOf('assert', `${HEAD}expect: { toolCalls: [freez_card], assert: [{ assertion: nope }, { rubric: be nice }] }\n`);
    expect(problems).toEqual([
      expect.stringMatching(/^4:\d+: expect\.toolCalls\[0\]: "freez_card" is not a tool/),
      expect.stringMatching(/^4:\d+: expect\.assert\[0\]\.assertion: no assertion "nope" in the config/),
      expect.stringMatching(/^4:\d+: expect\.assert\[1\]\.rubric: no judge/),
    ]);
  });

  it('merge keys work in a scenario', async () => {
    expect(await problemsOf('merge', 'name: m\ninbox: [{ say: hi }]\nprovider: { script: [{ reply: ok }] }\nexpect:\n  <<: { outcome: replied }\n')).toEqual(
      [],
    );
  });

  it('a file that cannot be read as a scenario at all is its schema problems alone', async () => {
    const problems = await problemsOf('broken', 'name: x\nexpect: { toolCalls: [freez_card] }\n');
    expect(problems.every((p) => !p.includes('freez_card'))).toBe(true);
    expect(problems.some((p) => p.includes('inbox'))).toBe(true);
  });
});
