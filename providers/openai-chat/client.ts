/**
 * The OpenAI Chat Completions adapter on the official SDK. Streams by default
 * (with `stream_options.include_usage`, so usage is always reported); the SDK's
 * retries are off; the caller's timeout and abort signal end the call; every
 * ending is one normalized result.
 */
import type { ModelClient, ModelDelta, ModelRequest, ModelResult } from '../../src/kernel/index.ts';
import { runModelCall } from '../shared/call-runner.ts';
import { classifyOpenAIError } from '../openai-shared/errors.ts';
import type { OpenAIClientOptions } from '../openai-shared/options.ts';
import { openAISdk } from '../openai-shared/sdk.ts';
import { ChatStreamCollector, resultFromCompletion } from './collect.ts';
import { toChatBody } from './request.ts';

export type OpenAIChatClientOptions = OpenAIClientOptions;

export function createOpenAIChatClient(options: OpenAIChatClientOptions): ModelClient {
  const sdk = openAISdk(options);
  const streaming = options.stream ?? true;

  return {
    name: `openai-chat:${options.model}`,
    model: options.model,
    call(request: ModelRequest, onDelta?: (delta: ModelDelta) => void): Promise<ModelResult> {
      const timeoutMs = request.timeoutMs ?? options.defaultTimeoutMs;
      const effective = timeoutMs !== undefined ? { ...request, timeoutMs } : request;
      const finish = { unwrapParallel: true, declaredTools: request.tools.map((t) => t.name) };
      return runModelCall(
        effective,
        onDelta,
        async (ctx) => {
          const body = toChatBody(request, request.model || options.model);
          const requestOptions = { signal: ctx.signal, maxRetries: 0, ...(timeoutMs !== undefined ? { timeout: timeoutMs } : {}) };
          if (!streaming) {
            options.onRequest?.(body);
            const completion = await sdk.chat.completions.create(body, requestOptions);
            ctx.phase = 'stream';
            return resultFromCompletion(completion, finish);
          }
          const streamBody = { ...body, stream: true as const, stream_options: { include_usage: true } };
          options.onRequest?.(streamBody);
          const stream = await sdk.chat.completions.create(streamBody, requestOptions);
          ctx.phase = 'stream';
          const collector = new ChatStreamCollector();
          ctx.usageSoFar = () => collector.collected.usage;
          for await (const chunk of stream) {
            collector.handle(chunk, ctx.emit);
            if (collector.done) break;
          }
          return collector.result(finish);
        },
        (error, ctx) => classifyOpenAIError(error, ctx, options.now),
        [options.apiKey],
        options.setTimer,
      );
    },
  };
}
