/** One factory for the shipped adapters, by provider name (used by the CLI and the harnesses). */
import { createAnthropicClient } from './anthropic/client.ts';
import type { ModelClient } from '../src/kernel/index.ts';
import type { WireProvider } from './names.ts';
import type { DeadlineTimer } from './shared/call-runner.ts';
import { createOpenAIChatClient } from './openai-chat/client.ts';
import { createOpenAIResponsesClient } from './openai-responses/client.ts';

export interface AdapterOptions {
  readonly apiKey: string;
  readonly baseURL?: string;
  readonly model: string;
  readonly stream?: boolean;
  readonly fetch?: typeof globalThis.fetch;
  readonly defaultTimeoutMs?: number;
  /** The Responses API's `store` (default false); the other protocols have no such field. */
  readonly store?: boolean;
  readonly onRequest?: (body: unknown) => void;
  /** The clock a retry-after HTTP date is read against (default Date.now): a test host's virtual one. */
  readonly now?: () => number;
  /**
   * The timer a call's deadline (its `timeoutMs`) runs on (default: the system's): a test host's virtual clock, so a
   * stream that stalls meets its timeout in virtual time.
   */
  readonly setTimer?: DeadlineTimer;
}

export function createAdapter(provider: WireProvider, options: AdapterOptions): ModelClient {
  switch (provider) {
    case 'anthropic':
      return createAnthropicClient(options);
    case 'openai-chat':
      return createOpenAIChatClient(options);
    case 'openai-responses':
      return createOpenAIResponsesClient(options);
  }
}

export { API_KEY_ENV, BASE_URL_ENV } from './env.ts';
