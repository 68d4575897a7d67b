/** The environment variables each provider's SDK reads (a module of its own: reading them loads no SDK). */
import type { WireProvider } from './names.ts';

/** The API key environment variable each provider's SDK reads. */
export const API_KEY_ENV: Readonly<Record<WireProvider, string>> = {
  anthropic: 'ANTHROPIC_API_KEY',
  'openai-chat': 'OPENAI_API_KEY',
  'openai-responses': 'OPENAI_API_KEY',
};

/** The base URL environment variable each provider's SDK reads. */
export const BASE_URL_ENV: Readonly<Record<WireProvider, string>> = {
  anthropic: 'ANTHROPIC_BASE_URL',
  'openai-chat': 'OPENAI_BASE_URL',
  'openai-responses': 'OPENAI_BASE_URL',
};
