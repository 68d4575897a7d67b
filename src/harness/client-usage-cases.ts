/**
 * A model client's usage that is not JSON data, as cases of `loopgate run`:
 * `contract:client-usage/<id>`.
 *
 * The SDK adapters leave out usage that is not a token count; a team's own
 * `ModelClient` hands the loop whatever it built. The `model.result` record
 * stores the usage as the client reported it, and the log holds only JSON data:
 * a usage with a symbol-keyed property (an SDK object's own metadata spread
 * into it), a count that is `NaN` or a `BigInt` (a client summing with `10n`)
 * cannot be stored. The turn then ends
 * `failed{internal}`, and its detail is all the team has to find the fault by:
 * it must name the field (`model.result.payload.result.usage…`) and the problem.
 *
 * An optional count present but `undefined` (`cacheReadTokens: raw.cached`, for
 * a provider that reports none) is what `Usage`'s type allows, and reads as the
 * count left out: the turn replies and the record holds the usage without it.
 * No scenario can script such a usage (YAML has no symbols, no `undefined`, no `NaN`).
 */
import { reply } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { AgentLoop, EventLog, loopDeps, type ModelClient, type ModelDelta, type Usage } from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { checksCase, type Case } from './cases.ts';
import { VirtualClock } from './virtual-clock.ts';

const USAGES: readonly {
  readonly what: string;
  readonly usage: Usage;
  readonly detail?: string;
  readonly stored?: Usage;
  readonly secrets?: readonly string[];
}[] = [
  {
    what: 'a symbol-keyed property',
    usage: { inputTokens: 120, outputTokens: 30, [Symbol('sdk.raw')]: { id: 'resp_1' } } as Usage,
    detail: 'LogAppendError: cannot append event: model.result.payload.result.usage: symbol-keyed properties are not JSON data',
  },
  {
    // A count keyed by the team's account key (a client spreading a raw per-key breakdown), which the agent's secrets
    // redact, then an SDK's symbol: the field named is still the usage (mutation seed 37, builders.ts).
    what: 'a count keyed by a secret, then a symbol-keyed property',
    usage: { inputTokens: 120, outputTokens: 30, 'acct-9f8e7d6c5b4a3210': 4, [Symbol('sdk.raw')]: { id: 'resp_1' } } as Usage,
    secrets: ['acct-9f8e7d6c5b4a3210'],
    detail: 'LogAppendError: cannot append event: model.result.payload.result.usage: symbol-keyed properties are not JSON data',
  },
  {
    what: 'an input count that is NaN',
    usage: { inputTokens: Number.NaN, outputTokens: 30 },
    detail: 'LogAppendError: cannot append event: model.result.payload.result.usage.inputTokens: NaN is not JSON data',
  },
  {
    what: 'an output count that is a BigInt',
    usage: { inputTokens: 120, outputTokens: 30n } as unknown as Usage,
    detail: 'LogAppendError: cannot append event: model.result.payload.result.usage.outputTokens: BigInt is not JSON data (use a string)',
  },
  {
    what: 'a cache count present but undefined',
    usage: { inputTokens: 120, outputTokens: 30, cacheReadTokens: undefined },
    stored: { inputTokens: 120, outputTokens: 30 },
  },
];

async function usageNotJsonNamedInTheOutcome(): Promise<CheckResult[]> {
  const checks: CheckResult[] = [];
  for (const { what, usage, detail, stored, secrets } of USAGES) {
    const clock = new VirtualClock();
    const model = new ScriptedModelClient([reply('ORD-1001 was delivered.', usage)], { clock });
    const log = new EventLog(clock);
    const loop = new AgentLoop(loopDeps({ log, model, agent: secrets ? { secrets } : {}, clock }));
    loop.send('Where is ORD-1001?', { id: 'ask' });
    const [result] = await loop.drain();
    const recorded = log.events.find((e) => e.type === 'model.result')?.payload as { result?: { usage?: unknown } } | undefined;
    const expected = JSON.stringify(stored ? { outcome: { kind: 'replied' }, usage: stored } : { outcome: { kind: 'failed', reason: 'internal', detail } });
    const actual = JSON.stringify(stored ? { outcome: result?.outcome, usage: recorded?.result?.usage } : { outcome: result?.outcome }) ?? 'no outcome';
    checks.push({
      name: stored ? `usage with ${what}: replied, the count stored as left out` : `usage with ${what}: failed{internal}, naming the field`,
      passed: actual === expected,
      message: actual === expected ? actual : `expected ${expected}, got ${actual}`,
      expected,
      actual,
    });
  }
  return checks;
}

/**
 * The same for a streamed delta: the loop stores each delta a client streams
 * (`model.delta`), and a `tool_call_start` or a delta of a kind it does not
 * know is stored as the client built it. One that carries a value that is not
 * JSON data (an SDK's `BigInt` index, raw metadata) cannot be stored; what the
 * team sees of it (the call's `model.result`, kept in the history and the
 * trace) must name the field, `model.delta.payload.delta.<key>`.
 */
async function deltaNotJsonNamedWhereSeen(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const script = new ScriptedModelClient([reply('ORD-1001 was delivered.')], { clock });
  const model: ModelClient = {
    name: 'streams-a-raw-delta',
    call(request, onDelta) {
      onDelta?.({ kind: 'tool_call_start', index: 0, id: 'call_1', name: 'lookup', raw: 10n } as unknown as ModelDelta);
      return script.call(request, onDelta);
    },
  };
  const log = new EventLog(clock);
  const loop = new AgentLoop(loopDeps({ log, model, agent: {}, clock }));
  loop.send('Where is ORD-1001?', { id: 'ask' });
  await clock.run(loop.drain());
  const first = log.events.find((e) => e.type === 'model.result')?.payload as { result?: { message?: unknown } } | undefined;
  const seen = JSON.stringify(first?.result?.message ?? 'no model.result');
  const field = 'model.delta.payload.delta.raw: BigInt is not JSON data';
  return [
    {
      name: 'a delta with a BigInt: the stored model.result names the field',
      passed: seen.includes(field),
      message: seen.includes(field) ? seen : `expected a model.result naming "${field}", got ${seen}`,
      expected: field,
      actual: seen,
    },
  ];
}

export function clientUsageCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:client-usage/usage-not-json-fails-internal-naming-the-field',
        title:
          "client usage: a client's usage that is not JSON data (a symbol key, NaN, a BigInt) fails the turn internal, naming the field; an undefined count is left out",
        file: 'src/harness/client-usage-cases.ts',
      },
      usageNotJsonNamedInTheOutcome,
    ),
    checksCase(
      {
        id: 'contract:client-usage/delta-not-json-names-the-field',
        title: 'client usage: a streamed delta that is not JSON data (a BigInt in a tool_call_start) is refused, the stored model.result naming the field',
        file: 'src/harness/client-usage-cases.ts',
      },
      deltaNotJsonNamedWhereSeen,
    ),
  ];
}
