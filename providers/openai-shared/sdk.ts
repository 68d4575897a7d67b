import OpenAI from 'openai';
import type { OpenAIClientOptions } from './options.ts';

/** The SDK client as every adapter needs it: no retries, no logging. */
export function openAISdk(options: OpenAIClientOptions): OpenAI {
  return new OpenAI({
    apiKey: options.apiKey,
    ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.organization ? { organization: options.organization } : {}),
    ...(options.project ? { project: options.project } : {}),
    ...(options.headers ? { defaultHeaders: options.headers } : {}),
    maxRetries: 0,
    logLevel: 'off',
  });
}
