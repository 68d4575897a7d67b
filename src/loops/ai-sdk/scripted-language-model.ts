/**
 * The scenario's provider script as an AI SDK `LanguageModelV3` (the spec
 * version `ai` 6 speaks): each `doGenerate` converts the prompt to loopgate's
 * normalized request, asks the harness's scripted model client (on the case's
 * virtual clock, recorded by the harness), and answers with what a provider
 * package would: a normalized result becomes content parts and a finish reason;
 * a transport error becomes a thrown `APICallError` with the status, headers and
 * retryability a provider package gives it; an abort rejects with the signal's
 * reason, as `fetch` does.
 *
 *   reply → text, finish stop · tool_use → tool-call parts (raw JSON input), finish tool-calls
 *   max_tokens → text, finish length; inside a call: the cut call, input truncated
 *   refusal → finish content-filter · unknown → finish other (raw kept)
 *   overflow at request → 400 "prompt is too long" · at generation → finish length
 */
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3Content, LanguageModelV3Usage } from '@ai-sdk/provider';
import { APICallError } from 'ai';
import type { ModelClient, ModelResult, ToolSpec, Usage } from '../../kernel/index.ts';
import { fromSdkMessages, type SdkMessage } from './messages.ts';

type GenerateResult = Awaited<ReturnType<LanguageModelV3['doGenerate']>>;

/** The tool a cut call was for, and its truncated input — as the wire fakes write a call cut by max_tokens. */
export const CUT_CALL = { toolName: 'issue_refund', input: '{"order_id": "ORD-10' } as const;

export function scriptedLanguageModel(client: ModelClient, modelId: string): LanguageModelV3 {
  let cuts = 0;
  return {
    specificationVersion: 'v3',
    provider: 'loopgate.scripted',
    modelId,
    supportedUrls: {},
    async doGenerate(options: LanguageModelV3CallOptions): Promise<GenerateResult> {
      const { system, messages } = fromSdkMessages(options.prompt as unknown as SdkMessage[]);
      const tools: ToolSpec[] = (options.tools ?? []).flatMap((t) =>
        t.type === 'function' ? [{ name: t.name, description: t.description ?? '', inputSchema: t.inputSchema as ToolSpec['inputSchema'] }] : [],
      );
      const result = await client.call({
        model: modelId,
        system,
        messages,
        tools,
        maxTokens: options.maxOutputTokens ?? 4096,
        ...(options.abortSignal ? { signal: options.abortSignal } : {}),
      });
      return answer(result, options.abortSignal, () => `cut_${++cuts}`);
    },
    doStream(): never {
      throw new Error('the scripted model answers generateText (doGenerate); streamText is not scripted');
    },
  };
}

function answer(result: ModelResult, signal: AbortSignal | undefined, cutId: () => string): GenerateResult {
  const usage = usageOf(result.usage);
  const done = (content: LanguageModelV3Content[], unified: GenerateResult['finishReason']['unified'], raw: string): GenerateResult => ({
    content,
    finishReason: { unified, raw },
    usage,
    warnings: [],
  });
  const text = (t: string): LanguageModelV3Content[] => (t ? [{ type: 'text', text: t }] : []);
  switch (result.type) {
    case 'reply':
      return done(text(result.text), 'stop', result.stopReason ?? 'end_turn');
    case 'tool_use': {
      const content: LanguageModelV3Content[] = [];
      for (const block of result.content) {
        if (block.type === 'text' && block.text) content.push({ type: 'text', text: block.text });
        if (block.type === 'tool_call') {
          const call = result.calls.find((c) => c.id === block.id);
          content.push({ type: 'tool-call', toolCallId: block.id, toolName: block.name, input: call?.rawArgs ?? JSON.stringify(block.args ?? {}) });
        }
      }
      return done(content, 'tool-calls', result.stopReason ?? 'tool_use');
    }
    case 'max_tokens':
      return done(
        [...text(result.text), ...(result.partialToolCall ? [{ type: 'tool-call' as const, toolCallId: cutId(), ...CUT_CALL }] : [])],
        'length',
        'max_tokens',
      );
    case 'refusal':
      return done(text(result.text), 'content-filter', 'refusal');
    case 'unknown':
      return done(text(result.text), 'other', result.stopReason);
    case 'context_window_exceeded':
      if (result.at === 'generation')
        return done(
          result.content.flatMap((b) => (b.type === 'text' ? text(b.text) : [])),
          'length',
          'model_context_window_exceeded',
        );
      throw apiError(400, result.message, { type: 'error', error: { type: 'invalid_request_error', message: result.message } });
    case 'transport_error':
      if (result.kind === 'aborted' && signal?.aborted) throw signal.reason;
      throw transportError(result);
  }
}

function transportError(result: Extract<ModelResult, { type: 'transport_error' }>): APICallError {
  const headers = result.retryAfterMs !== undefined ? { 'retry-after-ms': String(result.retryAfterMs) } : undefined;
  const status: Record<string, number | undefined> = {
    rate_limited: 429,
    overloaded: 529,
    server_error: 500,
    auth: 401,
    invalid_request: 400,
  };
  const code = result.status ?? status[result.kind];
  const body = { type: 'error', error: { type: result.kind, message: result.message } };
  // Without a status (network, timeout, a cut stream, an abort that was not ours) the SDK's fetch wrapper says retryable.
  return apiError(code, result.message, body, headers, code === undefined ? result.kind !== 'malformed_stream' : undefined);
}

function apiError(statusCode: number | undefined, message: string, body: unknown, headers?: Record<string, string>, isRetryable?: boolean): APICallError {
  return new APICallError({
    message,
    url: 'scripted://model',
    requestBodyValues: {},
    ...(statusCode !== undefined ? { statusCode } : {}),
    ...(headers ? { responseHeaders: headers } : {}),
    responseBody: JSON.stringify(body),
    ...(isRetryable !== undefined ? { isRetryable } : {}),
  });
}

function usageOf(usage: Usage | undefined): LanguageModelV3Usage {
  return {
    inputTokens: { total: usage?.inputTokens ?? 0, noCache: usage?.inputTokens ?? 0, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: usage?.outputTokens ?? 0, text: usage?.outputTokens ?? 0, reasoning: undefined },
  };
}
