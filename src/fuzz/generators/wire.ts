/**
 * Fuzz cases over the wire: a provider script written in a real provider's
 * HTTP/SSE protocol by the wire fake and parsed by the provider's own SDK inside
 * loopgate's adapter (Anthropic, OpenAI Chat, OpenAI Responses) — so stop
 * reasons, retry-after headers, error bodies and streamed tool calls go through
 * the adapters' code, and `adapter-follows-the-wire` checks each result against
 * the step it came from.
 *
 * A wire step is a real HTTP exchange through an SDK, far dearer than a scripted
 * answer, so wire scripts are short and weighted towards what an adapter must
 * translate: tool calls (parallel, their argument chunks interleaved by index on
 * OpenAI Chat), refusals, max_tokens with and without a cut call, unknown stop
 * reasons, overflows (OpenAI's told by code or words alone), 429s, 503s, 529s and
 * 5xx with retry-after headers, overloads inside a stream, server errors, resets
 * and malformed streams (a broken line, or a stream closed without its ending),
 * account errors (a bad key; out of quota, as a 429 with a retry-after), error
 * messages and replies quoting the key the request carried (as sent, %HH-encoded,
 * in base64 or, in a reply, hex), calls whose first Chat chunk carries arguments,
 * cut calls whose arguments parse (closed as incomplete on Responses), and usage with
 * prompt-cache reads and (Anthropic) writes. Nothing the wire cannot say is
 * generated (an invalid request or an abort is the loop's own; a stalled stream
 * would only wait), and an overflow during generation only where the protocol
 * has a stop reason for it (Anthropic).
 */
import fc from 'fast-check';
import { WIRE_PROVIDERS, type ProviderStep } from '../../harness/scenario/schema.ts';
import { cutJson } from './odd-arguments.ts';
import type { FuzzTool } from './tools.ts';

export type WireProviderName = (typeof WIRE_PROVIDERS)[number];

export interface WireCase {
  readonly provider: WireProviderName;
  readonly script: ProviderStep[];
  /** The fallback client's script, served over the wire too (a second fake of the same provider, its own key). */
  readonly fallback?: ProviderStep[];
}

/** Steps of a wire case. */
export const MAX_WIRE_STEPS = 5;

type ErrorSpec = NonNullable<ProviderStep['error']>;

/** One to three calls of the agent's tools, with the arguments the model may send each (their ids: `withCallIds`). */
function callsArb(tools: readonly FuzzTool[]) {
  // Now and then with the argument text cut short though the call finished (the model's mistake, not a cut stream).
  const argsOf = (tool: FuzzTool) =>
    fc.oneof(
      { withCrossShrink: true },
      { weight: 12, arbitrary: tool.args },
      { weight: 1, arbitrary: fc.tuple(tool.args, fc.integer({ min: 1, max: 12 })).map(([args, by]) => cutJson(args, by)) },
    );
  const call = fc.oneof({ withCrossShrink: true }, ...tools.map((tool) => argsOf(tool).map((args) => ({ name: tool.name, args }))));
  return fc.array(call, { minLength: 1, maxLength: 3 });
}

/** A retry-after some 5xx answers carry too (providers send it on 503s and Anthropic's 529s, not only on 429s); often none. */
const retryAfterArb = fc.option(fc.integer({ min: 0, max: 20_000 }), { nil: undefined, freq: 2 });

/**
 * What a reply or tool call reports it spent, now and then with prompt-cache
 * reads and (Anthropic only: `forProvider`) writes — `cache_creation_input_tokens`
 * on the wire — so an adapter that drops a cache count fails `adapter-follows-the-wire`.
 * Input counts every input token, cached ones included.
 */
const usageArb: fc.Arbitrary<ProviderStep['usage']> = fc.option(
  fc
    .record({
      uncached: fc.integer({ min: 0, max: 3_000 }),
      output: fc.integer({ min: 0, max: 1_500 }),
      cacheRead: fc.option(fc.integer({ min: 0, max: 2_000 }), { nil: undefined }),
      cacheWrite: fc.option(fc.integer({ min: 1, max: 1_500 }), { nil: undefined }),
    })
    .map(({ uncached, output, cacheRead, cacheWrite }) => ({
      input: uncached + (cacheRead ?? 0) + (cacheWrite ?? 0),
      output,
      ...(cacheRead !== undefined ? { cacheRead } : {}),
      ...(cacheWrite !== undefined ? { cacheWrite } : {}),
    })),
  { nil: undefined, freq: 3 },
);

/** A transport error; a stream cut inside a call's arguments cuts a call to one of the case's tools (the agent's own, a team's CRITICAL one among them). */
function errorArb(tools: readonly FuzzTool[]): fc.Arbitrary<ErrorSpec> {
  const cuts: readonly NonNullable<ErrorSpec['midStream']>[] = tools.length ? tools.map((t) => ({ tool_args: t.name })) : ['tool_args'];
  return fc.oneof(
    { withCrossShrink: true },
    {
      weight: 4,
      // The wait in seconds (OpenAI's retry-after-ms beside it), or now and then as an HTTP date alone: only two
      // contract rows met the date form, and an adapter that read no date passed fuzz (outside probe 55, MED-1).
      arbitrary: fc.tuple(fc.option(fc.integer({ min: 0, max: 90_000 }), { nil: undefined, freq: 5 }), fc.constantFrom(false, false, true)).map(
        ([ms, asDate]): ErrorSpec => ({
          kind: 'rate_limited',
          status: 429,
          ...(ms !== undefined ? { retryAfterMs: ms, ...(asDate ? { retryAfterAs: 'date' as const } : {}) } : {}),
        }),
      ),
    },
    {
      weight: 2,
      arbitrary: fc
        .record({
          midStream: fc.oneof({ weight: 2, arbitrary: fc.constantFrom(false, true) }, { weight: 1, arbitrary: fc.constantFrom(...cuts) }),
          status: fc.constantFrom(undefined, 503, 529),
          retryAfterMs: retryAfterArb,
        })
        .map(
          ({ midStream, status, retryAfterMs }): ErrorSpec =>
            // Inside a 200 stream there is no status and no header; as an HTTP error, an overload may say how long to wait.
            midStream
              ? { kind: 'overloaded', midStream }
              : { kind: 'overloaded', ...(status !== undefined ? { status } : {}), ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) },
        ),
    },
    {
      weight: 2,
      arbitrary: fc
        .record({ status: fc.constantFrom(500, 502, 503), retryAfterMs: retryAfterArb })
        .map(({ status, retryAfterMs }): ErrorSpec => ({ kind: 'server_error', status, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) })),
    },
    {
      weight: 1,
      // A connection that drops before the response, or after its 200: inside the text, or inside a call's arguments.
      arbitrary: fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom<ErrorSpec>({ kind: 'network' }, { kind: 'network', midStream: true }) },
        { weight: 1, arbitrary: fc.constantFrom(...cuts).map((midStream): ErrorSpec => ({ kind: 'network', midStream })) },
      ),
    },
    // A malformed stream: a broken line, or a stream that closes cleanly without the events that end it (Anthropic's
    // message_stop after message_delta said how it stopped). Drawn on its own: among the network faults it came a few
    // times in a thousand cases, and adapters that took either for a reply passed fuzz (outside probe 58).
    { weight: 2, arbitrary: fc.boolean().map((missingEnd): ErrorSpec => ({ kind: 'malformed_stream', ...(missingEnd ? { missingEnd } : {}) })) },
    // An account error: a bad key, or out of quota or credit — as a gateway relays it, a 429 with a retry-after that
    // waiting never honours (outside probe 58: an adapter reading such a 429 as a rate limit passed fuzz).
    {
      weight: 1,
      arbitrary: fc
        .record({ quota: fc.boolean(), status: fc.constantFrom(undefined, 429), retryAfterMs: retryAfterArb })
        .map(
          ({ quota, status, retryAfterMs }): ErrorSpec =>
            quota
              ? { kind: 'auth', quota, ...(status !== undefined ? { status } : {}), ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) }
              : { kind: 'auth' },
        ),
    },
    // A stream that stalls after its first text: only the model timeout ends it, on the adapter's own deadline
    // (outside probe 58, HIGH-1: such a step never ended, and no fuzz case drew one).
    { weight: 1, arbitrary: fc.constant<ErrorSpec>({ kind: 'timeout' }) },
  );
}

/** How a reply may quote the key: as sent, `%HH`-encoded, in base64, in hex. */
const KEY_FORMS: readonly NonNullable<ProviderStep['quotesKey']>[] = [true, 'percent', 'base64', 'hex'];

/** A wire step, for any provider (`forProvider` then makes it one that provider can write). */
function stepArb(tools: readonly FuzzTool[]): fc.Arbitrary<ProviderStep> {
  return fc.oneof(
    { withCrossShrink: true },
    {
      weight: 3,
      arbitrary: fc
        // Now and then ended by a stop sequence: a reply all the same (outside probe 60, P18: Anthropic's stop_sequence
        // read as a tool call passed fuzz, which never sent one).
        // Now and then the reply goes on to quote the API key, as sent or encoded, streamed across the deltas (outside
        // probe 67: an adapter whose stream let out the head of the key's base64 passed fuzz, which quoted the key
        // only in error bodies).
        .record({
          reply: fc.constantFrom('Done.', 'Here is what I found.', ''),
          usage: usageArb,
          stopSequence: fc.boolean(),
          // One reply in four (shrinking to none).
          quotesKey: fc.nat(15).map((n) => (n >= 12 ? KEY_FORMS[n - 12] : undefined)),
        })
        .map(
          ({ reply, usage, stopSequence, quotesKey }): ProviderStep => ({
            reply,
            ...(stopSequence ? { stopSequence } : {}),
            ...(quotesKey ? { quotesKey } : {}),
            ...(usage ? { usage } : {}),
          }),
        ),
    },
    {
      weight: 5,
      arbitrary: fc
        .record({
          calls: callsArb(tools),
          text: fc.option(fc.constantFrom('Let me check.', '\n\n'), { nil: undefined }),
          interleaved: fc.boolean(),
          // OpenAI Chat as compatible servers stream it: each call's first chunk with a piece of its arguments
          // (outside probe 58: an adapter dropping that piece passed fuzz, whose fake never sent one).
          argsInFirstChunk: fc.boolean(),
          usage: usageArb,
        })
        .map(
          ({ calls, text, interleaved, argsInFirstChunk, usage }): ProviderStep => ({
            tool_use: calls,
            ...(text !== undefined ? { text } : {}),
            ...(interleaved && calls.length > 1 ? { interleaved } : {}),
            ...(argsInFirstChunk ? { argsInFirstChunk } : {}),
            ...(usage ? { usage } : {}),
          }),
        ),
    },
    // Refusals weigh as much again: Chat's `message.refusal` is one provider in three (probe 14, P11).
    { weight: 4, arbitrary: fc.constant<ProviderStep>({ refusal: 'I cannot help with that.' }) },
    {
      weight: 2,
      // On OpenAI Responses a cut call's item may be closed as incomplete, and its arguments so far may parse (a refund
      // cut before its amount): it is cut all the same (outside probe 58: an adapter taking a closed item for a finished
      // call passed fuzz). Elsewhere arguments that parse are a finished call (forProvider).
      arbitrary: fc.record({ text: fc.constantFrom('', 'The answer is'), partial: fc.boolean(), parses: fc.boolean(), closed: fc.boolean() }).map(
        ({ text, partial, parses, closed }): ProviderStep => ({
          max_tokens: { text, partial, ...(partial && parses ? { args: { entry_id: 'JOB-1001' } } : {}), ...(partial && closed ? { closed } : {}) },
        }),
      ),
    },
    { weight: 1, arbitrary: fc.constantFrom('pause_turn', 'model_context_window_exceeded').map((unknown): ProviderStep => ({ unknown })) },
    // An overflow during generation is Anthropic's own stop reason (model_context_window_exceeded): only a third of
    // the wire cases can send it, so overflows weigh more (probe 14, P03: that stop read as max_tokens passed 1000
    // cases on seed 2 at weight 1; at 6, refusals at 4, it fails at run 275 on seed 1, 283 on seed 2).
    // A request overflow is told by code and words, or (OpenAI, as compatible servers and gateways word it) by one of them alone.
    {
      weight: 6,
      arbitrary: fc
        .tuple(fc.constantFrom<'request' | 'generation'>('request', 'generation'), fc.constantFrom(undefined, undefined, 'code' as const, 'words' as const))
        .map(([overflow, toldBy]): ProviderStep => (overflow === 'request' && toldBy ? { overflow, overflowToldBy: toldBy } : { overflow })),
    },
    // Now and then an HTTP error's message quotes the key the request carried (as some gateways' answers do): the
    // adapter must keep its own key out of its result (outside probe 58: a result left unscrubbed passed fuzz).
    {
      weight: 4,
      arbitrary: fc
        // The key as sent, %HH-encoded or in base64 (outside probe 58: an adapter scrubbing only the key as sent passed fuzz).
        .tuple(errorArb(tools), fc.nat({ max: 3 }), fc.constantFrom<true | 'percent' | 'base64'>(true, 'percent', 'base64'))
        .map(([error, n, quotesKey]): ProviderStep => ({ error: n === 0 && quotable(error) ? { ...error, quotesKey } : error })),
    },
  );
}

/** An HTTP error with a body whose message can quote the key (not a stream that breaks after its 200). */
function quotable(error: ErrorSpec): boolean {
  return ['auth', 'rate_limited', 'overloaded', 'server_error'].includes(error.kind) && !error.midStream;
}

/**
 * The step as `provider` can write it: interleaved chunks only on OpenAI Chat, an
 * overflow during generation and cache writes only on Anthropic (OpenAI's usage has
 * no field for them; the input total stays as it was).
 */
function forProvider(step: ProviderStep, provider: WireProviderName): ProviderStep {
  if (step.usage?.cacheWrite !== undefined && provider !== 'anthropic') {
    const { cacheWrite: _cacheWrite, ...usage } = step.usage;
    return forProvider({ ...step, usage }, provider);
  }
  if ((step.interleaved || step.argsInFirstChunk) && provider !== 'openai-chat') {
    const { interleaved: _interleaved, argsInFirstChunk: _first, ...rest } = step;
    return rest;
  }
  if ((step.max_tokens?.closed || step.max_tokens?.args !== undefined) && provider !== 'openai-responses') {
    const { closed: _closed, args: _args, ...max_tokens } = step.max_tokens;
    return { ...step, max_tokens };
  }
  if (step.overflow === 'generation' && provider !== 'anthropic') return { ...step, overflow: 'request' };
  // The Messages API has no error code: an overflow is told by its words and its type together.
  if (step.overflowToldBy !== undefined && provider === 'anthropic') {
    const { overflowToldBy: _toldBy, ...rest } = step;
    return rest;
  }
  return step;
}

/**
 * An HTTP error with a retry-after (or an account out of quota, sent as a 429
 * with one), led with: a step after the turn's reply is
 * never sent, so drawn anywhere in the script such an answer was read by an
 * adapter a few times in a thousand cases, and Anthropic's `retry-after` seconds
 * often never (outside probe 16, Q6: seconds read ×100 passed 1,000 runs).
 */
const leadingErrorArb: fc.Arbitrary<ProviderStep> = fc
  .record({
    kind: fc.constantFrom<{ kind: 'rate_limited' | 'overloaded' | 'server_error' | 'auth'; status: number; quota?: true }>(
      { kind: 'rate_limited', status: 429 },
      // Out of quota, relayed as a 429 with a retry-after: an account problem, never waited for.
      { kind: 'auth', status: 429, quota: true },
      { kind: 'overloaded', status: 503 },
      { kind: 'overloaded', status: 529 },
      { kind: 'server_error', status: 500 },
      { kind: 'server_error', status: 502 },
    ),
    retryAfterMs: fc.integer({ min: 1, max: 20_000 }),
  })
  .map(({ kind, retryAfterMs }): ProviderStep => ({ error: { ...kind, retryAfterMs } }));

/**
 * A stream that breaks after its 200, led with for the same reason: a broken
 * line, a stream closed cleanly without its ending, a connection dropped or an
 * overload told inside it. Drawn only in the script, each came a few times in a
 * thousand cases, once for each provider's adapter (outside probe 58: adapters
 * that took a broken or endless stream for a reply passed fuzz).
 */
const leadingStreamFaultArb: fc.Arbitrary<ProviderStep> = fc.constantFrom<ProviderStep>(
  { error: { kind: 'malformed_stream' } },
  { error: { kind: 'malformed_stream', missingEnd: true } },
  { error: { kind: 'network', midStream: true } },
  { error: { kind: 'overloaded', midStream: true } },
);

/**
 * A wire case: one of the three providers, and a short script it can write,
 * half the time led by a fault the adapter must tell (two times in three an HTTP
 * error with a retry-after, else a stream that breaks); a quarter of the time a
 * fallback's too.
 */
export function wireCaseArb(tools: readonly FuzzTool[]): fc.Arbitrary<WireCase> {
  return fc
    .record({
      provider: fc.constantFrom(...WIRE_PROVIDERS),
      lead: fc.option(fc.oneof({ withCrossShrink: true }, { weight: 2, arbitrary: leadingErrorArb }, { weight: 1, arbitrary: leadingStreamFaultArb }), {
        nil: undefined,
        freq: 2,
      }),
      script: fc.array(stepArb(tools), { minLength: 1, maxLength: MAX_WIRE_STEPS }),
      fallback: fc.option(fc.array(stepArb(tools), { minLength: 1, maxLength: 2 }), { nil: undefined, freq: 4 }),
    })
    .map(({ provider, lead, script, fallback }) => ({
      provider,
      script: withCallIds(
        (lead ? [lead, ...script.slice(0, MAX_WIRE_STEPS - 1)] : script).map((step) => forProvider(step, provider)),
        'w',
      ),
      // The fallback streams its calls one after another (interleaving is the primary's, schema.ts).
      ...(fallback
        ? {
            fallback: withCallIds(
              fallback.map((step) => withoutInterleaving(forProvider(step, provider))),
              'f',
            ),
          }
        : {}),
    }));
}

/**
 * Each call given an id of its own in the script (`w2_1`: step 2's second call; `f…` in the fallback's, whose results
 * are not compared), so `adapter-follows-the-wire` holds the primary's adapter to the id the wire sent — left to the
 * fake's numbering, the id went unchecked (outside probe 67: an OpenAI Responses adapter that took the item's id,
 * `fc_…`, for the call's `call_id` passed fuzz). Drawn from nothing: no other draw moves.
 */
function withCallIds(script: readonly ProviderStep[], prefix: string): ProviderStep[] {
  return script.map((step, i) =>
    step.tool_use ? { ...step, tool_use: step.tool_use.map((call, k) => (call.id === undefined ? { ...call, id: `${prefix}${i}_${k}` } : call)) } : step,
  );
}

function withoutInterleaving(step: ProviderStep): ProviderStep {
  if (!step.interleaved) return step;
  const { interleaved: _interleaved, ...rest } = step;
  return rest;
}
