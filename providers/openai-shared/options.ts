/** Options shared by the two OpenAI adapters. */
import type { DeadlineTimer } from '../shared/call-runner.ts';
export interface OpenAIClientOptions {
  readonly apiKey: string;
  /** Default: the SDK's (OPENAI_BASE_URL, else https://api.openai.com/v1). */
  readonly baseURL?: string;
  /** Used when a request names no model. */
  readonly model: string;
  readonly fetch?: typeof globalThis.fetch;
  /** Default true. `false` sends non-streaming requests (one JSON body). */
  readonly stream?: boolean;
  /** Timeout for calls whose request sets none (ms). */
  readonly defaultTimeoutMs?: number;
  readonly organization?: string;
  readonly project?: string;
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
