/**
 * A factory that declares different tools on different builds (probe 17, F5:
 * odd builds `search_kb {q: number}`, even builds `search_kb {query}` +
 * `open_ticket`): the loop case passed, the @host case failed on `executions`
 * only, the fuzzer fuzzed one build's tools. Now the config's inspection builds
 * the agent twice and names the difference (exit 2 from the CLI), and a case
 * whose build differs from the inspected one fails naming it.
 */
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { defineTool, type AgentFactory } from '../../kernel/index.ts';
import { AgentBuildError, buildAgent } from './agent-under-test.ts';
import { inspectFactory } from './inspect-agent.ts';
import { VirtualClock } from '../virtual-clock.ts';
import { seededRandom } from './seeded-random.ts';

const tool = (name: string, input: z.ZodObject, sideEffect: 'NONE' | 'STATEFUL' = 'NONE') =>
  defineTool({ name, description: name, input, sideEffect, run: () => 1 });

function varying(builds: (n: number) => ReturnType<typeof tool>[]): AgentFactory {
  let n = 0;
  return () => ({ tools: builds(++n) });
}

describe('a factory whose tools vary between builds', () => {
  it('names other tool names', async () => {
    const factory = varying((n) =>
      n % 2 === 0
        ? [tool('search_kb', z.object({ query: z.string() })), tool('open_ticket', z.object({ title: z.string() }))]
        : [tool('search_kb', z.object({ query: z.string() }))],
    );
    expect((await inspectFactory(factory)).problems).toEqual([
      'the factory declares different tools on different builds: build 1 declares search_kb, build 2 declares open_ticket, search_kb; every build (one per case or conversation) must declare the same tools',
    ]);
  });

  it('names a tool whose input schema or side effect differs', async () => {
    const schema = varying((n) => [tool('search_kb', n % 2 === 0 ? z.object({ query: z.string() }) : z.object({ q: z.number() }))]);
    expect((await inspectFactory(schema)).problems).toEqual([
      'the factory declares different tools on different builds: tool search_kb: its input schema differs ({"type":"object","properties":{"q":{"type":"number"}},"required":["q"]} then {"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}); every build (one per case or conversation) must declare the same tools',
    ]);
    const effect = varying((n) => [tool('book', z.object({}), n > 1 ? 'STATEFUL' : 'NONE')]);
    expect((await inspectFactory(effect)).problems[0]).toContain('tool book: its side effect differs (NONE then STATEFUL)');
  });

  it('a factory that builds the same tools each time has no problem; a case build that differs from the inspected one fails naming it', async () => {
    let n = 0;
    const factory: AgentFactory = () => ({ tools: ++n <= 2 ? [tool('a', z.object({}))] : [tool('b', z.object({}))] });
    const inspection = await inspectFactory(factory);
    expect(inspection.problems).toEqual([]);
    const registry = { agents: new Map([['shop', factory]]), inspected: new Map([['shop', inspection]]) };
    await expect(buildAgent('shop', registry, { clock: new VirtualClock(), random: seededRandom(1) })).rejects.toThrow(
      new AgentBuildError(
        'agent shop: its tools differ from the build loopgate inspected: the inspected build declares a, this build declares b; every build (one per case or conversation) must declare the same tools',
      ),
    );
  });
});
