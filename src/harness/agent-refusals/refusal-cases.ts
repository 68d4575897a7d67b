/**
 * The agent refusal table (refusal-table.ts) as cases of `loopgate run`:
 * `contract:agent/<row>`, the kernel's contract with whoever writes an agent.
 * Each row's agent is built by every path that builds one:
 *
 * - `check`: what `loopgate run` and `check-host` do before anything runs
 *   (inspect-agent.ts), whose lines the user reads;
 * - `loop`: the loop's own dependencies (`loopDeps`), as the second host and an
 *   embedding application build them;
 * - `host`: the production host's tool pipeline and prompt (host-agent.ts).
 *
 * Every path must refuse a refused row with exactly its line, accept an accepted
 * one, and run none of its tools. What `loopgate run` prints is every line the
 * check finds, not only the first: that list must hold the row's line (or, for
 * an agent with several problems, the row's `listed` lines) and no other (a line about a tool that is there, say, sends the user after a
 * problem the agent does not have).
 */
import { EventLog, loopDeps, type Agent, type ModelClient } from '../../kernel/index.ts';
import { defaultHostConfig } from '../../host/config.ts';
import { hostPrompt, hostToolExecutor } from '../../host/host-agent.ts';
import { createRedactor } from '../../kernel/index.ts';
import type { CheckResult } from '../../report/results.ts';
import { statusFromChecks, type Case } from '../cases.ts';
import { VirtualClock } from '../virtual-clock.ts';
import { inspectFactory } from '../world/inspect-agent.ts';
import { REFUSAL_TABLE, toolRuns, type RefusalRow } from './refusal-table.ts';

/** Never asked: building the loop's dependencies sends nothing. */
const UNUSED_MODEL = {
  name: 'unused',
  call: () => {
    throw new Error('the model was called while an agent was being built');
  },
} as unknown as ModelClient;

type Build = (agent: Agent) => Promise<string | undefined>;

/**
 * The first line of what building `agent` threw, or undefined when it built. An
 * error whose `name` is not its class's (a class that forgot to set it, or set
 * it wrong) is told apart: `String(error)` and the stack a team logs lead with
 * the name, and code that tells refusals apart matches on it.
 */
const firstLineThrown = (build: (agent: Agent) => unknown): Build => {
  return async (agent) => {
    try {
      await build(agent);
      return undefined;
    } catch (error) {
      const line = (error instanceof Error ? error.message : String(error)).split('\n')[0];
      if (error instanceof Error && error.name !== error.constructor.name)
        return `${line} (thrown named ${JSON.stringify(error.name)}, not as its class ${error.constructor.name})`;
      return line;
    }
  };
};

const PATHS: readonly { readonly name: string; readonly build: Build }[] = [
  {
    name: 'check',
    build: async (agent) => (await inspectFactory(() => agent)).problems[0],
  },
  {
    name: 'loop',
    build: firstLineThrown((agent) => loopDeps({ log: new EventLog(new VirtualClock()), model: UNUSED_MODEL, agent })),
  },
  {
    name: 'host',
    build: firstLineThrown((agent) => {
      const config = defaultHostConfig();
      hostToolExecutor(config, agent, createRedactor());
      hostPrompt(config, agent);
    }),
  },
];

export function agentRefusalCases(): Case[] {
  return REFUSAL_TABLE.map((row) => ({
    id: `contract:agent/${row.id}`,
    kind: 'contract' as const,
    title: `agent: ${row.title}`,
    file: 'src/harness/agent-refusals/refusal-table.ts',
    run: async () => {
      const checks = await checkRow(row);
      return { status: statusFromChecks(checks), outcome: row.refused === undefined ? 'accepted' : 'refused', checks };
    },
  }));
}

async function checkRow(row: RefusalRow): Promise<CheckResult[]> {
  const checks: CheckResult[] = [];
  const runsBefore = toolRuns.count;
  for (const path of PATHS) {
    const got = await path.build(row.agent());
    const passed = got === row.refused;
    const expected = row.refused === undefined ? 'accepted' : `refused: ${row.refused}`;
    const actual = got === undefined ? 'accepted' : `refused: ${got}`;
    checks.push({ name: `built by ${path.name}`, passed, message: passed ? actual : `expected ${expected}; got ${actual}`, expected, actual });
  }
  const lines = (await inspectFactory(() => row.agent())).problems;
  const only = row.listed ?? (row.refused === undefined ? [] : [row.refused]);
  const listed = JSON.stringify(lines) === JSON.stringify(only);
  checks.push({
    name: 'check lists only its line',
    passed: listed,
    message: listed ? `${lines.length} line(s)` : `expected ${JSON.stringify(only)}; got ${JSON.stringify(lines)}`,
    expected: JSON.stringify(only),
    actual: JSON.stringify(lines),
  });
  const ran = toolRuns.count - runsBefore;
  checks.push({ name: 'runs nothing', passed: ran === 0, message: `${ran} tool run(s) while the agent was built` });
  return checks;
}
