/**
 * The scenario file format (YAML), as a zod schema. The JSON Schema editors use
 * (scenarios/scenario.schema.json) is generated from this definition; the format
 * is documented in scenarios/README.md.
 */
import { z } from 'zod';
import { CANCEL_SOURCES, closestName, EVENT_VERSIONS, isKnownType, MAX_TIMEOUT_MS, TIMEOUT_TOO_LONG, TRANSPORT_ERROR_KINDS } from '../../kernel/index.ts';
import { replyAssertionsSchema } from './reply-assertions-schema.ts';

const ms = z.number().int().nonnegative();
const positiveInt = z.number().int().positive();
/**
 * A timer the agent is given (a timeout, a retry's wait), not the case's virtual time: a real timer cannot hold
 * more, and the host or the loop refused it with a stack once the case ran (a scenario's 3e9 ms "threw", exit 1).
 */
const timerMs = positiveInt.max(MAX_TIMEOUT_MS, { error: TIMEOUT_TOO_LONG });
const timerDelayMs = ms.max(MAX_TIMEOUT_MS, { error: TIMEOUT_TOO_LONG });

/** How many times an entry repeats: a long conversation (thousands of messages) in a few lines. */
const MAX_TIMES = 5_000;
const timesSchema = positiveInt.max(MAX_TIMES).optional();

/** A list with each entry that says `times: n` written out n times (without its `times`). */
function expanded<T extends { readonly times?: number | undefined }>(entries: readonly T[]): Omit<T, 'times'>[] {
  const out: Omit<T, 'times'>[] = [];
  entries.forEach(({ times, ...entry }, at) => {
    SOURCE_INDEX.set(entry, at);
    for (let i = 0; i < (times ?? 1); i++) out.push(entry);
  });
  return out;
}

/** Where each entry of an expanded list stood in the file: the same object stands for every repeat of it. */
const SOURCE_INDEX = new WeakMap<object, number>();

/**
 * The index in the file of the entry at `i` of a list expanded by `times`: what a check run on the expanded list
 * names (so a problem after a `times` entry is named at its own line, not at a repeat's place).
 */
function sourceIndex(entry: object, i: number): number {
  return SOURCE_INDEX.get(entry) ?? i;
}

// ---------------------------------------------------------------------------
// The provider: a script of normalized results and faults
// ---------------------------------------------------------------------------

/**
 * Token counts as the model client reports them: whole numbers, possibly past 2^53
 * (a team's own client that reports 1e308 — the SDK adapters leave such usage out).
 */
const tokens = z.number().nonnegative().refine(Number.isInteger, 'a whole number of tokens');

const usageSchema = z.strictObject({
  input: tokens,
  output: tokens,
  cacheRead: z.number().int().nonnegative().optional().describe('Of input, tokens read from the prompt cache'),
  cacheWrite: z.number().int().nonnegative().optional().describe('Of input, tokens written to the prompt cache'),
  reasoning: z.number().int().nonnegative().optional().describe('Of output, reasoning tokens'),
});

const toolCallSchema = z.strictObject({
  id: z
    .string()
    .optional()
    .describe("Call id; default call_<n>; '' for a call that comes without one, as from some OpenAI-compatible servers (the loop names it)"),
  name: z.string().min(1),
  args: z.unknown().optional().describe('Arguments as the model sends them (object, or a raw string)'),
});

/** The transport error kinds a scenario may script: the model port's own list. */
export const TRANSPORT_KINDS = TRANSPORT_ERROR_KINDS;

const RESULT_KEYS = ['reply', 'tool_use', 'max_tokens', 'refusal', 'overflow', 'unknown', 'error', 'reject'] as const;

/** The errors the wire answers with an HTTP status and a body, whose message may quote the key (`quotesKey`). */
const QUOTING_KINDS: readonly string[] = ['auth', 'rate_limited', 'overloaded', 'server_error'];

export const providerStepSchema = z
  .strictObject({
    reply: z.string().optional().describe('The model answers with this text'),
    tool_use: z.array(toolCallSchema).min(1).optional().describe('The model calls these tools (in parallel, in order)'),
    text: z
      .string()
      .optional()
      .describe(
        "Text before the tool calls (tool_use), or a text block of its own before the reply's (reply): a provider may send an answer as several text blocks — Anthropic one per citation — some only white space",
      ),
    stopSequence: z
      .boolean()
      .optional()
      .describe(
        "reply, on the wire: the answer ended at one of the request's stop sequences (Anthropic's stop_reason stop_sequence, naming it; OpenAI's finish reason stop): a reply like any other",
      ),
    quotesKey: z
      .union([z.boolean(), z.enum(['percent', 'base64', 'hex'])])
      .optional()
      .describe(
        'reply, on the wire: the reply goes on to quote the API key the request carried ("The key you sent is …"), as some models echo a key pasted into a prompt — as sent (true), every byte %HH-encoded (percent), in base64 or in hex — streamed across the deltas as any text; the adapter must keep every form of it out of every delta and of its result, where it is redacted',
      ),
    interleaved: z
      .boolean()
      .optional()
      .describe(
        "tool_use with several calls, on the wire (openai-chat): the calls' argument chunks arrive interleaved by index, as the real API may send them",
      ),
    argsInFirstChunk: z
      .boolean()
      .optional()
      .describe(
        "tool_use, on the wire (openai-chat): each call's first chunk, with its id and name, carries the first piece of its arguments too, as OpenAI-compatible servers (vLLM, Ollama, LiteLLM) stream them; the real API sends that chunk with empty arguments",
      ),
    max_tokens: z
      .strictObject({
        text: z.string().default(''),
        partial: z.boolean().default(false),
        args: z
          .unknown()
          .optional()
          .describe(
            'partial: the cut call\'s arguments as written before the cut (an object, or raw text); default a cut issue_refund, {"order_id": "ORD-10 — arguments that parse are cut all the same (a refund whose amount was never written)',
          ),
        closed: z
          .boolean()
          .optional()
          .describe(
            "partial, on the wire (openai-responses): the server closes the cut call's item (output_item.done, status incomplete) before the final event; a closed item is still not a finished call",
          ),
      })
      .optional()
      .describe('Output cut at max_tokens; partial: inside a tool call'),
    refusal: z.string().optional(),
    overflow: z.enum(['request', 'generation']).optional().describe('Context window exceeded'),
    overflowToldBy: z
      .enum(['code', 'words'])
      .optional()
      .describe(
        "overflow: request, on the wire: the provider's 400 says so by its code alone (context_length_exceeded, in words that never name the context window, as a compatible server words it), or by its words alone (no code, as a gateway that drops it sends it); default both",
      ),
    unknown: z.string().optional().describe('An unknown stop reason'),
    error: z
      .strictObject({
        kind: z.enum(TRANSPORT_KINDS),
        status: z.number().int().optional(),
        retryAfterMs: ms.optional(),
        retryAfterAs: z
          .enum(['seconds', 'date'])
          .optional()
          .describe(
            "On the wire, how the provider words retryAfterMs: seconds (default; OpenAI's retry-after-ms beside it) or date: an HTTP date in retry-after alone (whole seconds, so up to a second less is left)",
          ),
        message: z.string().optional(),
        quota: z
          .boolean()
          .optional()
          .describe(
            "kind: auth, on the wire: the account is out of quota or credit (OpenAI's insufficient_quota, Anthropic's billing_error), sent with status (say 429) and retryAfterMs when given, as a gateway may relay it: an account problem, never a rate limit to wait for",
          ),
        quotesKey: z
          .union([z.boolean(), z.enum(['percent', 'base64'])])
          .optional()
          .describe(
            "On the wire, an HTTP error (kind: auth, rate_limited, overloaded or server_error): its message quotes the API key the request carried, as some gateways' answers do — as sent (true), every byte %HH-encoded (percent, as a gateway echoing the URL it was given) or in base64; the adapter must keep every form of it out of everything it returns",
          ),
        missingEnd: z
          .boolean()
          .optional()
          .describe(
            "kind: malformed_stream, on the wire: no broken line, but a stream that closes cleanly without the events that end it (Anthropic's message_stop, after message_delta said how it stopped; Chat's finish chunk, usage chunk and [DONE]; Responses' final event), as a proxy that cuts a stream at an event boundary sends it",
          ),
        midStream: z
          .union([
            z.boolean(),
            z.literal('tool_args'),
            z.strictObject({ tool_args: z.string().min(1).describe('The tool whose call the stream cuts inside its arguments') }),
          ])
          .optional()
          .describe(
            "overloaded or network: the provider answers 200 and streams some text (tool_args: then starts a call to issue_refund and sends part of its arguments; { tool_args: NAME }: a call to that tool, one of your agent's) before the stream breaks — with an error event inside it (overloaded) or the connection dropping (network)",
          ),
      })
      .optional()
      .describe('A transport error'),
    reject: z
      .string()
      .optional()
      .describe(
        "A broken client: the call's promise rejects with an error of this message instead of settling with a result (providers never reject); the loop must turn it into a transport error (scripted providers only)",
      ),
    latencyMs: ms.optional().describe('Virtual time the call takes'),
    deltaMs: ms.optional().describe('Virtual time each streamed delta takes (on the wire: each chunk the SDK parses)'),
    ignoresTimeout: z
      .boolean()
      .optional()
      .describe("A hung client: it does not honour the request's timeout, so only the loop's own backstop ends the call (scripted providers only)"),
    usage: usageSchema.optional(),
    times: timesSchema.describe('This step, this many times in a row (a long conversation without a long file); default 1'),
  })
  .superRefine((step, ctx) => {
    const keys = RESULT_KEYS.filter((k) => step[k] !== undefined);
    if (keys.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message: `a provider step needs exactly one of ${RESULT_KEYS.join(', ')} (got ${keys.length ? keys.join(', ') : 'none'})`,
      });
    }
    if (step.text !== undefined && step.tool_use === undefined && step.reply === undefined)
      ctx.addIssue({ code: 'custom', path: ['text'], message: 'text goes with tool_use or reply (a block before the calls, or before the reply)' });
    if (step.interleaved && (step.tool_use?.length ?? 0) < 2)
      ctx.addIssue({
        code: 'custom',
        path: ['interleaved'],
        message: 'interleaved goes with tool_use of two or more calls (their argument chunks interleave)',
      });
    if (step.error?.midStream && step.error.kind !== 'overloaded' && step.error.kind !== 'network')
      ctx.addIssue({
        code: 'custom',
        path: ['error', 'midStream'],
        message: 'midStream goes with kind: overloaded (an error event inside a 200 stream) or kind: network (the connection drops mid-stream)',
      });
    if (step.argsInFirstChunk && step.tool_use === undefined)
      ctx.addIssue({ code: 'custom', path: ['argsInFirstChunk'], message: "argsInFirstChunk goes with tool_use (the calls' first chunks)" });
    if (step.max_tokens?.closed && !step.max_tokens.partial)
      ctx.addIssue({ code: 'custom', path: ['max_tokens', 'closed'], message: 'closed goes with partial: true (the cut call whose item the server closes)' });
    if (step.max_tokens?.args !== undefined && !step.max_tokens.partial)
      ctx.addIssue({ code: 'custom', path: ['max_tokens', 'args'], message: 'args goes with partial: true (the arguments of the call the limit cut)' });
    if (step.error?.missingEnd && step.error.kind !== 'malformed_stream')
      ctx.addIssue({
        code: 'custom',
        path: ['error', 'missingEnd'],
        message: 'missingEnd goes with kind: malformed_stream (a stream that closes without its ending)',
      });
    if (step.quotesKey && step.reply === undefined)
      ctx.addIssue({ code: 'custom', path: ['quotesKey'], message: 'quotesKey goes with reply (the answer that quotes the key)' });
    if (step.quotesKey && `${step.text ?? ''}${step.reply ?? ''}`.includes('{{credential'))
      ctx.addIssue({
        code: 'custom',
        path: [step.reply?.includes('{{credential') ? 'reply' : 'text'],
        message: 'with quotesKey the wire writes the key itself, after the reply: leave {{credential…}} out of reply and text',
      });
    if (step.stopSequence && step.reply === undefined)
      ctx.addIssue({ code: 'custom', path: ['stopSequence'], message: 'stopSequence goes with reply (the answer a stop sequence ended)' });
    if (step.overflowToldBy !== undefined && step.overflow !== 'request')
      ctx.addIssue({ code: 'custom', path: ['overflowToldBy'], message: 'overflowToldBy goes with overflow: request (the 400 that refuses the request)' });
    if (step.error?.quota && step.error.kind !== 'auth')
      ctx.addIssue({
        code: 'custom',
        path: ['error', 'quota'],
        message: 'quota goes with kind: auth (an account out of credit is an account problem, not a rate limit)',
      });
    if (step.error?.quotesKey && (!QUOTING_KINDS.includes(step.error.kind) || step.error.midStream))
      ctx.addIssue({
        code: 'custom',
        path: ['error', 'quotesKey'],
        message: `quotesKey goes with an HTTP error: kind ${QUOTING_KINDS.join(', ')}, without midStream`,
      });
    if (step.error?.retryAfterAs !== undefined && step.error.retryAfterMs === undefined)
      ctx.addIssue({ code: 'custom', path: ['error', 'retryAfterAs'], message: 'retryAfterAs says how retryAfterMs is worded: give retryAfterMs too' });
    if (step.error?.midStream && (step.error.status !== undefined || step.error.retryAfterMs !== undefined))
      ctx.addIssue({
        code: 'custom',
        path: ['error', step.error.status !== undefined ? 'status' : 'retryAfterMs'],
        message: 'a stream that breaks after its 200 has no status of its own and no retry-after header: drop midStream, or this key',
      });
  });
export type ProviderStep = z.infer<typeof providerStepSchema>;

/**
 * The path of a key that says how the wire words an answer (`stopSequence`, `quotesKey`, `missingEnd`, …), if the step
 * has one: nothing a scripted provider, which answers the loop's own result, can say.
 */
export function wireOnlyKey(step: ProviderStep): string[] | undefined {
  if (step.overflowToldBy !== undefined) return ['overflowToldBy'];
  if (step.stopSequence) return ['stopSequence'];
  if (step.quotesKey) return ['quotesKey'];
  if (step.argsInFirstChunk) return ['argsInFirstChunk'];
  if (step.error?.quota) return ['error', 'quota'];
  if (step.error?.quotesKey) return ['error', 'quotesKey'];
  if (step.error?.missingEnd) return ['error', 'missingEnd'];
  if (step.max_tokens?.closed) return ['max_tokens', 'closed'];
  if (step.max_tokens?.args !== undefined) return ['max_tokens', 'args'];
  return undefined;
}

/** Whether a cut call's `args` parse: an object always does; text when it is whole JSON. */
function parses(args: unknown): boolean {
  if (typeof args !== 'string') return true;
  try {
    JSON.parse(args);
    return true;
  } catch {
    return false;
  }
}

export const WIRE_PROVIDERS = ['anthropic', 'openai-chat', 'openai-responses'] as const;
/** The wire fakes that can interleave parallel calls' argument chunks (Chat Completions routes each chunk by the call's index). */
export const INTERLEAVING_PROVIDERS: readonly (typeof WIRE_PROVIDERS)[number][] = ['openai-chat'];

const providerSchema = z
  .strictObject({
    kind: z
      .enum(['scripted', 'wire', 'own'])
      .default('scripted')
      .describe(
        "scripted: in-process fake; wire: the real SDK over HTTP against a wire-level fake; own: your own model client (config `clients`), each step made by its contract harness's fake",
      ),
    provider: z.enum(WIRE_PROVIDERS).optional().describe('For kind: wire'),
    client: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, 'a client name is letters, digits, _ or - (at most 64), as in the config')
      .optional()
      .describe("For kind: own: the name of your client in the config's `clients`"),
    script: z.array(providerStepSchema).default([]).transform(expanded),
    fallback: z
      .array(providerStepSchema)
      .transform(expanded)
      .optional()
      .describe(
        'Script of a fallback client (retry tier 3); with kind: wire it is served over the wire too, by the same provider, with a key and address of its own',
      ),
    model: z.string().min(1).optional().describe("The model the primary client is asked for; default: the loop's model name, scenario-model"),
    fallbackModel: z.string().min(1).optional().describe('The model the fallback client is asked for; default: fallback-model'),
  })
  .superRefine((p, ctx) => {
    if (p.kind === 'wire' && !p.provider)
      ctx.addIssue({ code: 'custom', path: ['provider'], message: `kind: wire needs provider: one of ${WIRE_PROVIDERS.join(', ')}` });
    if (p.kind !== 'wire' && p.provider) ctx.addIssue({ code: 'custom', path: ['provider'], message: 'provider is only for kind: wire' });
    if (p.kind === 'own' && !p.client)
      ctx.addIssue({ code: 'custom', path: ['client'], message: "kind: own needs client: the name of your client in the config's clients" });
    if (p.kind !== 'own' && p.client) ctx.addIssue({ code: 'custom', path: ['client'], message: 'client is only for kind: own' });
    p.script.forEach((step, expandedAt) => {
      const i = sourceIndex(step, expandedAt);
      // Your own client's harness says itself whether its protocol can interleave (an unsupported step fails the case, naming it).
      if (step.interleaved && p.kind !== 'own' && !(p.kind === 'wire' && INTERLEAVING_PROVIDERS.includes(p.provider!)))
        ctx.addIssue({
          code: 'custom',
          path: ['script', i, 'interleaved'],
          message: `interleaved is a wire-level detail: kind: wire with provider ${INTERLEAVING_PROVIDERS.join(' or ')} (the others stream one call after another)`,
        });
    });
    // Wire details only one provider's protocol can say (your own client's harness says itself what its protocol can).
    if (p.kind === 'wire')
      for (const list of ['script', 'fallback'] as const)
        p[list]?.forEach((step, expandedAt) => {
          const i = sourceIndex(step, expandedAt);
          const only: [string[], string, string] | undefined =
            step.argsInFirstChunk && p.provider !== 'openai-chat'
              ? [['argsInFirstChunk'], 'openai-chat', 'the others open a streamed call with no argument text']
              : step.max_tokens?.closed && p.provider !== 'openai-responses'
                ? [['max_tokens', 'closed'], 'openai-responses', 'the others have no status per call to close a cut one with']
                : step.max_tokens?.args !== undefined && parses(step.max_tokens.args) && p.provider !== 'openai-responses'
                  ? [
                      ['max_tokens', 'args'],
                      'openai-responses',
                      "arguments that parse are a finished call on the others' wire (their arguments stream as JSON text, whole once it parses); give text that is cut",
                    ]
                  : undefined;
          if (only) ctx.addIssue({ code: 'custom', path: [list, i, ...only[0]], message: `${only[0].at(-1)} is for provider ${only[1]}: ${only[2]}` });
        });
    // How the wire words an answer: nothing a scripted provider (which answers the loop's own result) can say.
    if (p.kind === 'scripted')
      for (const list of ['script', 'fallback'] as const)
        p[list]?.forEach((step, expandedAt) => {
          const i = sourceIndex(step, expandedAt);
          const wireOnly = wireOnlyKey(step);
          if (wireOnly)
            ctx.addIssue({
              code: 'custom',
              path: [list, i, ...wireOnly],
              message: `${wireOnly.at(-1)} says how the provider words its answer on the wire: kind: wire (or own); a scripted provider answers the loop's result itself`,
            });
        });
    // What the wire cannot say, in the script or the fallback's (served over the wire too). What the provider's own
    // protocol has no way to say (cache writes on OpenAI, …) is refused when the file is checked (check-wire-steps.ts).
    if (p.kind === 'wire' || p.kind === 'own')
      for (const list of ['script', 'fallback'] as const)
        p[list]?.forEach((step, expandedAt) => {
          const i = sourceIndex(step, expandedAt);
          if (step.ignoresTimeout)
            ctx.addIssue({
              code: 'custom',
              path: [list, i, 'ignoresTimeout'],
              message: `ignoresTimeout is for scripted providers: ${p.kind === 'own' ? 'your client' : "a wire provider's SDK"} honours its timeout itself`,
            });
          if (step.reject !== undefined)
            ctx.addIssue({
              code: 'custom',
              path: [list, i, 'reject'],
              message: `reject is for scripted providers: ${p.kind === 'own' ? 'your client must' : "loopgate's adapters"} settle every call with a result`,
            });
          if (step.error?.kind === 'invalid_request' || step.error?.kind === 'aborted')
            ctx.addIssue({
              code: 'custom',
              path: [list, i, 'error', 'kind'],
              message: `error kind "${step.error.kind}" cannot be produced on the wire (it is the loop's own); use kind: scripted`,
            });
          // Your harness's fake dates the header on the wall clock, not the case's: the wait left would differ run to run.
          if (p.kind === 'own' && step.error?.retryAfterAs === 'date')
            ctx.addIssue({
              code: 'custom',
              path: [list, i, 'error', 'retryAfterAs'],
              message:
                "retryAfterAs: date is dated by your harness's fake on the wall clock, not the case's virtual one: the wait left would differ run to run; the contract suite's rate_limited_429_retry_after_date case checks your client reads a date",
            });
          // Your harness's fake serves in real time: a stalled stream would hold the case for your client's whole deadline.
          if (p.kind === 'own' && step.error?.kind === 'timeout')
            ctx.addIssue({
              code: 'custom',
              path: [list, i, 'error', 'kind'],
              message:
                "error kind \"timeout\" is a stalled stream, which your harness's fake would serve in real time; the contract suite's stall cases check your client's deadline (docs/own-provider.md)",
            });
        });
    p.fallback?.forEach((step, expandedAt) => {
      const i = sourceIndex(step, expandedAt);
      if (step.interleaved)
        ctx.addIssue({
          code: 'custom',
          path: ['fallback', i, 'interleaved'],
          message: "interleaved is for the primary's script: the fallback streams its calls one after another",
        });
    });
  });

// ---------------------------------------------------------------------------
// Tools and their scripted behaviour
// ---------------------------------------------------------------------------

export const behaviourSchema = z.union([
  z.enum(['ok', 'hang']).describe('ok: run normally (or return {}); hang: never settle (the timeout applies)'),
  z.strictObject({ return: z.unknown() }),
  z.strictObject({
    fail: z
      .strictObject({
        code: z.string().min(1),
        message: z.string().optional(),
        suggestion: z.string().optional(),
        retryable: z.boolean().optional(),
        fromAnotherCopy: z
          .union([z.boolean(), z.literal('without-retryable')])
          .optional()
          .describe(
            "The ToolFailure comes from another copy of loopgate's module (a tool package with its own copy): instanceof does not hold, the loop must know it by its name and fields. without-retryable: a look-alike that has no retryable field at all (a copy from before it, or a package's own error named ToolFailure): it does not say it may be retried",
          ),
      })
      .superRefine((fail, ctx) => {
        if (fail.fromAnotherCopy === 'without-retryable' && fail.retryable !== undefined)
          ctx.addIssue({
            code: 'custom',
            path: ['retryable'],
            message: 'a look-alike without-retryable has no retryable field: drop retryable, or use fromAnotherCopy: true',
          });
      }),
  }),
  z.strictObject({ throw: z.string() }),
  z
    .strictObject({ returnNotJson: z.enum(['bigint', 'cycle']) })
    .describe(
      "Returns a value JSON cannot hold, as a tool's own data can be: bigint, an object with a BigInt (a 64-bit count from a database driver); cycle, an object that refers back to itself (an ORM record with a back-reference). The tool ran; the loop answers the call failed INVALID_OUTPUT",
    ),
  z
    .strictObject({ returnNothing: z.literal(true) })
    .describe(
      'Returns nothing (undefined) at once, as a plain function that forgot its return statement does. The tool ran and returned no output: the call is ok with none (the model reads "(no output)"), never taken for a promise or left unsettled',
    ),
  z
    .strictObject({ returnCallableThenable: z.literal(true) })
    .describe(
      "Returns a function with a then method (a callable thenable, as a lazy query builder is) that runs the tool when awaited. A thenable may be a function as well as an object (as await reads it): the loop must wait for it and answer with the tool's own result, not take the function for the output",
    ),
  z
    .strictObject({
      slow: ms,
      then: z.unknown().optional().describe('What to return after the wait (default: run normally)'),
      abortable: z
        .literal(true)
        .optional()
        .describe(
          "The wait honours the call's abort signal as a request with it does (fetch): aborted — a timeout, a cancel — it throws an AbortError at once. Without it the body waits out its time, whatever the signal says",
        ),
      ignoresSignal: z
        .literal(true)
        .optional()
        .describe(
          'The body never reads its abort signal (a client call with no abort support): it runs its whole time whatever the loop says — a cancel or a timeout must stop the wait for it, not the body. Without it the wait ends early, unfinished, when the signal aborts',
        ),
    })
    .refine((b) => !(b.abortable && b.ignoresSignal), {
      message: 'abortable and ignoresSignal say opposite things of one body: give one',
      path: ['ignoresSignal'],
    }),
]);
export type Behaviour = z.infer<typeof behaviourSchema>;

/** Ways a tool executor can break its contract (every call settles with exactly one result). */
export const EXECUTOR_FAULTS = ['drops-result', 'throws-after-start', 'misuses-span', 'leaves-span-open', 'skips-redaction'] as const;
export type ExecutorFault = (typeof EXECUTOR_FAULTS)[number];
/** The executor faults that lose a call's result (the loop must answer the call itself). */
export const RESULT_LOSING_FAULTS = ['drops-result', 'throws-after-start'] as const satisfies readonly ExecutorFault[];

const FIELD_TYPE = /^(?:(?:string|number|integer|boolean|object)(?:\[\])?|array|any)\??$/;

const toolSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ or -, at most 64'),
  description: z.string().min(1).optional().describe('Required for a tool the agent does not already have'),
  input: z
    .record(
      z.string(),
      z
        .string()
        .regex(FIELD_TYPE, 'a type: string, number, integer, boolean, object, array or any, or a list of one (string[], integer[], …); end with ? if optional'),
    )
    .optional()
    .describe('Fields and their types, e.g. { sku: string, qty: integer?, tags: string[] } (a list of one type is checked item by item)'),
  sideEffect: z.enum(['NONE', 'IDEMPOTENT', 'STATEFUL', 'CRITICAL']).optional(),
  parallelSafe: z.boolean().optional(),
  timeoutMs: timerMs.optional(),
  maxRetries: z.number().int().nonnegative().optional(),
  behaviour: z.array(behaviourSchema).optional().describe('One entry per execution attempt; the last repeats'),
  executor: z
    .enum(EXECUTOR_FAULTS)
    .optional()
    .describe(
      "A tool executor that breaks its contract for this tool's calls: drops-result runs the call, then returns no result; throws-after-start runs it, then throws; misuses-span answers it, but keeps the call's trace span and opens a child under it once the case is over (after its trace ended); leaves-span-open answers it, but opens a span of its own under the call's trace span and leaves it open past the turn (the trace records it undetermined), ending it twice once the case is over; skips-redaction answers it with the tool's output unredacted (every secret the tool returned in plain text, as an executor built without the redactor hands it over): the log's own redaction must keep it out (it needs a secret declared, by the scenario or the agent)",
    ),
});
export type ScenarioTool = z.infer<typeof toolSchema>;

// ---------------------------------------------------------------------------
// Policies, approver, visibility
// ---------------------------------------------------------------------------

const policySchema = z.strictObject({
  rules: z
    .array(
      z.strictObject({
        id: z.string().min(1).optional(),
        // An empty list matches no call (a deny that never denies): name one, or leave the key out (outside probe 62).
        tools: z.array(z.string()).min(1, 'an empty tools list matches no call: name a tool or a pattern, or leave tools out to match every tool').optional(),
        sideEffects: z
          .array(z.enum(['NONE', 'IDEMPOTENT', 'STATEFUL', 'CRITICAL']))
          .min(1, 'an empty sideEffects list matches no call: name a level, or leave sideEffects out to match every level')
          .optional(),
        decision: z.enum(['allow', 'deny', 'ask']),
        reason: z.string().optional(),
        when: z
          .literal('throws')
          .optional()
          .describe(
            "A predicate on the call's arguments that throws (as one reading a field the arguments lack): the rule then matches if it denies or asks, never if it allows",
          ),
      }),
    )
    .default([]),
  default: z.enum(['allow', 'deny', 'ask']).optional(),
  onAskWithoutApprover: z.enum(['allow', 'deny']).optional(),
  approvalTimeoutMs: timerMs.optional(),
});

const approverSchema = z.strictObject({
  answers: z
    .array(z.enum(['approve', 'deny', 'invalid', 'throw']))
    .min(1)
    .describe(
      'One per question; the last repeats. invalid: the approver answers "approved" (neither approve nor deny: a broken approval UI), throw: the approver throws; the loop must deny both',
    ),
  delayMs: ms.default(0).describe('Virtual time a human takes to answer'),
});

const layerSchema = z.strictObject({ name: z.string().min(1), allow: z.array(z.string()).optional(), deny: z.array(z.string()).optional() });

/** The host operator's tool settings: what the production host's YAML config says under `tools`. */
const operatorSchema = z.strictObject({
  allow: z.array(z.string()).optional().describe('tools.allow: only these tools (or patterns) stay visible'),
  deny: z.array(z.string()).optional().describe('tools.deny: hidden, whatever the agent allows'),
  ask: z.array(z.string()).optional().describe("tools.ask: a human's approval before they run"),
  traceMode: z
    .enum(['dev', 'production'])
    .optional()
    .describe('trace.mode: dev throws lifecycle misuse (a span started or ended after its trace ended) at the caller; production (the default) records it'),
});
export type OperatorSettings = z.infer<typeof operatorSchema>;

// ---------------------------------------------------------------------------
// The inbox script
// ---------------------------------------------------------------------------

export const TRIGGER_KEYS = ['request', 'time', 'toolStart', 'toolRecorded', 'event', 'delta', 'approval', 'checkpoint'] as const;

const triggerSchema = z
  .strictObject({
    request: positiveInt.optional().describe('When the n-th model request (1-based, whole scenario) is in flight'),
    time: ms.optional().describe('At this virtual time (ms from the start)'),
    toolStart: z.string().optional().describe('When this tool starts executing'),
    attempt: positiveInt
      .optional()
      .describe('With toolStart: when that attempt (1-based) of one of the tool’s calls starts — 2 is its first retry; without it, the tool’s first start'),
    toolRecorded: z
      .string()
      .optional()
      .describe(
        "When a live process's log appends the first start record (tool.started) of one of this tool's calls (posted just after the append, as for event). A STATEFUL or CRITICAL call's body waits for that record to be stored (its write-ahead), so a cancel here finds the call recorded and not yet run; a NONE or IDEMPOTENT call's body may already have started",
      ),
    event: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe(
        "When a live process's log appends the event with this seq (0-based; what a crashed process still appends in memory triggers nothing, so a crash here can land in the next process's recovery sweep)",
      ),
    delta: positiveInt.optional().describe('When the n-th streamed delta (1-based, whole scenario) arrives'),
    approval: positiveInt.optional().describe('When the n-th approval request (1-based, whole scenario) is put to the approver, before it answers'),
    checkpoint: positiveInt
      .optional()
      .describe("When the n-th run of a checkpoint hook (1-based, whole scenario; the scenario's hooks or the agent's own) starts, before it answers"),
    ifReached: z.literal(true).optional().describe('The case may end before this trigger happens; without it, a trigger that never fires fails the case'),
  })
  .superRefine((at, ctx) => {
    const n = TRIGGER_KEYS.filter((k) => at[k] !== undefined).length;
    if (n !== 1) ctx.addIssue({ code: 'custom', message: `at needs exactly one of ${TRIGGER_KEYS.join(', ')}` });
    else if (at.attempt !== undefined && at.toolStart === undefined)
      ctx.addIssue({ code: 'custom', path: ['attempt'], message: 'attempt goes with toolStart: the attempt of that tool’s call to wait for' });
  });
export type Trigger = z.infer<typeof triggerSchema>;

/**
 * A text a user sends: well-formed. Half a UTF-16 surrogate pair is refused by the loop's send and the host's door
 * alike (no character; a provider would refuse it); in a scenario it is named here, at load, not as a throw in the
 * run (outside probe 35, F2). What a tool returns may hold one: that is a fault the loop must repair.
 */
const userText = z.string().superRefine((text, ctx) => {
  if (text.isWellFormed()) return;
  const at = [...text].reduce((found, c, i) => (found < 0 && !c.isWellFormed() ? i : found), -1);
  ctx.addIssue({
    code: 'custom',
    message: `holds half a UTF-16 surrogate pair at character ${at}: no character, and the loop refuses to send it (write the whole character)`,
  });
});

export const INBOX_ACTIONS = ['say', 'steer', 'inject', 'cancel', 'crash', 'reopen', 'undoCompaction', 'shutdown', 'disconnect', 'loseLock'] as const;

export const inboxEntrySchema = z
  .strictObject({
    say: userText.optional().describe('A follow-up from the user'),
    steer: userText.optional(),
    inject: userText.optional(),
    cancel: z.enum(CANCEL_SOURCES).optional(),
    crash: z.literal(true).optional().describe('The process dies: the host and its loop stop, with nothing written beyond what the store holds'),
    reopen: z.literal(true).optional().describe("A new production host over the same store and the agent's same tools; it runs the recovery sweep"),
    undoCompaction: z
      .literal(true)
      .optional()
      .describe('An operator undoes the compaction last applied (the kernel’s undoCompaction): the next request sees the original turns again (host: loop)'),
    shutdown: z
      .literal(true)
      .optional()
      .describe(
        'The host shuts the loop down (the kernel’s AgentLoop.shutdown): a running turn is cancelled{shutdown}, no new turn starts, and what waits in the inbox stays there, stored (host: loop)',
      ),
    disconnect: positiveInt
      .optional()
      .describe(
        'The client of the n-th message posted (say, steer or inject; 1-based) goes away: its request is aborted, as an HTTP client that disconnects (host: production)',
      ),
    loseLock: z
      .literal(true)
      .optional()
      .describe(
        "The store lets go of the conversation lock the production host holds while the host lives on, as PostgreSQL does when the lock's connection drops (a failover, an idle_session_timeout, a DBA's pg_terminate_backend): another host may take it, and the host that held it must stop its turn and write nothing more of the conversation (host: production)",
      ),
    at: triggerSchema.optional().describe('When; without it the entry waits until the loop is idle'),
    via: positiveInt
      .optional()
      .describe('say, steer, inject or cancel: the production host (1-based, of the scenario’s `hosts`) the client sends it to; default 1'),
    times: timesSchema.describe('say only: this message, this many times, each a turn of its own (a long conversation); default 1'),
    gone: z
      .literal(true)
      .optional()
      .describe(
        "say, steer or inject: the client is gone before the host reads its post — its request's signal already aborted, as a server hands over a request whose client closed the connection while it waited in a queue: answered 499, nothing stored, no turn (host: production)",
      ),
    messageId: z
      .string()
      .regex(/^[A-Za-z0-9._:-]{1,200}$/, 'a message id is 1-200 letters, digits, ".", "_", ":" or "-"')
      .optional()
      .describe(
        "say, steer or inject: the client's id for the message (handle's messageId, an HTTP Idempotency-Key); a later entry with the same id, text and intent is the client retrying it — the host stores it once and answers the retry with what became of it; the same id with another text or intent is refused 422, nothing stored (host: production)",
      ),
  })
  .superRefine((entry, ctx) => {
    const n = INBOX_ACTIONS.filter((k) => entry[k] !== undefined).length;
    if (n !== 1) ctx.addIssue({ code: 'custom', message: `an inbox entry needs exactly one of ${INBOX_ACTIONS.join(', ')}` });
    if (entry.reopen && entry.at) ctx.addIssue({ code: 'custom', path: ['at'], message: 'reopen runs once the crashed host has stopped: it takes no at' });
    if (entry.undoCompaction && entry.at) ctx.addIssue({ code: 'custom', path: ['at'], message: 'undoCompaction runs between turns: it takes no at' });
    if (entry.times !== undefined && (entry.say === undefined || entry.at !== undefined))
      ctx.addIssue({ code: 'custom', path: ['times'], message: 'times repeats a say that waits for the loop to be idle (no at)' });
    if (entry.messageId !== undefined && (entry.say ?? entry.steer ?? entry.inject) === undefined)
      ctx.addIssue({ code: 'custom', path: ['messageId'], message: 'messageId goes with say, steer or inject (a message a client posts)' });
    if (entry.gone !== undefined && (entry.say ?? entry.steer ?? entry.inject) === undefined)
      ctx.addIssue({ code: 'custom', path: ['gone'], message: 'gone goes with say, steer or inject (a message a client posts)' });
    if (entry.gone !== undefined && entry.times !== undefined)
      ctx.addIssue({ code: 'custom', path: ['gone'], message: 'gone names one post: it cannot go with times' });
    if (entry.messageId !== undefined && entry.times !== undefined)
      ctx.addIssue({ code: 'custom', path: ['messageId'], message: 'messageId names one message: it cannot go with times' });
  });
export type InboxEntry = z.infer<typeof inboxEntrySchema>;

// ---------------------------------------------------------------------------
// Config, compaction, checkpoints, claim, store faults
// ---------------------------------------------------------------------------

const configSchema = z.strictObject({
  maxTokens: positiveInt.optional(),
  temperature: z.number().min(0).max(2).optional().describe('Sent with every model request, and recorded with it in the log'),
  maxSteps: positiveInt.optional(),
  maxToolCallsPerTurn: positiveInt.optional(),
  maxToolCallsPerSession: positiveInt.optional(),
  maxTokensPerTurn: positiveInt.optional(),
  maxTokensPerSession: positiveInt.optional(),
  modelTimeoutMs: timerMs.optional(),
  maxCompactionsPerStep: z.number().int().nonnegative().optional(),
  maxCheckpointExtensions: z.number().int().nonnegative().optional(),
  sideEffectNotice: z.boolean().optional(),
  retry: z
    .strictObject({
      immediateRetries: z.number().int().nonnegative().optional(),
      immediateDelayMs: timerDelayMs.optional(),
      backoffRetries: z.number().int().nonnegative().optional(),
      backoffBaseMs: timerDelayMs.optional(),
      backoffMaxMs: timerDelayMs.optional(),
      jitter: z.number().min(0).max(1).optional(),
      maxRetryAfterMs: timerDelayMs.optional(),
    })
    .optional(),
  toolMaxOutputChars: positiveInt.optional(),
  toolRetryBackoffMs: timerDelayMs
    .optional()
    .describe(
      "The operator's wait before a NONE or IDEMPOTENT tool's retry n: this times 2^(n-1) ms of virtual time (tools.retryBackoffMs in the host's YAML). Default 0: retries run at once",
    ),
});

const compactionDelay = ms.optional().describe('Virtual time the compactor takes (it stops early when the turn is cancelled)');
/** Ranges a misbehaving compactor proposes instead of the valid candidate. */
export const COMPACTION_RANGES = ['cuts-turn', 'splits-batch', 'overlaps', 'empty', 'outside'] as const;
export type CompactionRange = (typeof COMPACTION_RANGES)[number];

const compactionStepSchema = z.union([
  z.enum(['none', 'fail', 'grow']).describe('none: nothing to compact; fail: the compactor throws; grow: a summary bigger than what it replaces'),
  z.strictObject({
    summary: z.string().min(1),
    delayMs: compactionDelay,
    range: z
      .enum(COMPACTION_RANGES)
      .optional()
      .describe(
        'A misbehaving compactor: the range it proposes instead of whole closed turns. cuts-turn: ends inside the last closed turn; splits-batch: ends between the results of a parallel batch; overlaps: starts inside an earlier compaction; empty: starts after it ends; outside: ends beyond the log',
      ),
  }),
  z.strictObject({ fail: z.string().min(1).describe('The compactor throws this, after delayMs'), delayMs: compactionDelay }),
]);

const checkpointSchema = z.strictObject({
  name: z.string().min(1),
  extend: z.array(z.string().nullable()).min(1).describe('Per run: a message that extends the turn, or null; the last repeats'),
  delayMs: ms.default(0).describe('Virtual time the hook takes'),
});

const errorHandlerSchema = z.strictObject({
  name: z.string().min(1),
  throws: z
    .string()
    .min(1)
    .describe("The handler throws an Error with this message for every model error it is asked about (a bug in the agent's own handler)"),
});

const claimDelay = ms.default(0).describe('Virtual time the claim policy takes');
const claimDecisionSchema = z.union([
  z.strictObject({ deny: z.string().min(1).describe('Deny the claim with this reason'), delayMs: claimDelay }),
  z.strictObject({ drop: z.literal(true).describe('Filter every message to nothing'), delayMs: claimDelay }),
  z.strictObject({ allow: z.literal(true).describe('Let everything through'), delayMs: claimDelay }),
]);
export type ClaimDecisionSpec = z.infer<typeof claimDecisionSchema>;
const claimSchema = z.union([claimDecisionSchema, z.array(claimDecisionSchema).min(1).describe('One decision per turn, in order; the last repeats')]);

const fragmentSchema = z
  .strictObject({
    id: z
      .string()
      .min(1)
      .refine((id) => id !== 'identity', { message: 'identity is the agent’s system prompt: set it with system:' })
      .describe('Unique; an id the agent already uses replaces its fragment'),
    priority: z.number().describe('Smaller first: identity −100, deployment 0, tool guidance 100+'),
    text: z.string().optional().describe('A static fragment'),
    dynamic: z
      .array(z.union([z.string(), z.strictObject({ throw: z.string().min(1) })]))
      .min(1)
      .optional()
      .describe('A dynamic fragment: its text at each assembly, in order (the last repeats); { throw: message } makes that assembly of it throw'),
    exclusive: z.boolean().optional().describe('Drops every fragment after this one in priority order'),
  })
  .superRefine((f, ctx) => {
    if ((f.text === undefined) === (f.dynamic === undefined)) ctx.addIssue({ code: 'custom', message: 'a prompt fragment needs exactly one of text, dynamic' });
  });
export type ScenarioFragment = z.infer<typeof fragmentSchema>;

// ---------------------------------------------------------------------------
// Expectations
// ---------------------------------------------------------------------------

/** The log's event types (the kernel's catalogue), for `expect.events`. */
const EVENT_TYPES = Object.keys(EVENT_VERSIONS);

/** The closest type, or every type when none is close. */
function eventHint(type: string): string {
  const near = closestName(type, EVENT_TYPES);
  return near ? `; did you mean "${near}"?` : ` (known: ${EVENT_TYPES.join(', ')})`;
}

const OUTCOME_LABEL =
  /^(replied|rejected|nothing_to_do|conversation_full|interrupted|cancelled\{(user|parent|shutdown)\}|failed\{(max_steps|budget_exhausted|refusal|max_tokens|unknown_stop_reason|empty_reply|provider_unavailable|rate_limited|auth|invalid_request|persistence|internal)\})$/;
const outcomeLabel = z.string().regex(OUTCOME_LABEL, 'an outcome label such as replied, cancelled{user} or failed{max_steps}');

const linesMatcher = z.strictObject({
  exact: z.array(z.string()).optional().describe('Every line, in order'),
  contains: z.array(z.string()).optional().describe('Substrings each found in some line'),
  excludes: z.array(z.string()).optional().describe('Substrings found in no line'),
  count: z.number().int().nonnegative().optional(),
});

/** One tool result as an expectation names it: `status`, and `call`, `tool`, `code`, `message` when given. */
const toolResultExpectation = z.strictObject({
  call: z.string().optional(),
  tool: z.string().optional(),
  status: z.enum(['ok', 'failed', 'unknown']),
  code: z.string().optional(),
  message: z.string().min(1).optional().describe("Text the result's error message must contain (what a failed or unknown result tells the model)"),
  output: z.string().min(1).optional().describe('The structured output the log keeps (redacted), as compact JSON; "(none)" when the result keeps none'),
});

export const turnExpectationSchema = z.strictObject({
  outcome: outcomeLabel.optional().describe("This turn's outcome"),
  detail: z.string().min(1).optional().describe("Text this turn's outcome detail must contain (a failure's detail, a rejection's reason)"),
  reply: z
    .union([z.string(), z.strictObject({ contains: z.string() })])
    .optional()
    .describe("This turn's reply"),
  trace: linesMatcher.optional().describe("This turn's spans as `kind > kind:status` paths"),
  lastRequest: linesMatcher.optional().describe('The last request of this turn, one message per line'),
  system: linesMatcher.optional().describe('The system prompt the last request of this turn carried, one line per line of it'),
  requests: z.number().int().nonnegative().optional().describe('Model requests this turn made (as the log records them)'),
  toolResults: z.array(toolResultExpectation).optional().describe("This turn's tool results, in log order"),
});
export type TurnExpectation = z.infer<typeof turnExpectationSchema>;

export const expectationSchema = z.strictObject({
  outcome: outcomeLabel.optional().describe("The last turn's outcome"),
  outcomes: z.array(outcomeLabel).optional().describe('Every turn, in order'),
  reply: z.union([z.string(), z.strictObject({ contains: z.string() })]).optional(),
  assert: replyAssertionsSchema.optional(),
  history: linesMatcher.optional().describe('The final projected history, rendered one message per line'),
  lastRequest: linesMatcher.optional().describe('The last request the model received, one message per line'),
  system: linesMatcher.optional().describe('The system prompt the model received with the last request, one line per line of it'),
  toolCalls: z.array(z.string()).optional().describe('Names of the calls that started executing, in order'),
  executions: z.record(z.string(), z.number().int().nonnegative()).optional().describe('How many times each tool body actually ran'),
  toolResults: z.array(toolResultExpectation).optional().describe('Tool results in log order (all of them)'),
  policy: z
    .array(
      z.strictObject({
        tool: z.string(),
        decision: z.enum(['allow', 'deny']),
        by: z.string().optional(),
        rule: z
          .string()
          .optional()
          .describe("The rule that decided, as the log records it (a policy rule's id, `<layer>:deny <pattern>`, `<layer>:not in allow list`, …)"),
      }),
    )
    .optional(),
  trace: linesMatcher.optional().describe("The last turn's spans as `kind > kind:status` paths"),
  requests: z.number().int().nonnegative().optional().describe('Model requests made'),
  models: z.array(z.string()).optional().describe('The client and the model each request went to, in order, as "client: model"'),
  usage: z
    .strictObject({
      maxSteps: z.number().int().nonnegative().optional(),
      maxInputTokens: z.number().int().nonnegative().optional(),
      maxOutputTokens: z.number().int().nonnegative().optional(),
      maxToolCalls: z.number().int().nonnegative().optional(),
    })
    .optional(),
  inbox: z.strictObject({ pending: z.number().int().nonnegative().optional(), returned: z.number().int().nonnegative().optional() }).optional(),
  clock: ms.optional().describe('Virtual time at the end'),
  events: z
    .record(z.string(), z.number().int().nonnegative())
    .superRefine((counts, ctx) => {
      // A misspelled type would count nothing, and `0` would pass whatever the log holds.
      for (const type of Object.keys(counts))
        if (!isKnownType(type))
          ctx.addIssue({
            code: 'custom',
            path: [type],
            message: `"${type}" is not a log event type${eventHint(type)}`,
          });
    })
    .optional()
    .describe('Count of log events by type (the kernel’s catalogue: turn.opened, tool.started, tool.result, …)'),
  responses: z
    .array(
      z.strictObject({
        status: z
          .union([z.number().int(), z.literal('none')])
          .describe('The HTTP status the host answered; none: no answer (the process died with the request open)'),
        delivery: z.enum(['turn', 'joined', 'queued', 'none']).optional().describe('How the message reached the loop; none: it was not stored'),
        turn: z.number().int().nonnegative().optional().describe('The turn the answer reports (its last)'),
        error: z.string().min(1).optional().describe('Text the answer’s error must contain (what a client is told went wrong)'),
        inDoubt: z
          .array(z.string())
          .optional()
          .describe('The calls the answer names as in doubt (their result unknown: they may have taken effect), by call id, over its turns'),
        done: z
          .array(z.string())
          .optional()
          .describe('The calls the answer names as done (STATEFUL or CRITICAL calls that ran and returned ok: they took effect), by call id, over its turns'),
        retryAfterSeconds: z
          .union([z.number().int().nonnegative(), z.literal('none')])
          .optional()
          .describe(
            'The whole seconds the answer tells a client to wait (what a deploy sends as Retry-After), counted from when it was given; none: it names no wait',
          ),
      }),
    )
    .optional()
    .describe('Through the production host: the answer to each message, in the order they were sent'),
  turns: z
    .record(z.string(), turnExpectationSchema)
    .superRefine((turns, ctx) => {
      for (const key of Object.keys(turns))
        if (!/^\d+$/.test(key))
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: `"${key}" is not a turn number: use the turn's number as the log counts them (0 is the first turn)`,
          });
    })
    .optional()
    .describe('Per turn, by its number in the log (0 is the first): outcome, reply, trace, last request, requests, tool results'),
});
export type Expectation = z.infer<typeof expectationSchema>;

// ---------------------------------------------------------------------------
// A scenario
// ---------------------------------------------------------------------------

/**
 * A second conversation on the same host (same store; through the production host, the same host
 * object and processes), with its own inbox and model script, played at the same time as the
 * case's own conversation. It is judged like the case's conversation (its expectations, the
 * invariants that apply), and the two must stay apart: what one does — a cancel, a message id, its
 * agent's state — never reaches the other.
 */
export const bystanderSchema = z
  .strictObject({
    provider: z
      .array(providerStepSchema)
      .default([])
      .transform(expanded)
      .describe("The bystander's own model script (the provider answers each conversation from its own)"),
    inbox: z
      .array(inboxEntrySchema)
      .min(1)
      .transform(expanded)
      .describe(
        'What its clients send: say, steer, inject, cancel, disconnect (with messageId, at) as in the inbox; triggers count its own requests, events, deltas',
      ),
    expect: expectationSchema.default({}).describe("What becomes of it, as the case's expect"),
  })
  .superRefine((b, ctx) => {
    b.inbox.forEach((entry, expandedAt) => {
      const index = sourceIndex(entry, expandedAt);
      for (const key of ['crash', 'reopen', 'undoCompaction', 'shutdown', 'loseLock', 'via'] as const)
        if (entry[key] !== undefined)
          ctx.addIssue({
            code: 'custom',
            path: ['inbox', index, key],
            message: `${key} is the case's own conversation's (the bystander shares its host and store)`,
          });
    });
    // The bystander's model is scripted: how a wire words an answer is nothing it can say (review of stop 64).
    b.provider.forEach((step, expandedAt) => {
      const wireOnly = step.interleaved ? ['interleaved'] : wireOnlyKey(step);
      if (wireOnly)
        ctx.addIssue({
          code: 'custom',
          path: ['provider', sourceIndex(step, expandedAt), ...wireOnly],
          message: `${wireOnly.at(-1)} says how a provider words its answer on the wire: the bystander's model is scripted, and answers the loop's result itself`,
        });
    });
  });
export type Bystander = z.infer<typeof bystanderSchema>;

export const HOST_MODES = ['loop', 'production'] as const;
export type HostMode = (typeof HOST_MODES)[number];

export const scenarioSchema = z
  .strictObject({
    $schema: z.string().optional(),
    name: z
      .string()
      .min(1)
      .refine((name) => !/[\r\n\u2028\u2029]/.test(name), 'one line saying what the scenario proves: it holds a line break'),
    description: z.string().optional(),
    tags: z.array(z.string()).default([]),
    /** Live scenarios run against a real provider with `--live`; otherwise they are skipped. */
    live: z.strictObject({ passRate: z.number().min(0).max(1).default(1) }).optional(),
    agent: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, 'an agent name: letters, digits, _ or -')
      .optional()
      .describe(
        "The agent under test, by its name in loopgate.config.ts (the bundled suite's: support); none: only the scenario's own tools; default: the config's default agent",
      ),
    host: z
      .enum(HOST_MODES)
      .optional()
      .describe(
        'loop: the loop driven directly; production: through a real AgentHost (lock, recovery, flush, envelope); default: the run decides (both in loopgate run). A scenario with crash or reopen runs through the production host',
      ),
    hosts: z
      .number()
      .int()
      .min(2)
      .max(4)
      .optional()
      .describe(
        'Production hosts serving the conversation over the one store at once (as on a shared PostgreSQL), each keeping idle sessions for reuse; an inbox entry names its host with via. Needs host: production; no crash or reopen',
      ),
    system: z.string().optional().describe("Replaces the agent's system prompt"),
    prompt: z
      .array(fragmentSchema)
      .optional()
      .describe("Prompt fragments added to the agent's (assembled per request by priority); an id the agent uses replaces its fragment"),
    config: configSchema.default({}),
    tools: z.array(toolSchema).default([]),
    policy: policySchema.optional(),
    approver: approverSchema.optional(),
    visibility: z.array(layerSchema).optional(),
    operator: operatorSchema
      .optional()
      .describe(
        "The host operator's tool settings (the production host's config tools.allow, tools.deny, tools.ask): through the production host they are its config; driven directly, the same layer and rule the host would add, before the agent's",
      ),
    provider: providerSchema.default({ kind: 'scripted', script: [] }),
    inbox: z.array(inboxEntrySchema).min(1).transform(expanded),
    compaction: z.array(compactionStepSchema).optional().describe('The compactor, one entry per compaction; absent: no compactor'),
    checkpoints: z.array(checkpointSchema).optional(),
    errorHandlers: z
      .array(errorHandlerSchema)
      .min(1)
      .optional()
      .describe("The agent's own model-error handlers, asked in order before the loop's built-in ones"),
    claim: claimSchema.optional(),
    store: z
      .strictObject({
        failAppends: z.array(positiveInt).default([]).describe('Which appends (1-based) fail'),
        slowAppends: z
          .array(z.strictObject({ append: positiveInt, ms: ms.describe('Virtual time the write takes before it lands (or fails)') }))
          .min(1)
          .optional()
          .describe('Slow writes: the append (1-based, whole case) is in flight this long, so a cancel or a message can arrive while the loop waits for it'),
        failWriteAheads: z
          .array(positiveInt)
          .optional()
          .describe(
            'Which write-aheads (1-based, whole scenario) the store refuses: the append holding the n-th start record of a STATEFUL or CRITICAL call fails',
          ),
        failReceipts: z
          .array(positiveInt)
          .optional()
          .describe(
            "Which receipts (1-based, whole scenario) the store refuses: the append holding the n-th client message's inbox.received record fails (a steer's write a running turn may take first)",
          ),
        tornAppends: z
          .array(
            z.strictObject({ append: positiveInt, keep: z.number().int().nonnegative().describe('Records of the batch that land before the write fails') }),
          )
          .optional()
          .describe('Torn writes: the first keep records of the append land, then it fails'),
        loseOnCrash: z
          .array(z.number().int().nonnegative())
          .min(1)
          .optional()
          .describe('Records (by seq) the store loses when the process crashes: read back after a reopen, the conversation has a gap'),
        corruptOnCrash: z
          .array(
            z.union([
              z.number().int().nonnegative(),
              z.strictObject({
                seq: z.number().int().nonnegative(),
                field: z
                  .string()
                  .regex(/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/, 'a dotted path of field names, e.g. result.usage.inputTokens')
                  .describe('A number inside the payload (a dotted path) that comes back as text: the rest of the record is intact'),
              }),
            ]),
          )
          .min(1)
          .optional()
          .describe(
            'Records the store garbles when the process crashes: a seq comes back with a payload of the wrong shape; { seq, field } with one number deep inside it turned to text',
          ),
        corruptSnapshotOnCrash: z
          .union([
            z.literal(true),
            z.strictObject({
              field: z
                .string()
                .regex(/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/, 'a dotted path of field names and array indexes, e.g. projection.replacements.0.summary')
                .describe('The value at this path of the snapshot comes back of another type (a string its length, a number its text), and the digest matches'),
            }),
          ])
          .optional()
          .describe(
            "The crash garbles the conversation's stored snapshot (production host): true: one character of its body changes, its JSON stays valid, and the host must see it no longer matches its digest; { field }: one value deep inside it comes back of another type with a digest that matches (a snapshot written by other code), and the host must find the part malformed. Either way it reads the conversation whole",
          ),
      })
      .optional(),
    secrets: z.array(z.string().min(4)).optional().describe('Values that must never reach the log or the trace'),
    secretsOnReopen: z
      .array(z.string().min(4))
      .optional()
      .describe(
        "Values the agent's secrets gain when the host reopens after a crash (the secrets grow between processes; host: production): stored before as plain text, they must never be shown to a follower of the new process",
      ),
    expect: expectationSchema,
    follow: z
      .literal('live')
      .optional()
      .describe(
        "live: through the production host, a UI follows the conversation's event stream while the case runs (reconnecting with Last-Event-ID after a crash); every event it is shown must be stored already, none twice or out of order, and by the end it has them all. The loop host has no event stream",
      ),
    listener: z
      .strictObject({
        throwsOn: z
          .array(z.string())
          .min(1)
          .superRefine((types, ctx) => {
            types.forEach((type, i) => {
              if (!isKnownType(type)) ctx.addIssue({ code: 'custom', path: [i], message: `"${type}" is not a log event type${eventHint(type)}` });
            });
          })
          .describe('The event types at which it throws (the kernel’s catalogue: tool.result, model.request, …)'),
      })
      .optional()
      .describe(
        "A team's listener on the conversation's log (the production host hands its observer each log it opens; a team's own loop is its log) that throws at every event of the types named. The append must stand, the other listeners still run, and each failure is recorded right after as a log.listener_failed naming the event and the error (never for a log.listener_failed itself). No crash, no hosts: its throws are judged on the one log",
      ),
    bystander: bystanderSchema
      .optional()
      .describe(
        "A second conversation on the same host and store, with its own inbox, model script and expectations, run at the same time; the two must stay apart (no cancel, message id or agent state of one reaches the other). A crash in the case's inbox kills the one host process both live in, and the new host's recovery sweep must recover both (no hosts: n)",
      ),
  })
  .superRefine((scenario, ctx) => {
    // One behaviour per tool name: a second entry would silently replace the first.
    const firstTool = new Map<string, number>();
    scenario.tools.forEach((tool, index) => {
      const first = firstTool.get(tool.name);
      if (first === undefined) firstTool.set(tool.name, index);
      else
        ctx.addIssue({
          code: 'custom',
          path: ['tools', index, 'name'],
          message: `the tool ${JSON.stringify(tool.name)} is declared twice`,
          params: { firstAt: ['tools', first] },
        });
    });
    // A crash is a production-host event, and what it leaves must be reopened to be checked.
    let crashed: number | undefined;
    scenario.inbox.forEach((entry, expandedAt) => {
      const index = sourceIndex(entry, expandedAt);
      if (entry.crash) {
        if (scenario.host === 'loop')
          ctx.addIssue({ code: 'custom', path: ['inbox', index, 'crash'], message: 'a crash needs the production host (host: loop cannot crash)' });
        if (crashed !== undefined)
          ctx.addIssue({ code: 'custom', path: ['inbox', index, 'crash'], message: `inbox[${crashed}] crashed already: reopen before the next crash` });
        crashed = index;
      }
      if (entry.reopen) {
        if (crashed === undefined)
          ctx.addIssue({ code: 'custom', path: ['inbox', index, 'reopen'], message: 'reopen follows a crash (there is no crashed host to replace)' });
        crashed = undefined;
      }
    });
    if (crashed !== undefined)
      ctx.addIssue({ code: 'custom', path: ['inbox', crashed, 'crash'], message: 'a crash needs a reopen after it, or nothing checks what the crash left' });
    // A scenario that crashes runs through the production host alone, whether or not it says host: production.
    const production = scenario.host === 'production' || (scenario.host === undefined && scenario.inbox.some((e) => e.crash));
    if (scenario.secretsOnReopen !== undefined && (!production || !scenario.inbox.some((e) => e.reopen)))
      ctx.addIssue({
        code: 'custom',
        path: ['secretsOnReopen'],
        message: 'secretsOnReopen needs host: production and a reopen (the secrets a new host process starts with)',
      });
    scenario.inbox.forEach((entry, expandedAt) => {
      const index = sourceIndex(entry, expandedAt);
      if (entry.messageId !== undefined && !production)
        ctx.addIssue({
          code: 'custom',
          path: ['inbox', index, 'messageId'],
          message: 'messageId needs host: production (the production host takes a client message id; the loop has none)',
        });
      if (entry.gone !== undefined && !production)
        ctx.addIssue({
          code: 'custom',
          path: ['inbox', index, 'gone'],
          message: 'gone needs host: production (only the production host answers requests a client can abort)',
        });
      if (entry.disconnect !== undefined && !production)
        ctx.addIssue({
          code: 'custom',
          path: ['inbox', index, 'disconnect'],
          message: 'disconnect needs host: production (only the production host answers requests a client can abort)',
        });
      if (entry.disconnect !== undefined) {
        const posted = scenario.inbox.slice(0, expandedAt).filter((e) => e.say !== undefined || e.steer !== undefined || e.inject !== undefined).length;
        if (entry.disconnect > posted)
          ctx.addIssue({
            code: 'custom',
            path: ['inbox', index, 'disconnect'],
            message: `disconnect ${entry.disconnect}: only ${posted} message(s) are posted before this entry`,
          });
      }
      if (entry.via !== undefined && (entry.say ?? entry.steer ?? entry.inject ?? entry.cancel) === undefined)
        ctx.addIssue({ code: 'custom', path: ['inbox', index, 'via'], message: 'via goes with say, steer, inject or cancel (what a client sends to a host)' });
      if (entry.via !== undefined && entry.via > (scenario.hosts ?? 1))
        ctx.addIssue({
          code: 'custom',
          path: ['inbox', index, 'via'],
          message: `via ${entry.via}: the scenario runs ${scenario.hosts ?? 1} host(s) (set hosts)`,
        });
      if (entry.loseLock && !production)
        ctx.addIssue({
          code: 'custom',
          path: ['inbox', index, 'loseLock'],
          message: 'loseLock needs host: production (only the production host takes a conversation lock from the store)',
        });
      if (entry.shutdown && scenario.host !== 'loop')
        ctx.addIssue({
          code: 'custom',
          path: ['inbox', index, 'shutdown'],
          message: 'shutdown needs host: loop (the production host shuts its loops down only as it closes)',
        });
      if (entry.undoCompaction && (scenario.host !== 'loop' || !scenario.compaction))
        ctx.addIssue({
          code: 'custom',
          path: ['inbox', index, 'undoCompaction'],
          message: 'undoCompaction needs host: loop (the production host offers no undo) and a compaction to undo',
        });
    });
    if (scenario.store?.loseOnCrash && !scenario.inbox.some((e) => e.crash))
      ctx.addIssue({ code: 'custom', path: ['store', 'loseOnCrash'], message: 'records are lost in a crash: add a crash (and a reopen) to the inbox' });
    if (scenario.store?.corruptOnCrash && !scenario.inbox.some((e) => e.crash))
      ctx.addIssue({ code: 'custom', path: ['store', 'corruptOnCrash'], message: 'records are garbled in a crash: add a crash (and a reopen) to the inbox' });
    if (scenario.store?.corruptSnapshotOnCrash && !scenario.inbox.some((e) => e.crash))
      ctx.addIssue({
        code: 'custom',
        path: ['store', 'corruptSnapshotOnCrash'],
        message: 'the snapshot is garbled in a crash: add a crash (and a reopen) to the inbox',
      });
    if (scenario.listener && (crashes(scenario) || scenario.hosts !== undefined))
      ctx.addIssue({
        code: 'custom',
        path: ['listener'],
        message: 'a listener is judged on the one log it listens to: no crash, reopen or hosts',
      });
    const ids = new Set<string>();
    scenario.prompt?.forEach((f, i) => {
      if (ids.has(f.id)) ctx.addIssue({ code: 'custom', path: ['prompt', i, 'id'], message: `prompt fragment "${f.id}" is declared twice` });
      ids.add(f.id);
    });
    if (scenario.hosts !== undefined && (scenario.host !== 'production' || crashes(scenario)))
      ctx.addIssue({
        code: 'custom',
        path: ['hosts'],
        message: 'hosts needs host: production and no crash or reopen (each host is a live process over the one store)',
      });
    if (scenario.expect.responses !== undefined && scenario.host !== 'production' && !crashes(scenario))
      ctx.addIssue({ code: 'custom', path: ['expect', 'responses'], message: 'responses are the production host’s answers: add host: production' });
    const b = scenario.bystander;
    if (b) {
      const where = (...path: (string | number)[]) => ['bystander', ...path];
      // A crash kills the one process both conversations live in, and the new one's recovery sweep closes both. With
      // `hosts: n` the conversations would be served by several live processes over the one store, and the harness
      // has no way yet to say which process a bystander's client talks to (its entries take no `via`).
      if (scenario.hosts !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: where(),
          message: 'a bystander shares one host process with the case: no hosts (its clients name no via); a crash and reopen are fine',
        });
      if (scenario.store !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: where(),
          message: 'a bystander shares the store: its write faults count every append, so give it none (no store:)',
        });
      if (scenario.provider.kind !== 'scripted')
        ctx.addIssue({ code: 'custom', path: where(), message: 'a bystander needs a scripted provider (kind: scripted)' });
      if (scenario.tools.some((t) => t.executor !== undefined))
        ctx.addIssue({ code: 'custom', path: where(), message: 'a bystander runs no faulty tool executor (tools[].executor)' });
      b.inbox.forEach((entry, expandedAt) => {
        const index = sourceIndex(entry, expandedAt);
        if ((entry.messageId !== undefined || entry.disconnect !== undefined) && scenario.host !== 'production' && !crashes(scenario))
          ctx.addIssue({ code: 'custom', path: where('inbox', index), message: 'messageId and disconnect need host: production' });
      });
      if (b.expect.responses !== undefined && scenario.host !== 'production' && !crashes(scenario))
        ctx.addIssue({ code: 'custom', path: where('expect', 'responses'), message: 'responses are the production host’s answers: add host: production' });
    }
  });

export type Scenario = z.infer<typeof scenarioSchema>;

/** Does the scenario crash and reopen (so it runs through the production host whatever the suite's mode)? */
export function crashes(scenario: Scenario): boolean {
  return scenario.inbox.some((entry) => entry.crash || entry.reopen);
}
