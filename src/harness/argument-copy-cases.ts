/**
 * The model's tool arguments, left as the model client made them, as a case of
 * `loopgate run`: `contract:arguments/<id>`.
 *
 * The loop hands a tool its own frozen copy of the validated arguments; the
 * object the model client returned stays the client's (a `ModelClient` is the
 * agent's own code: a recording client that writes the result to its own log
 * after the turn, redacting it in place, must not meet a frozen object). A
 * schema may pass a nested value through by reference (`z.unknown()`, a
 * record's values, a loose object's extra keys), so arguments with any nested
 * object are validated from a copy. Arguments a model copied from a hostile page
 * can carry a `__proto__` key first (JSON.parse makes it an own key): they are
 * no exception. No scenario holds the client's object after the turn, so this
 * case asks the loop directly.
 */
import { z } from 'zod';
import { call, reply, toolUse } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { AgentLoop, defineTool, EventLog, loopDeps, type Agent } from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { checksCase, type Case } from './cases.ts';
import { VirtualClock } from './virtual-clock.ts';

const SENT = '{"__proto__":{"admin":true},"query":"late parcels","filters":{"status":["shipped","delayed"],"since":{"days":7}}}';

async function nestedArgumentsLeftUnfrozen(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const received: unknown[] = [];
  const agent: Agent = {
    tools: [
      defineTool({
        name: 'search_orders',
        description: 'Search the orders.',
        input: z.object({ query: z.string(), filters: z.record(z.string(), z.unknown()) }),
        sideEffect: 'NONE',
        run: (args) => {
          received.push(args);
          return { found: 2 };
        },
      }),
    ],
  };
  // As an SDK's JSON.parse makes them: `__proto__` an own key, first.
  const sent = JSON.parse(SENT) as { filters: { status: string[]; since: { days: number } } };
  const model = new ScriptedModelClient([toolUse([call('find', 'search_orders', sent)]), reply('Two orders are late.')], { clock });
  const loop = new AgentLoop(loopDeps({ log: new EventLog(clock), model, agent }));
  loop.send('Which orders are late?', { id: 'ask' });
  const [result] = await loop.drain();
  const kind = result?.outcome.kind;
  const got = received[0] as { query?: unknown; filters?: { status?: unknown; since?: unknown } } | undefined;
  const frozen = [
    ['the arguments', sent],
    ['filters', sent.filters],
    ['filters.status', sent.filters.status],
    ['filters.since', sent.filters.since],
  ]
    .filter(([, value]) => Object.isFrozen(value))
    .map(([name]) => name);
  const shared = got?.filters !== undefined && (got.filters.status === sent.filters.status || got.filters.since === sent.filters.since);
  const expected = { query: 'late parcels', filters: { status: ['shipped', 'delayed'], since: { days: 7 } } };
  return [
    { name: 'replied', passed: kind === 'replied', message: `outcome ${String(kind)}`, expected: 'replied', actual: String(kind) },
    {
      name: 'the tool got the arguments, without the __proto__ key',
      passed: received.length === 1 && JSON.stringify(got) === JSON.stringify(expected),
      message: `${received.length} run(s), got ${JSON.stringify(got)}`,
      expected: JSON.stringify(expected),
      actual: JSON.stringify(got),
    },
    {
      name: "nothing of the model client's object is frozen",
      passed: frozen.length === 0,
      message: frozen.length === 0 ? 'none frozen' : `frozen by the loop: ${frozen.join(', ')}`,
      expected: 'none frozen',
      actual: frozen.join(', ') || 'none frozen',
    },
    {
      name: "the tool's nested values are its own copy",
      passed: got !== undefined && !shared,
      message: shared ? "the tool's filters hold the model client's own arrays or objects" : 'copied',
    },
  ];
}

export function argumentCopyCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:arguments/nested-arguments-with-a-proto-key-left-unfrozen',
        title: "arguments: nested arguments with a __proto__ key first are validated from a copy; the model client's object is never frozen",
        file: 'src/harness/argument-copy-cases.ts',
      },
      nestedArgumentsLeftUnfrozen,
    ),
  ];
}
