/**
 * The declarations are precise, not `any`: each misuse below must be a type error
 * (an unused @ts-expect-error fails the check), and the public types a consumer
 * reaches for are all there.
 */
import { AgentHost, defineConfig, defineInvariant, defineTool, MemoryEventStore, type EventStore, type Scenario } from 'loopgate';
import { describeScenarios } from 'loopgate/vitest';
import { z } from 'zod';

export const store: EventStore = new MemoryEventStore();
export const hostClass: typeof AgentHost = AgentHost;
export const describeMine: typeof describeScenarios = describeScenarios;

defineTool({
  name: 'bad_level',
  description: 'x',
  input: z.object({}),
  // @ts-expect-error: not a side-effect level
  sideEffect: 'SOMETIMES',
  run: () => ({}),
});
defineTool({
  name: 'bad_argument',
  description: 'x',
  input: z.object({ seat: z.string() }),
  sideEffect: 'NONE',
  // @ts-expect-error: `row` is not in the input schema
  run: ({ row }) => ({ row }),
});
// @ts-expect-error: not a whole scenario (no name)
export const nameless: Scenario = { agent: 'none' };
// @ts-expect-error: an agent is a factory, not a list of tools
defineConfig({ agents: { travel: [] } });
export const neverBooksTwice = defineInvariant({ id: 'never-books-twice', title: 'x', check: () => undefined });
