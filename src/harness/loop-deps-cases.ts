/**
 * The loop's own dependencies breaking their contract by throwing at once, as
 * cases of `loopgate run`: `contract:loop-deps/<id>`.
 *
 * A `ModelClient`, a tool executor (`LoopDepsInput.tools`), the host's
 * `persist` and a `TurnTracing` are a team's code handed to `loopDeps`. Each may
 * be a plain function that throws instead of returning a rejected promise (a
 * client checking its configuration before its first `await`, a persist that
 * refuses a closed connection, an exporter whose `begin` fails). The bundled
 * clients, executor, stores and tracing all reject or never fail, so no scenario
 * reaches these paths. Checked: the loop never throws, and each ends as its
 * asynchronous twin does — a client's throw as its rejection, an executor's as
 * an answered call (PIPELINE_ERROR) and a turn that goes on, a persist's as
 * `failed{persistence}`, a tracing hook's not at all (the turn replies with a
 * trace of its own).
 */
import { call, reply, toolUse } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { defaultHostConfig } from '../host/config.ts';
import { AgentHost } from '../host/host.ts';
import { MemoryEventStore } from '../stores/memory-store.ts';
import {
  AgentLoop,
  agentTools,
  createRedactor,
  decodeRecords,
  defineTool,
  EventLog,
  InputError,
  loopDeps,
  toRecord,
  Tracer,
  type Agent,
  type LoopDepsInput,
  type ModelClient,
  type ToolExecutor,
  type TurnResult,
} from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { checksCase, type Case } from './cases.ts';
import { VirtualClock } from './virtual-clock.ts';
import { z } from 'zod';

const FILE = 'src/harness/loop-deps-cases.ts';

const label = (r: TurnResult | undefined): string => {
  const o = r?.outcome;
  if (!o) return '(no turn)';
  return o.kind === 'failed' ? `failed{${o.reason}}: ${o.detail ?? ''}` : o.kind;
};

async function oneTurn(input: Omit<LoopDepsInput, 'log'>, clock: VirtualClock): Promise<{ result: TurnResult | undefined; log: EventLog; threw: unknown }> {
  const log = new EventLog(clock);
  try {
    const loop = new AgentLoop(loopDeps({ ...input, log, clock }));
    loop.send('Where is ORD-1001?', { id: 'ask' });
    const [result] = await loop.drain();
    return { result, log, threw: undefined };
  } catch (error) {
    return { result: undefined, log, threw: error };
  }
}

const check = (name: string, passed: boolean, actual: string, expected: string): CheckResult => ({ name, passed, message: actual, expected, actual });

/**
 * A `newId` that keeps giving ids the log's messages hold (a counter reset on restart, a seeded generator): the loop
 * asks it again, a bounded number of times, then refuses the send naming it — never loops for ever, never takes an
 * id a message already has. Mutation seed 46: the bound counted the wrong way, and no case reached it (the process
 * would hang in `send`).
 */
async function newIdAlwaysTaken(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  let asked = 0;
  // The id a caller took, 1,000 times over; a fresh one only after that.
  const newId = () => (++asked <= 1_000 ? 'taken' : 'fresh');
  const loop = new AgentLoop(loopDeps({ model: new ScriptedModelClient([reply('ok')], { clock }), log: new EventLog(clock), clock, newId }));
  loop.send('first', { id: 'taken' });
  let got: string;
  try {
    got = `sent as ${loop.send('second')} after ${asked} ids`;
  } catch (error) {
    got = `refused after ${asked} ids: ${(error as Error).message}`;
  }
  const want = 'refused after 1000 ids: newId gave 1,000 ids in a row that messages of this log hold already';
  return [check('a send whose every new id is taken is refused after 1,000 tries', got === want, got, want)];
}

/**
 * `send` given a text that is not well-formed UTF-16 (half a surrogate pair) by a caller of the loop itself, not the
 * host's door (which refuses it before the loop sees it): refused with an `InputError` naming the offset, nothing
 * logged; a JavaScript caller's text that is not a string at all (a list) is refused by the log's schema, not by a
 * TypeError from the surrogate scan. Mutation seed 52: the scan's `typeof text === 'string'` guard made `true`,
 * `false` or inverted, and no case sent such a text to a loop directly.
 */
async function sendTextNotWellFormed(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const log = new EventLog(clock);
  const loop = new AgentLoop(loopDeps({ model: new ScriptedModelClient([reply('ok')], { clock }), log, clock }));
  const attempt = (text: unknown): string => {
    try {
      return `sent as ${loop.send(text as string, { id: 'm1' })}`;
    } catch (error) {
      return `${error instanceof InputError ? 'InputError' : (error as Error).name}: ${(error as Error).message}`;
    }
  };
  const lone = attempt('Where is ORD-1001? \ud800');
  const wantLone = 'InputError: send: the text holds half a UTF-16 surrogate pair at offset 19: no character, and a provider would refuse it';
  const list = attempt(['Where is ORD-1001?']);
  const kept = log.events.length;
  return [
    check('a text holding a lone surrogate is refused, naming its offset', lone === wantLone, lone, wantLone),
    check(
      'a text that is a list is refused by the log, not a TypeError',
      !list.startsWith('sent') && !list.startsWith('TypeError'),
      list,
      'refused (not a TypeError)',
    ),
    check('nothing logged', kept === 0, `${kept} event(s)`, '0 event(s)'),
  ];
}

async function clientThrowsAtOnce(): Promise<CheckResult[]> {
  const failure = () => new Error('client misconfigured: no API key');
  const throwing: ModelClient = {
    name: 'team:sync',
    call: () => {
      throw failure();
    },
  };
  const rejecting: ModelClient = { name: 'team:async', call: async () => Promise.reject(failure()) };
  // No retries: the retry tiers would wait on the virtual clock, and are the same for both.
  const config = {
    retry: { immediateRetries: 0, immediateDelayMs: 1_000, backoffRetries: 0, backoffBaseMs: 2_000, backoffMaxMs: 8_000, jitter: 0, maxRetryAfterMs: 60_000 },
  };
  const sync = await oneTurn({ model: throwing, config }, new VirtualClock());
  const async_ = await oneTurn({ model: rejecting, config }, new VirtualClock());
  return [
    check('the loop did not throw', sync.threw === undefined, String(sync.threw ?? 'no throw'), 'no throw'),
    check('the turn failed', sync.result?.outcome.kind === 'failed', label(sync.result), 'failed'),
    check('ends as the rejecting client does', label(sync.result) === label(async_.result), label(sync.result), label(async_.result)),
  ];
}

async function executorThrowsAtOnce(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const agent: Agent = {
    tools: [
      defineTool({
        name: 'lookup_order',
        description: 'Look an order up.',
        input: z.object({ order_id: z.string() }),
        sideEffect: 'NONE',
        run: () => ({ status: 'shipped' }),
      }),
    ],
  };
  const inner = agentTools(agent, createRedactor());
  // The team's wrapper checks a quota before it hands the call on, and throws instead of rejecting.
  const tools: ToolExecutor = {
    specs: () => inner.specs(),
    parallelSafe: (name) => inner.parallelSafe(name),
    execute: () => {
      throw new Error('tool quota service unreachable');
    },
  };
  const model = new ScriptedModelClient([toolUse([call('look', 'lookup_order', { order_id: 'ORD-1001' })]), reply('I could not look it up just now.')], {
    clock,
  });
  const got = await oneTurn({ model, agent, tools }, clock);
  const results = got.log.events
    .filter((e) => e.type === 'tool.result')
    .map((e) => e.payload as { status: string; error?: { error_code: string; error_message: string } });
  const r = results[0];
  const line = r ? `${r.status} / ${r.error?.error_code ?? '-'}: ${r.error?.error_message ?? ''}` : '(no result)';
  return [
    check('the loop did not throw', got.threw === undefined, String(got.threw ?? 'no throw'), 'no throw'),
    check('the turn went on and replied', got.result?.outcome.kind === 'replied', label(got.result), 'replied'),
    check(
      'the call answered PIPELINE_ERROR with the reason',
      results.length === 1 && r?.error?.error_code === 'PIPELINE_ERROR' && r.error.error_message.includes('tool quota service unreachable'),
      line,
      'one result, PIPELINE_ERROR: tool pipeline error: tool quota service unreachable',
    ),
  ];
}

async function persistThrowsAtOnce(): Promise<CheckResult[]> {
  const checks: CheckResult[] = [];
  // Before the model is asked (the turn's opening barrier), then only when the turn closes.
  for (const when of ['open', 'close'] as const) {
    const clock = new VirtualClock();
    const model = new ScriptedModelClient([reply('It shipped on Monday.')], { clock });
    const got = await oneTurn(
      {
        model,
        persist: (durability) => {
          if (when === 'open' || (durability === 'barrier' && model.requests.length > 0)) throw new Error('connection closed');
          return Promise.resolve();
        },
      },
      clock,
    );
    const o = got.result?.outcome;
    const requests = when === 'open' ? 0 : 1;
    checks.push(
      check(`${when}: the loop did not throw`, got.threw === undefined, String(got.threw ?? 'no throw'), 'no throw'),
      check(
        `${when}: failed{persistence}, naming the error`,
        o?.kind === 'failed' && o.reason === 'persistence' && (o.detail ?? '').includes('connection closed'),
        label(got.result),
        'failed{persistence}: …connection closed…',
      ),
      check(`${when}: ${requests} request(s)`, model.requests.length === requests, `${model.requests.length} request(s)`, `${requests} request(s)`),
    );
  }
  return checks;
}

async function tracingThrows(): Promise<CheckResult[]> {
  const checks: CheckResult[] = [];
  for (const broken of ['begin', 'finish'] as const) {
    const clock = new VirtualClock();
    const model = new ScriptedModelClient([reply('It shipped on Monday.')], { clock });
    const redact = createRedactor();
    const tracing = {
      begin: (turn: number) => {
        if (broken === 'begin') throw new Error('exporter not started');
        return new Tracer({ clock, traceId: `team-${turn}`, redact });
      },
      finish: (tracer: Tracer) => {
        if (broken === 'finish') throw new Error('exporter queue full');
        return tracer.end();
      },
    };
    const got = await oneTurn({ model, tracing }, clock);
    const spans = got.result?.trace.spans.map((s) => `${s.kind}:${s.status}`).join(', ') ?? '(no trace)';
    checks.push(
      check(`${broken} throws: the loop did not throw`, got.threw === undefined, String(got.threw ?? 'no throw'), 'no throw'),
      check(`${broken} throws: replied`, got.result?.outcome.kind === 'replied' && got.result.reply === 'It shipped on Monday.', label(got.result), 'replied'),
      check(`${broken} throws: the turn's trace is whole`, spans === 'turn:ok, model_call:ok', spans, 'turn:ok, model_call:ok'),
    );
  }
  return checks;
}

async function checkpointThrows(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  // The agent's checkpoint reads a to-do service that is down: it throws (an async hook rejects, a plain one throws at once).
  const checks: CheckResult[] = [];
  for (const kind of ['rejects', 'throws'] as const) {
    const hook = {
      name: 'open-todos',
      run:
        kind === 'rejects'
          ? async () => Promise.reject(new Error('todo service down'))
          : () => {
              throw new Error('todo service down');
            },
    };
    const m = new ScriptedModelClient([reply('It shipped on Monday.')], { clock });
    const got = await oneTurn({ model: m, agent: { checkpoints: [hook] } }, clock);
    const span = got.result?.trace.spans.find((x) => x.kind === 'checkpoint');
    const seen = span ? `${span.status} ${JSON.stringify(span.attributes['error'] ?? null)}` : '(no checkpoint span)';
    checks.push(
      check(
        `${kind}: replied, not extended`,
        got.result?.outcome.kind === 'replied' && m.requests.length === 1,
        `${label(got.result)}, ${m.requests.length} request(s)`,
        'replied, 1 request(s)',
      ),
      check(
        `${kind}: the checkpoint span is an error naming it`,
        seen.startsWith('error') && seen.includes('todo service down'),
        seen,
        'error "…todo service down…"',
      ),
    );
  }
  return checks;
}

/**
 * A checkpoint is told the reply the turn is about to close with (an agent's "did the reply name the order?" check):
 * the model's text, and on the extended run the new reply. Told `''` instead, such a hook extends every turn or none
 * (mutation seed 45, runner.ts: `s.reply ?? ''` → `s.reply && ''` passed the gate: no scripted checkpoint reads it).
 */
async function checkpointToldTheReply(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const seen: string[] = [];
  const hook = {
    name: 'names-the-order',
    run: ({ reply: text }: { readonly reply: string }) => {
      seen.push(text);
      return text.includes('ORD-1001') ? undefined : { extend: 'Name the order in your reply.' };
    },
  };
  const m = new ScriptedModelClient([reply('It shipped on Monday.'), reply('ORD-1001 shipped on Monday.')], { clock });
  const got = await oneTurn({ model: m, agent: { checkpoints: [hook] } }, clock);
  return [
    check(
      'the hook is told each reply the turn would close with',
      JSON.stringify(seen) === JSON.stringify(['It shipped on Monday.', 'ORD-1001 shipped on Monday.']),
      JSON.stringify(seen),
      '["It shipped on Monday.","ORD-1001 shipped on Monday."]',
    ),
    check(
      'extended once, then replied',
      got.result?.outcome.kind === 'replied' && m.requests.length === 2,
      `${label(got.result)}, ${m.requests.length} request(s)`,
      'replied, 2 request(s)',
    ),
  ];
}

/**
 * An agent's checkpoint that answers an extension that is not text (held to no
 * type in JavaScript, or cast): a number, an object. Stored as the steer it asks
 * for, the message is one the reader refuses and the next step breaks on it
 * ("text.trim is not a function"). The hook's failure is its own, as for one that
 * throws: the turn replies, not extended, its span an error naming the hook and
 * the answer, and the log reads back.
 */
async function checkpointExtendsWithNotText(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const checks: CheckResult[] = [];
  for (const [what, extend] of [
    ['a number', 42],
    ['an object', { text: 'Also check ORD-1002.' }],
  ] as const) {
    const hook = { name: 'open-todos', run: () => ({ extend: extend as never }) };
    const m = new ScriptedModelClient([reply('It shipped on Monday.'), reply('And ORD-1002 too.')], { clock });
    const got = await oneTurn({ model: m, agent: { checkpoints: [hook] } }, clock);
    const span = got.result?.trace.spans.find((x) => x.kind === 'checkpoint');
    const seen = span ? `${span.status} ${JSON.stringify(span.attributes['error'] ?? null)}` : '(no checkpoint span)';
    const named = `error ${JSON.stringify(`the checkpoint "open-todos" answered an extension that is not text: ${JSON.stringify(extend)}`)}`;
    let reads = 'reads back';
    try {
      decodeRecords(got.log.events.map(toRecord), 'the case log');
    } catch (error) {
      reads = (error as Error).message;
    }
    checks.push(
      check(
        `${what}: replied, not extended`,
        got.threw === undefined && got.result?.outcome.kind === 'replied' && m.requests.length === 1,
        `${got.threw === undefined ? label(got.result) : `threw ${String(got.threw)}`}, ${m.requests.length} request(s)`,
        'replied, 1 request(s)',
      ),
      check(`${what}: the checkpoint span is an error naming it`, seen === named, seen, named),
      check(`${what}: the log reads back`, reads === 'reads back', reads, 'reads back'),
    );
  }
  return checks;
}

/** Outside the types (plain JavaScript, or a cast): a result or a decision the loop has no case for. */
async function unknownShapes(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const odd = <T>(value: unknown): T => value as T;
  // A client written against a newer protocol: a result type this loop does not know.
  const newer: ModelClient = {
    name: 'team:newer',
    call: async () => odd({ type: 'reasoning_only', text: 'thinking…', usage: { inputTokens: 3, outputTokens: 2 } }),
  };
  // An error handler that answers an action the loop has none of.
  const pausing = { name: 'pause-on-outage', handle: async () => odd<undefined>({ action: 'pause', detail: 'wait for ops' }) };
  const failing: ModelClient = { name: 'team:down', call: async () => ({ type: 'transport_error', kind: 'server_error', message: 'upstream 503' }) };
  const a = await oneTurn({ model: newer }, clock);
  const b = await oneTurn({ model: failing, agent: { errorHandlers: [pausing] } }, clock);
  const rows: [string, typeof a, string][] = [
    ['a result of an unknown type', a, 'failed{internal}: Error: unhandled model result: {"type":"reasoning_only"'],
    [
      'an error decision of an unknown action',
      b,
      'failed{internal}: the error handler "pause-on-outage" answered a decision outside its shape: the action "pause"',
    ],
  ];
  return rows.flatMap(([name, got, want]) => [
    check(`${name}: the loop did not throw`, got.threw === undefined, String(got.threw ?? 'no throw'), 'no throw'),
    check(`${name}: failed{internal}, naming what came back`, label(got.result).startsWith(want), label(got.result), `${want}…`),
  ]);
}

/** The three messages of the notice cases, each drained: the outcomes, why messages went back, and the last request's last message. */
async function askAboutTheRefund(
  loop: AgentLoop,
  log: EventLog,
  model: ScriptedModelClient,
): Promise<{ readonly outcomes: string[]; readonly returned: string[]; readonly lastSystemOrUser: string }> {
  const outcomes: string[] = [];
  for (const text of ['Please refund ORD-1001.', 'Hello?', 'Is the refund done?']) {
    loop.send(text, { id: text });
    for (const r of await loop.drain()) outcomes.push(label(r));
  }
  const returned = log.events.filter((e) => e.type === 'inbox.returned').map((e) => (e.payload as { reason: string }).reason);
  return { outcomes, returned, lastSystemOrUser: JSON.stringify(model.requests.at(-1)?.messages.at(-1) ?? null) };
}

/** An agent whose one tool is a STATEFUL refund, and how often its body ran. */
function countingRefundAgent(): { readonly agent: Agent; readonly refunds: () => number } {
  let runs = 0;
  const agent: Agent = {
    tools: [
      defineTool({
        name: 'issue_refund',
        description: 'Refund an order.',
        input: z.object({ order_id: z.string() }),
        sideEffect: 'STATEFUL',
        run: () => {
          runs++;
          return { refunded: true };
        },
      }),
    ],
  };
  return { agent, refunds: () => runs };
}

/**
 * The loop's own message (a side-effect notice) taken by a turn whose steps the store then refuses:
 * it goes back to the inbox, the log saying why, and reaches the next turn.
 */
async function noticeBackWhenStepsRefused(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const { agent, refunds } = countingRefundAgent();
  const model = new ScriptedModelClient(
    [
      toolUse([call('refund', 'issue_refund', { order_id: 'ORD-1001' })]),
      { type: 'unknown', stopReason: 'pause_turn', content: [], text: '' },
      reply('Your refund is done.'),
      reply('Yes, the refund of ORD-1001 is done.'),
    ],
    { clock },
  );
  let refused = false;
  const log = new EventLog(clock);
  const loop = new AgentLoop(
    loopDeps({
      log,
      model,
      agent,
      clock,
      // The store refuses one write: the first barrier after the second turn's request (that turn's steps, at its close).
      persist: async (durability) => {
        if (!refused && durability === 'barrier' && model.requests.length === 3) {
          refused = true;
          throw new Error('disk full');
        }
      },
    }),
  );
  const { outcomes, returned, lastSystemOrUser } = await askAboutTheRefund(loop, log, model);
  const want = "the turn's steps could not be stored; the loop's own messages go back";
  return [
    check(
      'outcomes',
      outcomes.join(' | ').startsWith('failed{unknown_stop_reason}') && outcomes[1]?.startsWith('failed{persistence}') === true && outcomes[2] === 'replied',
      outcomes.join(' | '),
      'failed{unknown_stop_reason} | failed{persistence} | replied',
    ),
    check(
      'the notice goes back, the log saying the steps were not stored',
      returned.length === 1 && returned[0] === want,
      returned.join('; ') || '(none)',
      want,
    ),
    check(
      'the next turn reads the notice',
      lastSystemOrUser.includes('issue_refund (call refund)'),
      lastSystemOrUser,
      'the notice naming issue_refund (call refund)',
    ),
    check('the refund ran once', refunds() === 1, `ran ${refunds()} time(s)`, '1'),
  ];
}

/**
 * The loop's own message (a side-effect notice) taken by a turn that then fails on its own (an unknown stop, every
 * write stored): it goes back to the inbox, the log saying the turn ended so, not that its steps were lost — that
 * reason is for a turn whose close could not be stored (mutation seed 36, runner.ts) — and reaches the next turn.
 */
async function noticeBackWhenTurnFails(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const { agent, refunds } = countingRefundAgent();
  const paused = { type: 'unknown', stopReason: 'pause_turn', content: [], text: '' } as const;
  const model = new ScriptedModelClient(
    [toolUse([call('refund', 'issue_refund', { order_id: 'ORD-1001' })]), paused, paused, reply('Yes, the refund of ORD-1001 is done.')],
    { clock },
  );
  const log = new EventLog(clock);
  const loop = new AgentLoop(loopDeps({ log, model, agent, clock }));
  const { outcomes, returned, lastSystemOrUser } = await askAboutTheRefund(loop, log, model);
  const want = "the turn ended failed{unknown_stop_reason}; the loop's own messages go back until a kept history holds them";
  return [
    check(
      'outcomes',
      outcomes.length === 3 &&
        outcomes[0]!.startsWith('failed{unknown_stop_reason}') &&
        outcomes[1]!.startsWith('failed{unknown_stop_reason}') &&
        outcomes[2] === 'replied',
      outcomes.join(' | '),
      'failed{unknown_stop_reason} | failed{unknown_stop_reason} | replied',
    ),
    check('the notice goes back, the log saying how the turn ended', returned.length === 1 && returned[0] === want, returned.join('; ') || '(none)', want),
    check(
      'the next turn reads the notice',
      lastSystemOrUser.includes('issue_refund (call refund)'),
      lastSystemOrUser,
      'the notice naming issue_refund (call refund)',
    ),
    check('the refund ran once', refunds() === 1, `ran ${refunds()} time(s)`, '1'),
  ];
}

/**
 * A model client that is no model client (no name, an empty one, no call()): refused, one line naming the field,
 * where it is handed over — loopDeps and the AgentHost constructor, for the model and each fallback — never a turn
 * that ends failed{internal} on its first request because the log cannot record the client (outside probe 20, F3:
 * a host built from the README's `{ call }` answered every message 500).
 */
async function clientThatIsNoClient(): Promise<CheckResult[]> {
  const ok = new ScriptedModelClient([reply('fine')]);
  const call = ok.call.bind(ok);
  const bad: [string, unknown, RegExp][] = [
    [
      'no name',
      { call },
      /^model: the model client has no name \(a non-empty string, e.g\. "anthropic:claude-sonnet-4-6", that the log records on every request\)$/,
    ],
    ['an empty name', { name: '', call }, /^model: the model client has no name/],
    ['a name that is not text', { name: 42, call }, /^model: the model client has no name/],
    ['no call()', { name: 'team:client' }, /^model: the model client has no call\(request, onDelta\) function$/],
    ['not an object', 'anthropic', /^model: expected a model client \(\{ name, call \}\), got a string$/],
    // null is an object to typeof: named as null, not as "object" (mutation seed 36, model/client.ts).
    ['null for a client', null, /^model: expected a model client \(\{ name, call \}\), got null$/],
    // Named by its type, not as "a string" (mutation seed 47, model/client.ts:217: every non-object was called a string).
    ['a number for a client', 42, /^model: expected a model client \(\{ name, call \}\), got number$/],
  ];
  const checks: CheckResult[] = [];
  const refusal = (build: () => unknown): string => {
    try {
      build();
      return 'accepted';
    } catch (error) {
      return (error as Error).message;
    }
  };
  for (const [what, client, expected] of bad) {
    const deps = refusal(() => loopDeps({ log: new EventLog(new VirtualClock()), model: client as ModelClient }));
    checks.push(check(`loopDeps refuses a client with ${what}`, expected.test(deps), deps, String(expected)));
    const fallback = refusal(() => loopDeps({ log: new EventLog(new VirtualClock()), model: ok, fallbackModels: [ok, client as ModelClient] }));
    const asFallback = new RegExp(expected.source.replace('^model:', '^fallbackModels\\[1\\]:'));
    checks.push(check(`loopDeps refuses a fallback with ${what}`, asFallback.test(fallback), fallback, String(asFallback)));
    const host = refusal(() => new AgentHost({ config: defaultHostConfig(), store: new MemoryEventStore(), model: client as ModelClient }));
    checks.push(check(`AgentHost refuses a client with ${what}, at construction`, expected.test(host), host, String(expected)));
  }
  const fine = refusal(() => new AgentHost({ config: defaultHostConfig(), store: new MemoryEventStore(), model: ok, fallbackModels: [ok] }));
  checks.push(check('a client with a name and call() is taken', fine === 'accepted', fine, 'accepted'));
  return checks;
}

async function persistAskedABarrierFirst(): Promise<CheckResult[]> {
  // A team's store may write only at a barrier (write-behind, as the bundled host does): the turn's claim must be one.
  const clock = new VirtualClock();
  const model = new ScriptedModelClient([reply('It shipped on Monday.')], { clock });
  const asked: { durability: unknown; requests: number }[] = [];
  const got = await oneTurn(
    {
      model,
      persist: (durability) => {
        asked.push({ durability, requests: model.requests.length });
        return Promise.resolve();
      },
    },
    clock,
  );
  const beforeRequest = asked.filter((a) => a.requests === 0).map((a) => String(a.durability));
  const words = [...new Set(asked.map((a) => String(a.durability)))];
  return [
    check('the turn replied', got.result?.outcome.kind === 'replied', label(got.result), 'replied'),
    check('the last persist before the first model request is a barrier', beforeRequest.at(-1) === 'barrier', JSON.stringify(beforeRequest), '[…, "barrier"]'),
    check(
      "every persist is asked 'step' or 'barrier' (or nothing)",
      asked.every((a) => a.durability === undefined || a.durability === 'step' || a.durability === 'barrier'),
      JSON.stringify(words),
      'step, barrier',
    ),
  ];
}

/**
 * A loop made without a conversation id (a team's `loopDeps` with none; the host always names one) whose model repeats
 * a call, same id, same arguments: the repeat of a tool with no side effect runs again with the first call's
 * idempotency key, each answered ok (mutation seed 25: the repeat's tool context was built empty on this path only).
 */
async function repeatWithoutConversation(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const keys: string[] = [];
  const agent: Agent = {
    tools: [
      defineTool({
        name: 'track_order',
        description: 'Where an order is.',
        input: z.object({ order_id: z.string() }),
        sideEffect: 'NONE',
        run: (_args, ctx) => {
          keys.push(ctx.idempotencyKey);
          return { status: 'shipped' };
        },
      }),
    ],
  };
  const model = new ScriptedModelClient(
    [toolUse([call('track', 'track_order', { order_id: 'ORD-7' })]), toolUse([call('track', 'track_order', { order_id: 'ORD-7' })]), reply('It shipped.')],
    { clock },
  );
  const log = new EventLog(clock);
  const loop = new AgentLoop(loopDeps({ log, model, agent, clock }));
  loop.send('Where is ORD-7?', { id: 'ask' });
  const [result] = await loop.drain();
  const statuses = log.events.filter((e) => e.type === 'tool.result').map((e) => (e.payload as { status: string }).status);
  const repeats = log.events.flatMap((e) =>
    e.type === 'assistant.message' ? (e.payload as { content: { repeatOf?: string }[] }).content.flatMap((b) => (b.repeatOf ? [b.repeatOf] : [])) : [],
  );
  return [
    check('the turn replied', result?.outcome.kind === 'replied', label(result), 'replied'),
    check('the second call is recorded as a repeat of the first', JSON.stringify(repeats) === '["track"]', JSON.stringify(repeats), '["track"]'),
    check('both calls answered ok', JSON.stringify(statuses) === '["ok","ok"]', JSON.stringify(statuses), '["ok","ok"]'),
    check('the tool ran twice, with one idempotency key', keys.length === 2 && keys[0] === keys[1], JSON.stringify(keys), 'two runs, the same key'),
  ];
}

/**
 * A tool whose run() answers null at once (a lookup that found nothing, written without `async`): answered ok with
 * null, as its asynchronous twin (a promise of null) is (mutation seed 26: `isThenable(null)` read `.then` of null).
 */
async function toolAnswersNullAtOnce(): Promise<CheckResult[]> {
  const answered = async (run: () => unknown) => {
    const clock = new VirtualClock();
    const agent: Agent = {
      tools: [defineTool({ name: 'find_order', description: 'An order by id, or null.', input: z.object({ order_id: z.string() }), sideEffect: 'NONE', run })],
    };
    const model = new ScriptedModelClient([toolUse([call('find', 'find_order', { order_id: 'ORD-404' })]), reply('No such order.')], { clock });
    const log = new EventLog(clock);
    const loop = new AgentLoop(loopDeps({ log, model, agent, clock }));
    loop.send('Find ORD-404.', { id: 'ask' });
    const [result] = await loop.drain();
    const results = log.events
      .filter((e) => e.type === 'tool.result')
      .map((e) => {
        const p = e.payload as { status: string; output?: unknown };
        return { status: p.status, output: p.output };
      });
    return { outcome: label(result), results: JSON.stringify(results) };
  };
  const sync = await answered(() => null);
  const async_ = await answered(async () => null);
  const expected = '[{"status":"ok","output":null}]';
  return [
    check('the turn replied', sync.outcome === 'replied', sync.outcome, 'replied'),
    check('the call is answered ok with null', sync.results === expected, sync.results, expected),
    check('as its asynchronous twin is', sync.results === async_.results && sync.outcome === async_.outcome, `${sync.results} / ${async_.results}`, 'the same'),
  ];
}

/**
 * A loop whose own configuration allows no step (`loopDeps`' `config` with `maxSteps: 0`, which neither the agent's
 * settings nor the host's config lets through; a team building its loop by hand can): each turn fails `max_steps` before
 * any model request, naming the limit. Every other path to a step past the limit is cut after a step (`#callsRefused`,
 * the reply's `more`), so only a limit below one step reaches the check made before each step; a check taken away, or
 * made `>`, sent the request and replied (mutation seed 44, runner.ts: `#beforeStep`'s step limit).
 */
async function stepLimitZeroSendsNothing(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const model = new ScriptedModelClient([reply('ORD-1001 was delivered.'), reply('ORD-1002 has shipped.')], { clock });
  const log = new EventLog(clock);
  const loop = new AgentLoop(loopDeps({ log, model, agent: {}, clock, config: { maxSteps: 0 } }));
  loop.send('Where is ORD-1001?', { id: 'first' });
  loop.send('And ORD-1002?', { id: 'second' });
  const outcomes = (await clock.run(loop.drain())).map(label).join(', ');
  const expected = 'failed{max_steps}: step limit 0 reached, failed{max_steps}: step limit 0 reached';
  const requests = log.events.filter((e) => e.type === 'model.request').length;
  return [
    check('each turn fails max_steps, naming the limit', outcomes === expected, outcomes, expected),
    check('no model request sent', model.requests.length === 0, String(model.requests.length), '0'),
    check('no model request logged', requests === 0, String(requests), '0'),
  ];
}

export function loopDepsCases(): Case[] {
  const rows: [string, string, () => Promise<CheckResult[]>][] = [
    ['client-throws-at-once', 'a model client whose call() throws at once: the turn ends as when it rejects', clientThrowsAtOnce],
    ['executor-throws-at-once', "a team's tool executor that throws at once: the call is answered PIPELINE_ERROR and the turn goes on", executorThrowsAtOnce],
    [
      'persist-throws-at-once',
      'a persist that throws at once, before the model is asked or only at the close: failed{persistence}, naming the error',
      persistThrowsAtOnce,
    ],
    [
      'persist-asked-a-barrier-first',
      "a persist that records what it is asked: the turn's claim, before the first model request, is a barrier; nothing but step or barrier",
      persistAskedABarrierFirst,
    ],
    ['checkpoint-throws', "an agent's checkpoint that rejects or throws: the turn replies, not extended, its span an error naming why", checkpointThrows],
    [
      'checkpoint-extends-with-not-text',
      "an agent's checkpoint answering an extension that is not text: the turn replies, not extended, its span an error naming it; the log reads back",
      checkpointExtendsWithNotText,
    ],
    ['unknown-result-or-decision', 'a client result or an error-handler decision of a kind the loop has none of: failed{internal} naming it', unknownShapes],
    [
      'notice-back-when-steps-refused',
      "the loop's own notice taken by a turn whose steps the store refuses: back to the inbox, the log saying why; the next turn reads it",
      noticeBackWhenStepsRefused,
    ],
    [
      'notice-back-when-turn-fails',
      "the loop's own notice taken by a turn that fails with every write stored: back to the inbox, the log saying how the turn ended; the next turn reads it",
      noticeBackWhenTurnFails,
    ],
    ['tracing-throws', "a turn tracing whose begin or finish throws: the turn replies with a whole trace of the loop's own", tracingThrows],
    [
      'repeat-without-conversation',
      "a loop with no conversation id whose model repeats a call (same id and arguments): the repeat runs, answered ok, with the first call's idempotency key",
      repeatWithoutConversation,
    ],
    [
      'tool-answers-null-at-once',
      'a tool whose run() answers null at once: the call is answered ok with null, as when it resolves to null',
      toolAnswersNullAtOnce,
    ],
    [
      'client-that-is-no-client',
      'a model client without a name or call(): refused by loopDeps and the AgentHost constructor, naming the field',
      clientThatIsNoClient,
    ],
    ['checkpoint-told-the-reply', "an agent's checkpoint is told the reply the turn would close with, each time", checkpointToldTheReply],
    [
      'send-text-not-well-formed-refused',
      "a loop's send given half a surrogate pair (an InputError naming the offset) or a list (the log refuses it): nothing logged",
      sendTextNotWellFormed,
    ],
    ['new-id-always-taken-refused', 'a newId that keeps giving ids messages hold: the send is refused after 1,000 tries, naming it', newIdAlwaysTaken],
    [
      'step-limit-zero-sends-nothing',
      "a loop whose own config allows no step (maxSteps 0, which the agent's settings and the host config refuse): each turn fails max_steps, no request sent",
      stepLimitZeroSendsNothing,
    ],
  ];
  return rows.map(([id, title, run]) => checksCase({ id: `contract:loop-deps/${id}`, title: `loop deps: ${title}`, file: FILE }, run));
}
