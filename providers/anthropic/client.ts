/**
 * The Anthropic Messages adapter on the official SDK. Streams by default; the
 * SDK's retries are off (the kernel's error chain owns retries); the caller's
 * timeout and abort signal end the call; every ending is one normalized result.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { ModelClient, ModelDelta, ModelRequest, ModelResult } from '../../src/kernel/index.ts';
import { type DeadlineTimer, runModelCall } from '../shared/call-runner.ts';
import { AnthropicStreamCollector, resultFromMessage } from './collect.ts';
import { classifyAnthropicError } from './errors.ts';
import { toAnthropicBody } from './request.ts';

export interface AnthropicClientOptions {
  readonly apiKey: string;
  /** Default: the SDK's (ANTHROPIC_BASE_URL, else https://api.anthropic.com). */
  readonly baseURL?: string;
  /** Used when a request names no model. */
  readonly model: string;
  /** A fetch implementation for the SDK (default: the global fetch). */
  readonly fetch?: typeof globalThis.fetch;
  /** Default true. `false` sends non-streaming requests (one JSON body). */
  readonly stream?: boolean;
  /** Timeout for calls whose request sets none (ms). Default: none beyond the SDK's. */
  readonly defaultTimeoutMs?: number;
  /** Extra headers on every request (e.g. `anthropic-beta`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Receives the exact body before it is sent, for the log. */
  readonly onRequest?: (body: unknown) => void;
  /** The clock a retry-after HTTP date is read against (default Date.now): a test host's virtual one. */
  readonly now?: () => number;
  /**
   * The timer a call's deadline (its `timeoutMs`) runs on (default: the system's): a test host's virtual clock, so a
   * stream that stalls meets its timeout in virtual time.
   */
  readonly setTimer?: DeadlineTimer;
}

export function createAnthropicClient(options: AnthropicClientOptions): ModelClient {
  const sdk = new Anthropic({
    apiKey: options.apiKey,
    ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.headers ? { defaultHeaders: options.headers } : {}),
    maxRetries: 0,
    logLevel: 'off',
  });
  const streaming = options.stream ?? true;

  return {
    name: `anthropic:${options.model}`,
    model: options.model,
    call(request: ModelRequest, onDelta?: (delta: ModelDelta) => void): Promise<ModelResult> {
      const timeoutMs = request.timeoutMs ?? options.defaultTimeoutMs;
      const effective = timeoutMs !== undefined ? { ...request, timeoutMs } : request;
      return runModelCall(
        effective,
        onDelta,
        async (ctx) => {
          const body = toAnthropicBody(request, request.model || options.model);
          options.onRequest?.(streaming ? { ...body, stream: true } : body);
          const requestOptions = { signal: ctx.signal, maxRetries: 0, ...(timeoutMs !== undefined ? { timeout: timeoutMs } : {}) };
          if (!streaming) {
            const message = await sdk.messages.create(body, requestOptions);
            ctx.phase = 'stream';
            return resultFromMessage(message);
          }
          const stream = await sdk.messages.create({ ...body, stream: true }, requestOptions);
          ctx.phase = 'stream';
          const collector = new AnthropicStreamCollector();
          ctx.usageSoFar = () => collector.collected.usage;
          for await (const event of stream) {
            collector.handle(event, ctx.emit);
            // Settle at the protocol's end, whether or not the server closes the connection.
            if (collector.done) break;
          }
          return collector.result();
        },
        (error, ctx) => classifyAnthropicError(error, ctx, options.now),
        [options.apiKey],
        options.setTimer,
      );
    },
  };
}
