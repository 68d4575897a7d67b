/**
 * PostgreSQL connection URLs as the store shows them: the password masked
 * everywhere (messages, `describe`, reports), and connection failures turned into
 * one line naming the target and what went wrong.
 */
import { StoreError } from './event-store.ts';

const PROTOCOLS = new Set(['postgres:', 'postgresql:']);
/** Query parameters that carry secrets (libpq and node-postgres both accept `password`). */
const SECRET_PARAMS = new Set(['password', 'sslpassword']);

/** Whether a string looks like a PostgreSQL URL at all (for commands that accept paths too). */
export function isPostgresUrl(text: string): boolean {
  return /^postgres(ql)?:\/\//i.test(text);
}

/**
 * The URL with its password replaced by `****`. Works on strings that are not
 * valid URLs too (it never echoes what might be a password).
 */
export function maskPostgresUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not parseable: mask whatever sits between "user:" and the last "@" of the authority.
    return url.replace(/^([a-z]+:\/\/[^:/?#@]*:)[^/?#]*@/i, '$1****@').replace(/([?&](?:ssl)?password=)[^&#]*/gi, '$1****');
  }
  if (parsed.password !== '') parsed.password = '****';
  for (const key of [...parsed.searchParams.keys()]) {
    if (SECRET_PARAMS.has(key.toLowerCase())) parsed.searchParams.set(key, '****');
  }
  // URL escapes the mask's asterisks in the query; show them as typed.
  return parsed.toString().replace(/%2A%2A%2A%2A/g, '****');
}

/** Checks the URL's shape; returns its masked form. Throws `StoreError` naming the (masked) URL. */
export function checkPostgresUrl(url: unknown): string {
  if (typeof url !== 'string' || url.length === 0) {
    throw new StoreError(
      `postgres store: the connection URL must be a non-empty string like postgres://user@host:5432/database, got ${typeof url === 'string' ? 'an empty string' : typeof url}`,
    );
  }
  const masked = maskPostgresUrl(url);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StoreError(`${masked}: not a valid URL (expected postgres://user:****@host:5432/database, the password in place of ****)`);
  }
  if (!PROTOCOLS.has(parsed.protocol)) {
    throw new StoreError(`${masked}: not a PostgreSQL URL (it must start with postgres:// or postgresql://)`);
  }
  if (parsed.pathname.length <= 1 && !parsed.searchParams.has('dbname')) {
    throw new StoreError(`${masked}: the URL names no database (add it as the path, e.g. postgres://user@host:5432/loopgate)`);
  }
  return masked;
}

interface ErrorLike {
  readonly message?: unknown;
  readonly code?: unknown;
  readonly errors?: unknown;
}

/**
 * One line for a failed connection, e.g. `connection refused (is a PostgreSQL server
 * running and listening there?)`. `secret`, when given, is scrubbed from the text
 * (a driver message must never carry the password into a log).
 */
export function describeConnectError(error: unknown, connectTimeoutMs: number, secret?: string): string {
  const e = (error ?? {}) as ErrorLike;
  // "localhost" may resolve to ::1 and 127.0.0.1: Node reports an AggregateError of both.
  const inner = Array.isArray(e.errors) && e.errors.length > 0 ? (e.errors[0] as ErrorLike) : undefined;
  const code = typeof e.code === 'string' ? e.code : typeof inner?.code === 'string' ? inner.code : undefined;
  const message = String(e.message ?? inner?.message ?? error);
  let text: string;
  switch (code) {
    case 'ECONNREFUSED':
      text = 'connection refused (is a PostgreSQL server running and listening there?)';
      break;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      text = 'host not found (check the host name in the URL)';
      break;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      text = 'host unreachable';
      break;
    case 'ETIMEDOUT':
      text = `no answer within ${connectTimeoutMs} ms (connect timeout)`;
      break;
    case '28P01':
    case '28000':
      text = `authentication failed: ${message}`;
      break;
    case '3D000':
      text = message; // database "x" does not exist
      break;
    default:
      text = /timeout/i.test(message) ? `no answer within ${connectTimeoutMs} ms (connect timeout)` : message;
  }
  return secret ? scrub(text, secret) : text;
}

/** Removes every occurrence of `secret` (and its URL-encoded form) from `text`. */
export function scrub(text: string, secret: string): string {
  if (secret.length === 0) return text;
  let out = text.split(secret).join('****');
  const encoded = encodeURIComponent(secret);
  if (encoded !== secret) out = out.split(encoded).join('****');
  return out;
}

/** The password a URL carries (decoded), or undefined. */
export function passwordOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    const fromQuery = parsed.searchParams.get('password');
    if (parsed.password !== '') return decodeURIComponent(parsed.password);
    return fromQuery ?? undefined;
  } catch {
    return undefined;
  }
}
