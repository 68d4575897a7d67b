/**
 * Over the wire (`provider.kind: wire`), the adapter answers what the bytes said:
 * for every step of the script the wire fake served, the adapter's normalized
 * result is the one that step stands for — a reply with its text, the tool calls
 * with their ids, names and arguments (also when their argument chunks arrived
 * interleaved; arguments that are not JSON as the kernel's lenient reading of
 * them, or as the text itself when no repair reads it), max_tokens with or without a cut call, a refusal, an overflow at
 * the request or during generation, the unknown stop reason by name, and each
 * HTTP error as its kind with the retry-after the header carried (an HTTP date:
 * the time left until it, whole seconds); and a reply's
 * or tool call's token usage as the step's `usage` gave it (cache reads and
 * writes included).
 *
 * `outcome-follows-table` judges the loop by what the adapter returned, so an
 * adapter that turns a refusal into a reply, reads retry-after seconds as
 * milliseconds or glues one call's argument chunk onto another is consistent
 * there; it is not here. Results the loop caused (a cancel aborting the call, its
 * own timeout) are not judged.
 *
 * One rewrite is expected: the OpenAI adapters unwrap a call to an undeclared
 * `multi_tool_use.parallel` (or `parallel`) wrapper into the calls its
 * `tool_uses` list (ids `<wrapper id>_<n>`, the `functions.` prefix dropped); a
 * wrapper that cannot be read so comes back as it was sent. `expectedCalls`
 * says that here, on its own.
 */
import { sendsRetryAfterMs } from '../../../providers/names.ts';
import { lenientParse, redactEncodedForms, type ModelResult } from '../../kernel/index.ts';
import type { ProviderStep } from '../scenario/schema.ts';
import type { ScenarioRun } from '../second-host.ts';
import { keyTemplate, quotedReply } from '../wire-provider.ts';
import { withCredential } from '../../../providers/contract-suite/wire-plan.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';

export const adapterFollowsTheWire = defineInvariant({
  id: 'adapter-follows-the-wire',
  title: "over the wire, the adapter's result for each step is the one the bytes it parsed stand for",
  appliesTo: loopgateOnly("a peer's loop parses the wire with its own provider package"),
  check: (run) => adapterFollowsWire(run),
});

function adapterFollowsWire(run: ScenarioRun): string | undefined {
  const wire = run.wire;
  if (!wire) return undefined; // no wire-level provider in this case: nothing to compare
  const script = run.scenario.provider.script;
  for (let i = 0; i < wire.results.length; i++) {
    const result = wire.results[i];
    const step = script[i];
    if (!result || !step) continue;
    if (result.type === 'transport_error' && (result.kind === 'aborted' || result.kind === 'timeout')) continue; // the loop gave up waiting
    const problem = mismatch(wire.provider, step, result, new Set(run.sideEffectLevels.keys()), wire.apiKey) ?? usageMismatch(step, result);
    if (problem) return `${wire.provider} step ${i + 1} (${describe(step)}): ${problem}`;
  }
  return undefined;
}

/**
 * The token counts a step's `usage` put on the wire, as the adapter reports them:
 * input (every input token, cached ones included), output, and the cache reads
 * and writes the step gives (reasoning tokens are not on the fakes' wire).
 */
function usageMismatch(step: ProviderStep, result: ModelResult): string | undefined {
  const sent = step.usage;
  if (!sent || (result.type !== 'reply' && result.type !== 'tool_use')) return undefined;
  const usage = result.usage;
  if (!usage) return `the wire sent usage ${JSON.stringify(sent)}, the adapter reported none`;
  const pairs: [string, number | undefined, number | undefined][] = [
    ['inputTokens', usage.inputTokens, sent.input],
    ['outputTokens', usage.outputTokens, sent.output],
    ['cacheReadTokens', usage.cacheReadTokens, sent.cacheRead],
    ['cacheWriteTokens', usage.cacheWriteTokens, sent.cacheWrite],
  ];
  for (const [field, reported, wire] of pairs) {
    // A count past 2^53 − 1 reads as 2^53 − 1: never left out as unsent, never 0 (a budget fails closed).
    const expected = wire === undefined ? undefined : Math.min(wire, Number.MAX_SAFE_INTEGER);
    if (expected !== undefined && (reported ?? 0) !== expected)
      return `usage.${field} is ${String(reported)}, the wire said ${wire}${expected !== wire ? ` (read as ${expected})` : ''} (usage ${JSON.stringify(sent)})`;
  }
  return undefined;
}

function describe(step: ProviderStep): string {
  if (step.reply !== undefined) return 'reply';
  if (step.tool_use) return `tool_use of ${step.tool_use.length}${step.interleaved ? ', interleaved' : ''}`;
  if (step.max_tokens) return `max_tokens${step.max_tokens.partial ? ' inside a call' : ''}`;
  if (step.refusal !== undefined) return 'refusal';
  if (step.overflow) return `overflow at ${step.overflow}`;
  if (step.unknown !== undefined) return `stop reason ${step.unknown}`;
  return `error ${step.error!.kind}${step.error!.status !== undefined ? ` ${step.error!.status}` : ''}`;
}

function got(result: ModelResult): string {
  return result.type === 'transport_error' ? `transport_error{${result.kind}}: ${result.message}` : result.type;
}

type SentCall = NonNullable<ProviderStep['tool_use']>[number];

/** The calls an adapter should return for the calls the wire sent (see the header on parallel wrappers). */
function expectedCalls(provider: string, sent: readonly SentCall[], declared: ReadonlySet<string>): SentCall[] {
  if (provider !== 'openai-chat' && provider !== 'openai-responses') return [...sent];
  return sent.flatMap((call): SentCall[] => {
    if ((call.name !== 'multi_tool_use.parallel' && call.name !== 'parallel') || declared.has(call.name)) return [call];
    const uses = typeof call.args === 'object' && call.args !== null ? (call.args as { tool_uses?: unknown }).tool_uses : undefined;
    if (!Array.isArray(uses) || uses.length === 0) return [call];
    const out: SentCall[] = [];
    for (let n = 0; n < uses.length; n++) {
      const use = uses[n] as { recipient_name?: unknown; parameters?: unknown } | null;
      if (typeof use !== 'object' || use === null || typeof use.recipient_name !== 'string' || use.recipient_name === '') return [call];
      const name = use.recipient_name.replace(/^functions\./, '');
      out.push({ ...(call.id !== undefined ? { id: `${call.id}_${n}` } : {}), name, args: (use.parameters ?? {}) as SentCall['args'] });
    }
    return out;
  });
}

function mismatch(provider: string, step: ProviderStep, result: ModelResult, declared: ReadonlySet<string>, apiKey: string): string | undefined {
  if (step.reply !== undefined) {
    if (result.type !== 'reply') return `expected a reply, the adapter returned ${got(result)}`;
    // Every text block, in order; a key the reply quoted, in the form it came, redacted as the adapter must redact it.
    const said =
      (step.text ?? '') +
      (step.quotesKey ? redactEncodedForms(withCredential(quotedReply(step.reply, keyTemplate(step.quotesKey)), apiKey), [apiKey]) : step.reply);
    return result.text === said
      ? undefined
      : `the reply reads ${JSON.stringify(result.text)}, the wire said ${JSON.stringify(said)}${step.quotesKey ? ' (the key it quoted redacted)' : ''}`;
  }
  if (step.tool_use) {
    if (result.type !== 'tool_use') return `expected tool_use, the adapter returned ${got(result)}`;
    if (result.text !== (step.text ?? ''))
      return `the text before the calls reads ${JSON.stringify(result.text)}, the wire said ${JSON.stringify(step.text ?? '')}`;
    const calls = expectedCalls(provider, step.tool_use, declared);
    if (result.calls.length !== calls.length)
      return `${result.calls.length} call(s) returned, the wire sent ${step.tool_use.length}${calls.length !== step.tool_use.length ? ` (${calls.length} once unwrapped)` : ''}`;
    for (let k = 0; k < calls.length; k++) {
      const sent = calls[k]!;
      const call = result.calls[k]!;
      if (sent.id !== undefined && call.id !== sent.id) return `call ${k} has id ${call.id}, the wire sent ${sent.id}`;
      if (call.name !== sent.name) return `call ${k} (${call.id}) is ${call.name}, the wire sent ${sent.name}`;
      const text = typeof sent.args === 'string' ? sent.args : JSON.stringify(sent.args ?? {});
      const parsed = strictJson(text);
      // The same text parsed keeps its keys' order; JSON.stringify also copes with the 3,000-level nesting a model may send.
      if (parsed.ok && JSON.stringify(call.args) !== JSON.stringify(parsed.value))
        return `call ${k} (${call.id}) has arguments ${clip(JSON.stringify(call.args))}, the wire sent ${clip(text)}`;
      if (!parsed.ok) {
        // Text that is not JSON: the kernel's lenient reading of it, or — when none exists — the text as it came, for the
        // loop to refuse naming the problem (an adapter that put {} there hid what the model wrote: outside probe 66, #21).
        const lenient = lenientParse(text);
        const want = lenient.ok ? lenient.value : text;
        if (JSON.stringify(call.args) !== JSON.stringify(want))
          return `call ${k} (${call.id}) has arguments ${clip(JSON.stringify(call.args))}, but the wire sent text that is not JSON, ${clip(text)}: ${lenient.ok ? `its lenient reading is ${clip(JSON.stringify(want))}` : 'no repair reads it, so the call keeps it as sent'}`;
      }
    }
    return undefined;
  }
  if (step.max_tokens) {
    if (result.type !== 'max_tokens') return `expected max_tokens, the adapter returned ${got(result)}`;
    if (result.partialToolCall !== step.max_tokens.partial)
      return `partialToolCall is ${result.partialToolCall}, but the wire ${step.max_tokens.partial ? 'cut' : 'did not cut'} a call`;
    return result.text === step.max_tokens.text
      ? undefined
      : `the text reads ${JSON.stringify(result.text)}, the wire said ${JSON.stringify(step.max_tokens.text)}`;
  }
  if (step.refusal !== undefined) return result.type === 'refusal' ? undefined : `expected a refusal, the adapter returned ${got(result)}`;
  if (step.overflow) {
    if (result.type !== 'context_window_exceeded') return `expected context_window_exceeded, the adapter returned ${got(result)}`;
    return result.at === step.overflow ? undefined : `the overflow is at ${result.at}, the wire said ${step.overflow}`;
  }
  if (step.unknown !== undefined) {
    // Anthropic has a stop reason of its own for a context window filled during generation.
    if (provider === 'anthropic' && step.unknown === 'model_context_window_exceeded')
      return result.type === 'context_window_exceeded' && result.at === 'generation'
        ? undefined
        : `Anthropic's model_context_window_exceeded is an overflow during generation, the adapter returned ${got(result)}`;
    if (result.type !== 'unknown') return `expected the unknown stop reason ${step.unknown}, the adapter returned ${got(result)}`;
    return result.stopReason === step.unknown ? undefined : `the stop reason reads ${result.stopReason}, the wire said ${step.unknown}`;
  }
  const error = step.error!;
  if (result.type !== 'transport_error') return `expected transport_error{${error.kind}}, the adapter returned ${got(result)}`;
  const kinds = expectedKinds(error);
  if (!kinds.includes(result.kind)) return `expected transport_error{${kinds.join(' or ')}}, the adapter returned ${got(result)}`;
  if (HTTP_ERRORS.has(error.kind) && !error.midStream) {
    // The wait is the provider's on any status worth retrying (a 429, a 503, Anthropic's 529, a 500), none on one that is not.
    // OpenAI's retry-after-ms carries the milliseconds and wins; otherwise retry-after carries whole seconds (rounded up).
    const retryable = result.kind !== 'invalid_request' && result.kind !== 'auth';
    const asDate = error.retryAfterAs === 'date';
    const header =
      error.retryAfterMs === undefined || !retryable
        ? undefined
        : sendsRetryAfterMs(provider) && !asDate
          ? error.retryAfterMs
          : Math.ceil(error.retryAfterMs / 1000) * 1000;
    // An HTTP date has whole seconds: the time left until it is the header's, less up to the second the request came in.
    if (asDate && header !== undefined) {
      const left = result.retryAfterMs;
      if (left === undefined || left > header || left <= header - 1000)
        return `retry-after is ${String(left)} ms, the header said an HTTP date ${header / 1000} s after the request came in (${Math.max(0, header - 999)}–${header} ms left)`;
      return undefined;
    }
    if (result.retryAfterMs !== header)
      return `retry-after is ${String(result.retryAfterMs)} ms, the header${sendsRetryAfterMs(provider) ? 's' : ''} said ${header === undefined ? 'nothing' : sendsRetryAfterMs(provider) ? `${header} ms (retry-after-ms)` : `${header / 1000} s`}`;
  }
  return undefined;
}

/**
 * The scripted errors the wire fake sends as an HTTP error status (with the step's retry-after headers). An auth
 * error carries no wait whatever its headers say (an account out of credit, `quota`, may come as a 429 with one).
 */
const HTTP_ERRORS: ReadonlySet<string> = new Set(['rate_limited', 'overloaded', 'server_error', 'auth']);

/** The kinds an HTTP answer of this scripted error is classified as (a 503 says "overloaded" whatever the script called it). */
function expectedKinds(error: NonNullable<ProviderStep['error']>): string[] {
  if (error.kind === 'server_error' && (error.status === 503 || error.status === 529)) return ['overloaded'];
  if (error.kind === 'overloaded' && error.status !== undefined && error.status !== 503 && error.status !== 529)
    return [error.status >= 500 ? 'server_error' : 'invalid_request'];
  return [error.kind];
}

function strictJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function clip(text: string): string {
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}
