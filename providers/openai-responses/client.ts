/**
 * The OpenAI Responses adapter on the official SDK. Streams by default; sends
 * the whole conversation each time (`store: false` unless asked); the SDK's
 * retries are off; the caller's timeout and abort signal end the call; every
 * ending is one normalized result.
 */
import type { ModelClient, ModelDelta, ModelRequest, ModelResult } from '../../src/kernel/index.ts';
import { runModelCall } from '../shared/call-runner.ts';
import { classifyOpenAIError } from '../openai-shared/errors.ts';
import type { OpenAIClientOptions } from '../openai-shared/options.ts';
import { openAISdk } from '../openai-shared/sdk.ts';
import { ResponsesStreamCollector, resultFromResponse } from './collect.ts';
import { toResponsesBody } from './request.ts';

export interface OpenAIResponsesClientOptions extends OpenAIClientOptions {
  /** Let OpenAI store responses. Default false: loopgate's log is the record. */
  readonly store?: boolean;
}

export function createOpenAIResponsesClient(options: OpenAIResponsesClientOptions): ModelClient {
  const sdk = openAISdk(options);
  const streaming = options.stream ?? true;

  return {
    name: `openai-responses:${options.model}`,
    model: options.model,
    call(request: ModelRequest, onDelta?: (delta: ModelDelta) => void): Promise<ModelResult> {
      const timeoutMs = request.timeoutMs ?? options.defaultTimeoutMs;
      const effective = timeoutMs !== undefined ? { ...request, timeoutMs } : request;
      const finish = { unwrapParallel: true, declaredTools: request.tools.map((t) => t.name) };
      return runModelCall(
        effective,
        onDelta,
        async (ctx) => {
          const body = toResponsesBody(request, request.model || options.model, options.store !== undefined ? { store: options.store } : {});
          const requestOptions = { signal: ctx.signal, maxRetries: 0, ...(timeoutMs !== undefined ? { timeout: timeoutMs } : {}) };
          if (!streaming) {
            options.onRequest?.(body);
            // The raw answer, read here: the SDK's own parse post-processes the body
            // (output_text) and throws a TypeError on one without `output`, which
            // would read as a request that could not be sent.
            const raw = await sdk.responses.create(body, requestOptions).asResponse();
            ctx.phase = 'stream';
            return resultFromResponse(await raw.json(), finish);
          }
          const streamBody = { ...body, stream: true as const };
          options.onRequest?.(streamBody);
          const stream = await sdk.responses.create(streamBody, requestOptions);
          ctx.phase = 'stream';
          const collector = new ResponsesStreamCollector();
          ctx.usageSoFar = () => collector.collected.usage;
          for await (const event of stream) {
            collector.handle(event, ctx.emit);
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
