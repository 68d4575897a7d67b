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
 *
 * `lenientParse`, the layer that reads a model's argument text, is public too (an
 * adapter or executor of a team's own calls it), and its result names each repair
 * it made (`Repair`: `code_fence`, `trailing_comma`, `embedded_object`), in the
 * order made — what such a caller logs to see how often its model needs one. The
 * loop reads only the value, so `contract:arguments/lenient-parse-names-its-repairs`
 * asks the function.
 */
import { z } from 'zod';
import { call, reply, toolUse } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { AgentLoop, defineTool, EventLog, lenientParse, loopDeps, type Agent } from '../kernel/index.ts';
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

/**
 * Flat arguments under a schema that hands its input back as it is (`z.unknown()` offered as an object, a team's
 * free-form tool): flat arguments are validated from the client's own object, not a copy, so the loop must freeze a
 * copy of what the schema gives back, never the object itself (outside probe 69, validate-freeze-caller: validation
 * that froze what such a schema handed back passed every case, each of whose schemas built a new object).
 */
async function handedBackArgumentsLeftUnfrozen(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const received: unknown[] = [];
  const agent: Agent = {
    tools: [
      defineTool({
        name: 'log_event',
        description: 'Records an event with whatever fields it has.',
        input: z.unknown().meta({ type: 'object' }),
        sideEffect: 'NONE',
        run: (args) => {
          received.push(args);
          return { logged: true };
        },
      }),
    ],
  };
  const sent: Record<string, unknown> = { kind: 'late_parcel', order_id: 'ORD-7', days: 3 };
  const model = new ScriptedModelClient([toolUse([call('log', 'log_event', sent)]), reply('Logged.')], { clock });
  const loop = new AgentLoop(loopDeps({ log: new EventLog(clock), model, agent }));
  loop.send('Log the late parcel.', { id: 'ask' });
  const [result] = await loop.drain();
  const kind = result?.outcome.kind;
  const got = received[0];
  return [
    { name: 'replied', passed: kind === 'replied', message: `outcome ${String(kind)}`, expected: 'replied', actual: String(kind) },
    {
      name: 'the tool got the arguments as sent, as a frozen object of its own',
      passed: received.length === 1 && JSON.stringify(got) === JSON.stringify(sent) && got !== sent && Object.isFrozen(got),
      message: `${received.length} run(s), got ${JSON.stringify(got)}${got === sent ? " (the model client's own object)" : ''}`,
    },
    {
      name: "the model client's object is not frozen",
      passed: !Object.isFrozen(sent),
      message: Object.isFrozen(sent) ? 'frozen by the loop' : 'not frozen',
      expected: 'not frozen',
      actual: Object.isFrozen(sent) ? 'frozen' : 'not frozen',
    },
  ];
}

/** Argument texts as models send them, and what the lenient layer answers: the value and the repairs named, or a refusal. */
const LENIENT: readonly { readonly what: string; readonly text: string; readonly value?: unknown; readonly repairs?: readonly string[] }[] = [
  { what: 'valid JSON', text: '{"order_id":"ORD-7"}', value: { order_id: 'ORD-7' }, repairs: [] },
  { what: 'in a code fence', text: '```json\n{"order_id":"ORD-7"}\n```', value: { order_id: 'ORD-7' }, repairs: ['code_fence'] },
  { what: 'a trailing comma', text: '{"order_ids":["ORD-7","ORD-8",],}', value: { order_ids: ['ORD-7', 'ORD-8'] }, repairs: ['trailing_comma'] },
  {
    what: 'a trailing comma in a code fence',
    text: '```\n{"order_id":"ORD-7",}\n```',
    value: { order_id: 'ORD-7' },
    repairs: ['code_fence', 'trailing_comma'],
  },
  { what: 'one object in prose', text: 'Sure, here you go: {"order_id":"ORD-7"} Thanks!', value: { order_id: 'ORD-7' }, repairs: ['embedded_object'] },
  {
    what: 'one object with a trailing comma in prose',
    text: 'Here are the arguments: {"order_id":"ORD-7", "note":"late",} as asked.',
    value: { order_id: 'ORD-7', note: 'late' },
    repairs: ['embedded_object', 'trailing_comma'],
  },
  { what: 'two objects in prose (refused)', text: 'Either {"order_id":"ORD-7"} or {"order_id":"ORD-8"}.' },
  { what: 'cut short (refused)', text: '{"order_id":"ORD-7","note":"la' },
  // One whole object inside a list cut short is part of a larger structure, never a call of its own (outside probe 69).
  { what: 'one object inside a list cut short (refused)', text: 'Refunding both: [{"order_id":"ORD-7","amount":5}, {"order_id":"ORD-8","amou' },
];

function lenientParseNamesItsRepairs(): CheckResult[] {
  return LENIENT.map(({ what, text, value, repairs }) => {
    const parsed = lenientParse(text);
    const actual = parsed.ok ? JSON.stringify({ value: parsed.value, repairs: parsed.repairs }) : 'refused';
    const expected = value === undefined ? 'refused' : JSON.stringify({ value, repairs });
    return {
      name: `${what}: ${expected === 'refused' ? 'refused' : `repairs ${JSON.stringify(repairs)}`}`,
      passed: actual === expected,
      message: actual,
      expected,
      actual,
    };
  });
}

/**
 * Arguments nested past the limit are logged cut at it (their call refused
 * INVALID_ARGUMENTS); what is kept above the cut keeps its shape: an array stays
 * an array, not an object keyed "0", "1".
 */
async function tooDeepArgumentsLoggedWithTheirArrays(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  let runs = 0;
  const agent: Agent = {
    tools: [
      defineTool({
        name: 'tag_orders',
        description: 'Tag the orders.',
        input: z.object({ tags: z.unknown() }),
        sideEffect: 'NONE',
        run: () => {
          runs++;
          return { tagged: 0 };
        },
      }),
    ],
  };
  let nested: unknown = 'leaf';
  for (let i = 0; i < 70; i++) nested = [nested];
  const model = new ScriptedModelClient([toolUse([call('tag', 'tag_orders', { tags: ['a', nested] })]), reply('Nothing was tagged.')], { clock });
  const log = new EventLog(clock);
  const loop = new AgentLoop(loopDeps({ log, model, agent }));
  loop.send('Tag the late orders.', { id: 'ask' });
  await loop.drain();
  let args: unknown;
  for (let i = 0; i < log.length; i++) {
    const e = log.at(i) as { type?: string; payload?: { content?: { type: string; id?: string; args?: unknown }[] } };
    const b = e.type === 'assistant.message' ? e.payload?.content?.find((x) => x.type === 'tool_call' && x.id === 'tag') : undefined;
    if (b) args = b.args;
  }
  const shape: string[] = [];
  let at: unknown = (args as { tags?: unknown } | undefined)?.tags;
  while (Array.isArray(at) || (at !== null && typeof at === 'object')) {
    shape.push(Array.isArray(at) ? 'array' : 'object');
    at = Array.isArray(at) ? at[at.length - 1] : Object.values(at as object).at(-1);
  }
  const arrays = shape.length > 0 && shape.every((k) => k === 'array');
  const got = `${shape.length} levels kept (${[...new Set(shape)].join(', ') || 'none'}), then ${JSON.stringify(at)}`;
  return [
    { name: 'the tool never ran', passed: runs === 0, message: `${runs} run(s)`, expected: '0 run(s)', actual: `${runs} run(s)` },
    {
      name: "the logged call's arguments keep their arrays down to the cut",
      passed: arrays && shape.length < 70 && typeof at === 'string' && at !== 'leaf',
      message: got,
      expected: 'arrays only, cut above level 70',
      actual: got,
    },
  ];
}

/**
 * A schema that changes the arguments before checking them (`z.preprocess` reading a missing address as `{}`):
 * zod reports a field missing inside a value the model sent as `null`, and the validation message walks the
 * model's arguments along that path. The model is told which field is missing, the tool never runs
 * (mutation seed 34).
 */
async function missingFieldUnderAPreprocessedNull(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  let ran = 0;
  const agent: Agent = {
    tools: [
      defineTool({
        name: 'ship_order',
        description: 'Ship an order to an address.',
        input: z.object({ order_id: z.string(), address: z.preprocess((v) => v ?? {}, z.object({ city: z.string() })) }),
        sideEffect: 'NONE',
        run: () => {
          ran++;
          return { shipped: true };
        },
      }),
    ],
  };
  const model = new ScriptedModelClient(
    [toolUse([call('ship', 'ship_order', { order_id: 'ORD-1001', address: null })]), reply('Which city should it go to?')],
    { clock },
  );
  const log = new EventLog(clock);
  const loop = new AgentLoop(loopDeps({ log, model, agent }));
  loop.send('Ship ORD-1001.', { id: 'ask' });
  const [result] = await loop.drain();
  const kind = String(result?.outcome.kind);
  const told = log.events
    .flatMap((e) => {
      if (e.type !== 'tool.result') return [];
      const { status, content } = e.payload as { status: string; content: string };
      return [`${status} ${content}`];
    })
    .join(' | ');
  const says = /^failed .*INVALID_ARGUMENTS.*missing required field \\+"city\\+" in address/s.test(told);
  return [
    { name: 'replied', passed: kind === 'replied', message: `outcome ${kind}`, expected: 'replied', actual: kind },
    { name: 'the tool never ran', passed: ran === 0, message: `ran ${ran} time(s)`, expected: '0', actual: String(ran) },
    {
      name: 'the model is told the missing field',
      passed: says,
      message: says ? told : `the result reads ${JSON.stringify(told)}`,
      expected: 'failed INVALID_ARGUMENTS … missing required field "city" in address',
      actual: told,
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
    checksCase(
      {
        id: 'contract:arguments/arguments-a-schema-hands-back-left-unfrozen',
        title:
          "arguments: flat arguments a schema hands back as they are (z.unknown()) reach the tool as a frozen copy; the model client's object is never frozen",
        file: 'src/harness/argument-copy-cases.ts',
      },
      handedBackArgumentsLeftUnfrozen,
    ),
    checksCase(
      {
        id: 'contract:arguments/lenient-parse-names-its-repairs',
        title:
          'arguments: lenientParse names each repair it made, in order (code fence, trailing comma, one object in prose), and refuses two objects or a cut',
        file: 'src/harness/argument-copy-cases.ts',
      },
      lenientParseNamesItsRepairs,
    ),
    checksCase(
      {
        id: 'contract:arguments/too-deep-arguments-logged-with-their-arrays',
        title: 'arguments: arguments nested past the limit are logged cut at it, their arrays still arrays',
        file: 'src/harness/argument-copy-cases.ts',
      },
      tooDeepArgumentsLoggedWithTheirArrays,
    ),
    checksCase(
      {
        id: 'contract:arguments/missing-field-under-a-preprocessed-null',
        title: 'arguments: a field missing inside a value the model sent as null, which the schema reads as {}, is named to the model; the tool never runs',
        file: 'src/harness/argument-copy-cases.ts',
      },
      missingFieldUnderAPreprocessedNull,
    ),
  ];
}
