/**
 * The harness taps the agent's own checkpoint hooks (for `at: { checkpoint: N }`) without changing what they are: a
 * hook written as a class — its name a getter over a private field, its run a method — runs as written (review of
 * stop 59, HIGH-2: the tap spread the hook into a plain object, dropping the getter, and every case of such an agent
 * failed "checkpoints[0] must be an object with a name and a run function").
 */
import { describe, expect, it } from 'vitest';
import type { AgentFactory, CheckpointHook } from '../../kernel/index.ts';
import { parseScenario } from '../scenario/load.ts';
import { runScenario } from '../second-host.ts';

class OpenTodos implements CheckpointHook {
  readonly #name = 'open-todos';
  runs = 0;
  get name(): string {
    return this.#name;
  }
  run(): { extend?: string } | undefined {
    this.runs++;
    return this.runs === 1 ? { extend: 'Reminder: add a note first.' } : undefined;
  }
}

const scenario = (trigger: boolean) =>
  parseScenario(
    [
      'name: a class-based checkpoint',
      'agent: todos',
      'provider:',
      '  script:',
      '    - reply: Done.',
      '    - reply: Noted, done.',
      'inbox:',
      '  - say: Is it done?',
      ...(trigger ? ['  - cancel: user', '    at: { checkpoint: 2 }'] : []),
      'expect: {}',
    ].join('\n'),
    'todos.yaml',
  );

describe("the agent's own checkpoint hooks, tapped", () => {
  for (const trigger of [false, true]) {
    it(`run as written: a class with a getter name and a method run${trigger ? ', with a checkpoint trigger' : ''}`, async () => {
      const factory: AgentFactory = () => ({ tools: [], checkpoints: [new OpenTodos()] });
      const run = await runScenario(scenario(trigger), { seed: 1, agents: { agents: new Map([['todos', factory]]) } });
      expect(run.thrown).toBeUndefined();
      expect(run.results.map((r) => r.outcome.kind)).toEqual([trigger ? 'cancelled' : 'replied']);
      expect(run.requests.length).toBe(2);
    });
  }
});

describe('a malformed checkpoints setting, with a checkpoint trigger', () => {
  it('is refused by the kernel in its words, not a TypeError of the tap', async () => {
    const factory = (() => ({ tools: [], checkpoints: { name: 'open-todos', run: () => undefined } })) as unknown as AgentFactory;
    const error = await runScenario(scenario(true), { seed: 1, agents: { agents: new Map([['todos', factory]]) } }).then(
      (run) => run.thrown,
      (e: unknown) => e,
    );
    expect(String((error as Error)?.message ?? error)).toContain('checkpoints must be a list');
  });
});
