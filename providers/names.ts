/** The providers loopgate ships adapters (or a fake) for, by the names the CLI uses. */
export const PROVIDER_NAMES = ['anthropic', 'openai-chat', 'openai-responses', 'fake'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/** Providers that speak HTTP, and so have a wire-level fake. */
export const WIRE_PROVIDERS = ['anthropic', 'openai-chat', 'openai-responses'] as const;
export type WireProvider = (typeof WIRE_PROVIDERS)[number];

export function isProviderName(name: string): name is ProviderName {
  return (PROVIDER_NAMES as readonly string[]).includes(name);
}

export function isWireProvider(name: string): name is WireProvider {
  return (WIRE_PROVIDERS as readonly string[]).includes(name);
}

/**
 * Whether the provider's 429s carry `retry-after-ms` (milliseconds) next to
 * `retry-after` (whole seconds, rounded up): OpenAI's do, Anthropic's do not.
 * The wire fakes send what the provider sends.
 */
export function sendsRetryAfterMs(provider: string | undefined): boolean {
  return provider === 'openai-chat' || provider === 'openai-responses';
}
