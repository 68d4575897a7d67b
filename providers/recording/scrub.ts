/**
 * Makes recorded exchanges safe to commit: no request headers at all (that is
 * where keys travel), no auth or cookie response headers, every occurrence of a
 * known secret — in any form: literal, URL-encoded, JSON `\u`-escaped, base64, hex —
 * or of a credential-shaped string redacted, and bodies stored decoded (the SDKs
 * ask for gzip: a compressed body could neither be scrubbed nor checked, so it
 * is decompressed first, and served decoded on replay).
 */
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import { isUtf8 } from 'node:buffer';
import { containsSecret, createRedactor, redactDeep, redactEncodedForms } from '../../src/kernel/index.ts';
import { RecordingError } from './recording-file.ts';

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

function decompress(bytes: Buffer, encoding: string): Buffer {
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return gunzipSync(bytes);
    case 'br':
      return brotliDecompressSync(bytes);
    case 'deflate':
      try {
        return inflateSync(bytes);
      } catch {
        return inflateRawSync(bytes); // some servers send deflate without the zlib wrapper
      }
    case 'identity':
    case '':
      return bytes;
    default:
      throw new Error(`unsupported content-encoding "${encoding}"`);
  }
}

/**
 * The body of a response recorded with a `content-encoding`: nock keeps such a
 * body as hex chunks. Decoded in the reverse order the encodings were applied.
 * If the bytes turn out not to be compressed (fetch decompressed them before the
 * recorder saw them), they are the body already.
 */
function decodedBody(response: unknown, contentEncoding: string, where: string): unknown {
  if (!Array.isArray(response) || !response.every((c) => typeof c === 'string' && /^[0-9a-f]*$/i.test(c))) return response;
  const raw = Buffer.concat(response.map((c: string) => Buffer.from(c, 'hex')));
  const encodings = contentEncoding
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean)
    .reverse();
  let bytes: Buffer;
  try {
    bytes = encodings.reduce(decompress, raw);
  } catch (error) {
    if (!isUtf8(raw)) {
      throw new RecordingError(
        `${where}: cannot decode the ${contentEncoding} response body (${(error as Error).message}); refusing to store bytes that cannot be scrubbed`,
      );
    }
    bytes = raw;
  }
  const text = bytes.toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function scrubExchanges(exchanges: readonly unknown[], secrets: readonly string[]): Exchange[] {
  const literal = createRedactor({ secrets });
  const redact = (text: string) => redactEncodedForms(literal(text), secrets);
  return exchanges.map((raw) => {
    const exchange = { ...(raw as Exchange) };
    delete exchange.reqheaders;
    const headers = exchange.rawHeaders;
    if (headers && typeof headers === 'object' && !Array.isArray(headers)) {
      const h = headers as Record<string, unknown>;
      const encoding = Object.entries(h).find(([name]) => name.toLowerCase() === 'content-encoding')?.[1];
      if (typeof encoding === 'string') {
        exchange.response = decodedBody(exchange.response, encoding, `${String(exchange.method)} ${String(exchange.path)}`);
        delete exchange.responseIsBinary;
      }
      exchange.rawHeaders = Object.fromEntries(Object.entries(h).filter(([name]) => !DROPPED_HEADERS.has(name.toLowerCase())));
    }
    // Every string (keys too), then the whole text once more: a secret split across fields is caught there.
    const scrubbed = JSON.stringify(redactDeep(exchange, redact));
    return JSON.parse(redact(scrubbed)) as Exchange;
  });
}

/** The secrets (by position in `secrets`) still present in `text`, in any form. */
export function leakedSecrets(text: string, secrets: readonly string[]): number[] {
  return secrets.flatMap((secret, i) => (containsSecret(text, secret) ? [i] : []));
}
