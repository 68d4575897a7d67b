/**
 * Makes recorded exchanges safe to commit: no request headers at all (that is
 * where keys travel), no auth or cookie response headers, every occurrence of a
 * known secret or a credential-shaped string redacted, and bodies stored decoded
 * (so a replay serves exactly what the SDK parsed).
 */
import { createRedactor } from '../../src/kernel/index.ts';

const DROPPED_HEADERS = new Set([
  'authorization',
  'x-api-key',
  'api-key',
  'cookie',
  'set-cookie',
  'openai-organization',
  'openai-project',
  'anthropic-organization-id',
  // The stored body is decoded and whole: these would describe other bytes.
  'content-encoding',
  'content-length',
  'transfer-encoding',
]);

type Exchange = Record<string, unknown>;

function decodeHexChunks(response: unknown): unknown {
  if (!Array.isArray(response) || !response.every((c) => typeof c === 'string' && /^[0-9a-f]*$/i.test(c))) return response;
  const text = Buffer.concat(response.map((c: string) => Buffer.from(c, 'hex'))).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function scrubExchanges(exchanges: readonly unknown[], secrets: readonly string[]): Exchange[] {
  const redact = createRedactor({ secrets });
  return exchanges.map((raw) => {
    const exchange = { ...(raw as Exchange) };
    delete exchange.reqheaders;
    const headers = exchange.rawHeaders;
    if (headers && typeof headers === 'object' && !Array.isArray(headers)) {
      const h = headers as Record<string, unknown>;
      if (typeof h['content-encoding'] === 'string') exchange.response = decodeHexChunks(exchange.response);
      exchange.rawHeaders = Object.fromEntries(Object.entries(h).filter(([name]) => !DROPPED_HEADERS.has(name.toLowerCase())));
    }
    return JSON.parse(redact(JSON.stringify(exchange))) as Exchange;
  });
}

/** The secrets (by position in `secrets`) still present in `text`. */
export function leakedSecrets(text: string, secrets: readonly string[]): number[] {
  return secrets.flatMap((secret, i) => (secret.length >= 4 && text.includes(secret) ? [i] : []));
}
