/**
 * The scenario's provider script (`provider.script`, `provider.fallback`) as an
 * in-process model client: each step a normalized result, or a fault, on the
 * case's virtual clock.
 */
import { ScriptedModelClient, type ScriptedEntry } from '../../../providers/fake/scripted.ts';
import { call as toolCall, maxTokens, overflow, refusal, reply, toolUse, transportError, unknownStop } from '../../../providers/fake/results.ts';
import type { Clock, ModelClient, ModelDelta, ModelResult, Usage } from '../../kernel/index.ts';
import { pieces } from '../../../providers/wire-fakes/turn.ts';
import type { ProviderStep } from '../scenario/schema.ts';
import type { FaultLog } from './fault-log.ts';

/** Call ids the script leaves out are numbered across the whole case (call_1, call_2, …). */
export interface CallIdCounter {
  next: number;
}

export function scriptedProvider(
  steps: readonly ProviderStep[],
  name: string,
  clock: Clock,
  faults: FaultLog,
  callIds: CallIdCounter,
  model?: string,
): ModelClient {
  const client = new ScriptedModelClient(
    steps.map((step) => (): ScriptedEntry => {
      const entry = toEntry(step, callIds);
      const type = entry.result.type;
      if (
        step.reject !== undefined ||
        type === 'transport_error' ||
        type === 'context_window_exceeded' ||
        type === 'refusal' ||
        type === 'unknown' ||
        type === 'max_tokens'
      ) {
        faults.record(`provider: ${describeStep(step)}`);
      }
      return entry;
    }),
    {
      name,
      ...(model !== undefined ? { model } : {}),
      clock,
      onExhausted: (_request, index) =>
        transportError('invalid_request', { message: `scenario provider script exhausted at request ${index + 1}: add a step` }),
    },
  );
  return steps.some((step) => step.reject !== undefined) ? rejecting(client, steps) : client;
}

/**
 * A client the script breaks (`reject`): at such a step the call runs as scripted
 * — its latency, its abort — and then rejects instead of settling with a result,
 * as a team's own client with a bug would.
 */
function rejecting(inner: ScriptedModelClient, steps: readonly ProviderStep[]): ModelClient {
  return {
    name: inner.name,
    ...(inner.model !== undefined ? { model: inner.model } : {}),
    call: (request, onDelta) => {
      const message = steps[inner.calls]?.reject;
      const answer = inner.call(request, onDelta);
      if (message === undefined) return answer;
      return answer.then(() => Promise.reject(new Error(message)));
    },
  };
}

function toEntry(step: ProviderStep, callIds: CallIdCounter): ScriptedEntry {
  const u = step.usage;
  const usage: Usage | undefined = u
    ? {
        inputTokens: u.input,
        outputTokens: u.output,
        ...(u.cacheRead !== undefined ? { cacheReadTokens: u.cacheRead } : {}),
        ...(u.cacheWrite !== undefined ? { cacheWriteTokens: u.cacheWrite } : {}),
        ...(u.reasoning !== undefined ? { reasoningTokens: u.reasoning } : {}),
      }
    : undefined;
  const withUsage = (r: ModelResult): ModelResult => (usage ? { ...r, usage } : r);
  let result: ModelResult;
  if (step.reply !== undefined) result = withUsage(step.text ? replyInBlocks(step.text, step.reply) : reply(step.reply));
  else if (step.tool_use)
    result = withUsage(
      toolUse(
        step.tool_use.map((c) => toolCall(c.id ?? `call_${callIds.next++}`, c.name, c.args ?? {})),
        step.text ?? '',
      ),
    );
  else if (step.max_tokens) result = withUsage(maxTokens(step.max_tokens.text, step.max_tokens.partial));
  else if (step.refusal !== undefined) result = withUsage(refusal(step.refusal));
  else if (step.overflow) result = withUsage(overflow(step.overflow));
  else if (step.unknown !== undefined) result = withUsage(unknownStop(step.unknown));
  else if (step.reject !== undefined)
    result = reply(''); // never seen: the call rejects once it settles (`rejecting`)
  else if (step.error) {
    result = transportError(step.error.kind, {
      ...(step.error.status !== undefined ? { status: step.error.status } : {}),
      ...(step.error.retryAfterMs !== undefined ? { retryAfterMs: step.error.retryAfterMs } : {}),
      ...(step.error.message !== undefined ? { message: step.error.message } : {}),
    });
  } else throw new Error('a provider step without a result (the schema should have refused it)');
  // A stream that breaks after its 200: some text streams first (and, for `tool_args`, part of a call). Any other text
  // streams in pieces, as a provider streams it.
  const deltas: ModelDelta[] = step.error?.midStream ? brokenStream(step.error.midStream) : streamedPieces(result);
  return {
    result,
    deltas,
    ...(step.latencyMs ? { latencyMs: step.latencyMs } : {}),
    ...(step.deltaMs ? { deltaIntervalMs: step.deltaMs } : {}),
    ...(step.ignoresTimeout ? { ignoresTimeout: true } : {}),
  };
}

/** What a stream that breaks after its 200 (`error.midStream`) sent first: the text, then (`tool_args`) a call cut inside its arguments. */
export const BROKEN_STREAM = { text: 'Let me check that for you', call: { id: 'call_cut', name: 'issue_refund', args: '{"order_id": "ORD-10' } } as const;

/** Where a stream breaks after its 200: in its text (`true`), or inside a call's arguments — the refund's, or a tool's the scenario names. */
export type MidStream = NonNullable<NonNullable<ProviderStep['error']>['midStream']>;

/**
 * The call a stream that breaks after its 200 cut inside its arguments, if it cut one: `call_cut`, to `issue_refund`
 * (`midStream: tool_args`) or to the tool a scenario names (`midStream: { tool_args: NAME }` — a team cuts a call to
 * its own CRITICAL tool, outside probe 50, LOW-2); `sent` is what streamed of its arguments, `whole` what the wire
 * writes of them before it breaks after the first piece.
 */
export function cutCallOf(
  at: MidStream | undefined,
): { readonly id: string; readonly name: string; readonly sent: string; readonly whole: string } | undefined {
  if (at === 'tool_args') return { id: BROKEN_STREAM.call.id, name: BROKEN_STREAM.call.name, sent: BROKEN_STREAM.call.args, whole: '{"order_id": "ORD-1001"}' };
  if (typeof at === 'object') return { id: BROKEN_STREAM.call.id, name: at.tool_args, sent: '{"input": "cut mi', whole: '{"input": "cut mid-stream"}' };
  return undefined;
}

function brokenStream(at: MidStream): ModelDelta[] {
  const text: ModelDelta = { kind: 'text', text: BROKEN_STREAM.text };
  const cut = cutCallOf(at);
  if (!cut) return [text];
  return [
    text,
    { kind: 'tool_call_start', index: 0, id: cut.id, name: cut.name },
    ...pieces(cut.sent).map((json): ModelDelta => ({ kind: 'tool_args', index: 0, json })),
  ];
}

/** A reply sent as two text blocks (`text`, then `reply`), as a provider may send one: the text is both, in order. */
function replyInBlocks(text: string, answer: string): ModelResult {
  const result = reply(answer);
  if (result.type !== 'reply') return result;
  return { ...result, content: [{ type: 'text', text }, ...result.content], text: text + answer };
}

/**
 * The result streamed as a provider streams it: its text in pieces (three, as the
 * wire fakes write it), so a text is never stored in one delta; then each tool
 * call's start and its argument text in pieces, so a value inside the arguments
 * (a secret the model copied) is split across deltas too.
 */
function streamedPieces(result: ModelResult): ModelDelta[] {
  const text = 'text' in result && typeof result.text === 'string' ? result.text : '';
  const out: ModelDelta[] = text.length > 0 ? pieces(text).map((piece) => ({ kind: 'text', text: piece })) : [];
  if (result.type !== 'tool_use') return out;
  result.calls.forEach((call, index) => {
    out.push({ kind: 'tool_call_start', index, id: call.id, name: call.name });
    // Arguments the model sent as text stream as that text, as a provider streams it (not as a JSON string of it).
    const json = call.rawArgs ?? (typeof call.args === 'string' ? call.args : JSON.stringify(call.args ?? {}));
    for (const piece of pieces(json)) out.push({ kind: 'tool_args', index, json: piece });
  });
  return out;
}

/** One line for people: what a provider step does. */
export function describeStep(step: ProviderStep): string {
  if (step.error)
    return `${step.error.kind}${step.error.status ? ` ${step.error.status}` : ''}${step.error.retryAfterMs !== undefined ? ` retry-after ${step.error.retryAfterMs} ms` : ''}${cutCallOf(step.error.midStream) ? ` inside a 200 stream, in the arguments of a call to ${cutCallOf(step.error.midStream)!.name}` : step.error.midStream ? ' inside a 200 stream' : ''}`;
  if (step.reject !== undefined) return `the client rejects: ${step.reject}`;
  if (step.overflow) return `context overflow at ${step.overflow}`;
  if (step.max_tokens) return `max_tokens${step.max_tokens.partial ? ' inside a tool call' : ''}`;
  if (step.refusal !== undefined) return 'refusal';
  if (step.unknown !== undefined) return `unknown stop reason ${step.unknown}`;
  if (step.tool_use) return `tool_use ${step.tool_use.map((c) => c.name).join(', ')}`;
  return 'reply';
}
