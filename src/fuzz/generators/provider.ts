/**
 * Provider scripts: any sequence of normalized results and faults — replies
 * (empty ones too), tool calls (parallel, repeated ids, unknown tools, bad
 * arguments), max_tokens with text or cut inside a tool call, overflow at the
 * request and during generation, refusals, unknown stop reasons, every transport
 * error kind (with statuses and retry-after), latencies and usage.
 *
 * Alternatives are listed simplest first: fast-check shrinks a step towards a
 * plain reply, and a script towards fewer steps.
 */
import fc from 'fast-check';
import { TRANSPORT_KINDS, type ProviderStep } from '../../harness/scenario/schema.ts';
import { oddArgumentsArb } from './odd-arguments.ts';
import { sometimes } from './optional.ts';
import { PATTERN_HOLD } from '../../kernel/index.ts';
import {
  FUZZ_PASSPHRASE,
  FUZZ_PIN,
  SECRET_CALL_ID,
  SECRET_ECHO_ARGUMENT,
  SECRET_ECHO_REPLY,
  SECRET_ENCODED_REPLY,
  SECRET_LONG_ESCAPED_REPLY,
  secretAcrossHoldReply,
} from './secret.ts';
import { UNKNOWN_TOOL, type FuzzTool } from './tools.ts';

/**
 * Input and output tokens, and now and then the cache reads and writes and reasoning tokens some providers report.
 * Half the time a round 400 in + 100 out: with a token budget of 500, 1,000 or 1,500 (budgets.ts) a turn or a
 * session spends its budget exactly, the boundary where the next step must not start (a `>` for `>=` passed otherwise).
 */
const usageArb = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.record(
      {
        input: fc.integer({ min: 0, max: 4_000 }),
        output: fc.integer({ min: 0, max: 1_500 }),
        cacheRead: fc.integer({ min: 0, max: 3_000 }),
        cacheWrite: fc.integer({ min: 0, max: 1_000 }),
        reasoning: fc.integer({ min: 0, max: 500 }),
      },
      { requiredKeys: ['input', 'output'] },
    ),
  },
  { weight: 10, arbitrary: fc.constant({ input: 400, output: 100 }) },
  // Rarely a count no number holds exactly, as a team's own client might report it: 1e308 (read as 2^53 − 1, never 0).
  { weight: 1, arbitrary: fc.constant({ input: 1e308, output: 100 }) },
);
/** Mostly quick; sometimes long enough to cross a model timeout, a cancel or a backoff. */
const latencyArb = fc.oneof({ withCrossShrink: true }, fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 2_000, max: 200_000 }));

/** The call with its arguments as text holding them and `second`, when both are objects. */
function twoObjects<C extends { readonly args: unknown }>(call: C, second: unknown): C {
  if (second === undefined || !isRecord(call.args) || !isRecord(second)) return call;
  return { ...call, args: `Using ${JSON.stringify(call.args)} - no, rather ${JSON.stringify(second)}` };
}

function callArb(tools: readonly FuzzTool[]) {
  const known = tools.map((tool) =>
    fc
      .record({
        name: fc.constant(tool.name),
        args: oddArgumentsArb(tool.args),
        // Now and then the model copies what it read into an extra argument: the passphrase, split across argument deltas
        // — as a value, or as a key (a map keyed by tokens), which redaction must reach too; or the PIN as a value of its
        // own, a string exactly as long as the shortest secret (outside probe 66, #1: a redactor that skipped texts of
        // that length passed every fuzz case, every secret in them sitting inside a longer text).
        echo: fc.nat(11).map((n) => (n === 0 ? ('value' as const) : n === 1 ? ('key' as const) : n === 2 ? ('pin' as const) : undefined)),
        id: fc.option(fc.constantFrom('a', 'b', SECRET_CALL_ID), { nil: undefined, freq: 4 }),
        // Now and then two objects in the argument text, the second a correction: refused, never run with one (two-objects-never-run).
        second: sometimes(tool.args, 8),
      })
      .map(({ echo, second, ...c }) =>
        echo && isRecord(c.args)
          ? {
              ...c,
              args:
                echo === 'value'
                  ? { ...c.args, remark: SECRET_ECHO_ARGUMENT }
                  : echo === 'pin'
                    ? { ...c.args, account_pin: FUZZ_PIN }
                    : { ...c.args, [FUZZ_PASSPHRASE]: true },
            }
          : twoObjects(c, second),
      ),
  );
  const unknown = fc.record({ name: fc.constant(UNKNOWN_TOOL), args: fc.constant<unknown>({}), id: fc.constant(undefined) });
  return fc
    .oneof({ withCrossShrink: true }, { weight: 10, arbitrary: fc.oneof({ withCrossShrink: true }, ...known) }, { weight: 1, arbitrary: unknown })
    .map((c) => ({
      name: c.name,
      args: c.args,
      ...(c.id !== undefined ? { id: c.id } : {}),
    }));
}

/** The calls with the `pick`-th sent again right after it (given an id if it had none), for `pick` below their count. */
function sentTwice<C extends { readonly id?: string }>(calls: readonly C[], pick: number): C[] {
  if (pick >= calls.length) return [...calls];
  const call = calls[pick]!.id !== undefined ? calls[pick]! : { ...calls[pick]!, id: 'twice' };
  return [...calls.slice(0, pick), call, call, ...calls.slice(pick + 1)];
}

type ErrorSpec = NonNullable<ProviderStep['error']>;

/**
 * Every transport error kind, with the status and retry-after a provider would send. An overload or a dropped
 * connection comes now and then after the 200, inside the stream: in its text, or inside the arguments of a call to
 * one of the case's tools (`midStream`; no status or retry-after then). Drawn only in wire cases before, which run
 * neither behind the port nor often: a loop that ran the call a stream cut passed `loopgate fuzz`, the invariant
 * reported held (outside probe 54, H2).
 */
function errorArb(tools: readonly FuzzTool[]): fc.Arbitrary<ErrorSpec> {
  const cuts: readonly NonNullable<ErrorSpec['midStream']>[] = tools.length ? tools.map((t) => ({ tool_args: t.name })) : ['tool_args'];
  const statuses: Partial<Record<ErrorSpec['kind'], readonly number[]>> = {
    rate_limited: [429],
    server_error: [500, 502, 503],
    overloaded: [529],
    auth: [401],
    invalid_request: [400],
  };
  return fc.oneof(
    { withCrossShrink: true },
    ...TRANSPORT_KINDS.map((kind): fc.Arbitrary<ErrorSpec> => {
      const status = statuses[kind];
      const base = status ? fc.constantFrom(...status).map((s): ErrorSpec => ({ kind, status: s })) : fc.constant<ErrorSpec>({ kind });
      if (kind !== 'rate_limited') return base;
      return fc
        .tuple(base, fc.option(fc.integer({ min: 0, max: 120_000 }), { nil: undefined }))
        .map(([e, retryAfterMs]) => (retryAfterMs === undefined ? e : { ...e, retryAfterMs }));
    }),
    // After the 200: an overload or a dropped connection inside the stream (in a call's arguments, mostly).
    {
      weight: 2,
      arbitrary: fc
        .record({
          kind: fc.constantFrom<ErrorSpec['kind']>('overloaded', 'network'),
          midStream: fc.constantFrom<NonNullable<ErrorSpec['midStream']>>(true, ...cuts),
        })
        .map(({ kind, midStream }): ErrorSpec => ({ kind, midStream })),
    },
  );
}

/**
 * A long reply (more than the stream redactor's hold) with the passphrase across
 * the last cut the redactor may make. Half the time its length is near three
 * holds, so with three deltas that cut also falls where the second delta ends:
 * the passphrase is split across chunks too. A redactor that cuts inside it
 * (outside probe 9, plant P06) stores two pieces that rebuild it.
 */
const secretAcrossHoldArb: fc.Arbitrary<ProviderStep> = fc
  .record({
    length: fc.oneof(fc.integer({ min: 3 * PATTERN_HOLD - 6, max: 3 * PATTERN_HOLD + 6 }), fc.integer({ min: PATTERN_HOLD + 40, max: 5 * PATTERN_HOLD })),
    into: fc.integer({ min: 1, max: FUZZ_PASSPHRASE.length - 1 }),
    // Half the time a piece of it (half of it or more, under all of it), cut in its middle: each side under half.
    piece: fc.option(fc.integer({ min: Math.ceil(FUZZ_PASSPHRASE.length / 2), max: FUZZ_PASSPHRASE.length - 1 }), { nil: undefined }),
  })
  .map(
    ({ length, into, piece }): ProviderStep => ({
      reply: piece === undefined ? secretAcrossHoldReply(length, into) : secretAcrossHoldReply(length, Math.floor(piece / 2), PATTERN_HOLD, piece),
    }),
  );

/** A reply holding half a surrogate pair (a high half with no low one after it). */
export const LONE_SURROGATE_REPLY = 'Noted \uD800 on the tasks.';

/** One provider step (the scenario format's `provider.script` entry). */
export function providerStepArb(tools: readonly FuzzTool[]): fc.Arbitrary<ProviderStep> {
  const result: fc.Arbitrary<ProviderStep> = fc.oneof(
    { withCrossShrink: true },
    {
      weight: 8,
      arbitrary: fc
        // Now and then half a surrogate pair, as a model (or a stream cut between the halves) can send: the loop keeps
        // it repaired, or every later request carries it (requests-hold-well-formed-text; outside probe 59, MED-1).
        .constantFrom('Done.', 'Here is what I found.', SECRET_ECHO_REPLY, SECRET_ENCODED_REPLY, SECRET_LONG_ESCAPED_REPLY, LONE_SURROGATE_REPLY)
        .map((reply): ProviderStep => ({ reply })),
    },
    { weight: 2, arbitrary: secretAcrossHoldArb },
    {
      weight: 8,
      arbitrary: fc
        .record({
          calls: fc.array(callArb(tools), { minLength: 1, maxLength: 3 }),
          text: fc.option(fc.constantFrom('Let me check.', '\n\n'), { nil: undefined }),
          // Now and then one call is sent twice in the answer — its id, tool and arguments (a duplicated stream event):
          // one call, run once (invariant 13; outside probe 52, MED-3: a payment so sent ran twice).
          // Shrinks towards 19 (no copy), not 0 (a copy of the first call): a shrunk case gains no copy it never had.
          twice: fc.nat(19).map((n) => 19 - n),
        })
        .map(({ calls, text, twice }): ProviderStep => ({ tool_use: sentTwice(calls, twice), ...(text !== undefined ? { text } : {}) })),
    },
    { weight: 3, arbitrary: errorArb(tools).map((error): ProviderStep => ({ error })) },
    { weight: 1, arbitrary: fc.constant<ProviderStep>({ reply: '' }) },
    { weight: 2, arbitrary: fc.constantFrom<'request' | 'generation'>('request', 'generation').map((overflow): ProviderStep => ({ overflow })) },
    {
      weight: 1,
      arbitrary: fc.record({ text: fc.constantFrom('', 'The answer is'), partial: fc.boolean() }).map((max_tokens): ProviderStep => ({ max_tokens })),
    },
    { weight: 1, arbitrary: fc.constant<ProviderStep>({ refusal: 'I cannot help with that.' }) },
    { weight: 1, arbitrary: fc.constantFrom('pause_turn', 'model_context_window_exceeded').map((unknown): ProviderStep => ({ unknown })) },
  );
  return fc
    .record({
      result,
      latencyMs: fc.option(latencyArb, { nil: undefined, freq: 3 }),
      usage: fc.option(usageArb, { nil: undefined, freq: 3 }),
      // One slow call in five from a hung client that does not keep the request's timeout: only the loop's backstop
      // ends it (`model-calls-time-out-as-declared`; a backstop ten times late passed every seed before, outside probe 19).
      ignoresTimeout: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
    })
    .map(({ result: step, latencyMs, usage, ignoresTimeout }) => ({
      ...step,
      ...(latencyMs !== undefined && latencyMs > 0 ? { latencyMs, ...(ignoresTimeout ? { ignoresTimeout: true } : {}) } : {}),
      // Errors and overflows carry no usage in the scenario format's fake.
      ...(usage !== undefined && step.error === undefined && step.overflow === undefined ? { usage } : {}),
    }));
}

/** Two overflows in a row: the step compacts twice, the second time re-summarising what the first replaced. */
const overflowTwiceArb: fc.Arbitrary<ProviderStep[]> = fc.constant([{ overflow: 'request' }, { overflow: 'request' }]);

/**
 * A step failed once or twice retryably, then rate-limited with a retry-after longer than a backoff: with the
 * immediate tier spent, the retry is a tier-2 backoff, which must still wait out the retry-after
 * (`retry-after-honoured`; outside probe 13, Q06: a backoff that ignored it was met only past 500 cases).
 */
const rateLimitedAfterRetriesArb: fc.Arbitrary<ProviderStep[]> = fc
  .record({
    before: fc.array(
      fc.constantFrom<ErrorSpec>(
        { kind: 'server_error', status: 503 },
        { kind: 'overloaded', status: 529 },
        { kind: 'network' },
        { kind: 'rate_limited', status: 429 },
      ),
      { minLength: 1, maxLength: 2 },
    ),
    retryAfterMs: fc.integer({ min: 2_500, max: 45_000 }),
  })
  .map(({ before, retryAfterMs }): ProviderStep[] => [...before.map((error) => ({ error })), { error: { kind: 'rate_limited', status: 429, retryAfterMs } }]);

/**
 * A 429 whose retry-after is past any `maxRetryAfterMs` the config draws (at most 90 s; default 60 s): the turn
 * fails `rate_limited` unless a fallback takes over. Drawn only as one error kind among many, such a failure was
 * too rare for fuzz to put a production host's 429 answer before `host-answers-follow-outcomes` (probe 14, P18:
 * a host answering `rate_limited` 503 passed 1000 cases).
 */
const rateLimitedPastLimitArb: fc.Arbitrary<ProviderStep[]> = fc
  .integer({ min: 90_001, max: 600_000 })
  .map((retryAfterMs): ProviderStep[] => [{ error: { kind: 'rate_limited', status: 429, retryAfterMs } }]);

export function providerScriptArb(tools: readonly FuzzTool[], maxLength = 10): fc.Arbitrary<ProviderStep[]> {
  return providerScriptDrawArb(tools, maxLength).map((drawn) => drawn.script);
}

/**
 * A provider script and whether its resend arm was drawn and left a call sent again in it (`resent`): the tally of
 * what fuzz drew counts that arm by this, not by the script's shape, which other draws make too (aimed repeats).
 */
export function providerScriptDrawArb(tools: readonly FuzzTool[], maxLength = 10): fc.Arbitrary<{ script: ProviderStep[]; resent: boolean }> {
  const chunk = fc.oneof(
    { withCrossShrink: true },
    { weight: 20, arbitrary: providerStepArb(tools).map((step) => [step]) },
    { weight: 1, arbitrary: overflowTwiceArb },
    { weight: 1, arbitrary: rateLimitedAfterRetriesArb },
    { weight: 1, arbitrary: rateLimitedPastLimitArb },
  );
  return fc.tuple(fc.array(chunk, { minLength: 0, maxLength }), sometimes(resendArb, 15)).map(([chunks, resend]) => {
    const script = resent(chunks.flat(), resend).slice(0, maxLength);
    return { script, resent: resend !== undefined && sentAgain(script) };
  });
}

/** Whether a step's calls are the calls of an earlier step: ids, tools and arguments. */
export function sentAgain(script: readonly { readonly tool_use?: unknown }[]): boolean {
  const seen = new Set<string>();
  for (const step of script) {
    if (step.tool_use === undefined) continue;
    const calls = JSON.stringify(step.tool_use);
    if (seen.has(calls)) return true;
    seen.add(calls);
  }
  return false;
}

/**
 * Now and then the model sends a step's calls again later — their ids, tools and arguments as they were — once, or
 * twice a few steps apart, as a model does after a denial, a failure or a new question. Each is a repeat of a call the
 * conversation holds (ALREADY_STARTED once the first started; run only when none of the chain did). Drawn only from
 * fresh arguments before, a third send of a denied call whose second send ran was never met, and a journal that asked
 * only whether the first of the chain started ran it twice (outside probe 69, journal-repeat-started: seed 1 passed).
 */
const resendArb = fc.record({ pick: fc.nat(9), gaps: fc.array(fc.nat(3), { minLength: 1, maxLength: 2 }) });

function resent(script: readonly ProviderStep[], resend: { readonly pick: number; readonly gaps: readonly number[] } | undefined): ProviderStep[] {
  const withCalls = script.flatMap((step, i) => (step.tool_use !== undefined ? [i] : []));
  if (resend === undefined || withCalls.length === 0) return [...script];
  const from = withCalls[resend.pick % withCalls.length]!;
  const step = script[from]!;
  // Calls with no id would be given fresh ones by the fake: the copy names them, the first send too.
  const calls = step.tool_use!.map((call, k) => (call.id !== undefined ? call : { ...call, id: `again${k}` }));
  const out = [...script];
  out[from] = { ...step, tool_use: calls };
  let at = from + 1;
  for (const gap of resend.gaps) {
    at = Math.min(out.length, at + gap);
    out.splice(at, 0, { tool_use: calls });
    at++;
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The fallback client's script. A quarter of the time it fails first with an error the retry tiers take: the step's
 * tiers are spent by then (scenario.ts, `reachingTheFallback`), so the chain must move on past it — to the next
 * fallback, or fail the turn. Drawn only as one step among many, a failing first answer from the fallback was too rare
 * for fuzz to meet a chain that offered the fallback itself again (outside probe 69, fallback-from-start: seed 1
 * passed it). Mostly with no retry-after (one closes the fallback's own window, which hides where the chain goes
 * next); a third of the time a 429 whose retry-after is past any limit the config draws (unless a budget-boundary case
 * sets the limit to the script's first retry-after, and this is it), and the primary then fails
 * past its tiers again in the next turn, inside that window: the fallback must not be asked (outside probe 69,
 * fallback-window-ignored). With the script, whether it came from the arm that fails first (`failsFirst`), for the
 * tally of what fuzz drew.
 */
export function fallbackDrawArb(tools: readonly FuzzTool[]): fc.Arbitrary<{ script: ProviderStep[]; failsFirst: boolean }> {
  const failsFirst = fc
    .tuple(
      fc.oneof(
        { weight: 2, arbitrary: fc.constantFrom<ErrorSpec>({ kind: 'server_error', status: 503 }, { kind: 'overloaded', status: 529 }, { kind: 'network' }) },
        {
          weight: 1,
          arbitrary: fc.integer({ min: 90_001, max: 600_000 }).map((retryAfterMs): ErrorSpec => ({ kind: 'rate_limited', status: 429, retryAfterMs })),
        },
      ),
      providerScriptArb(tools, 2),
    )
    .map(([error, rest]) => ({ script: [{ error }, ...rest], failsFirst: true }));
  return fc.oneof(
    { withCrossShrink: true },
    { weight: 3, arbitrary: providerScriptArb(tools, 3).map((script) => ({ script, failsFirst: false })) },
    { weight: 1, arbitrary: failsFirst },
  );
}
