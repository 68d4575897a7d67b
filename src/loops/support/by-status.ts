/**
 * A provider's HTTP status (and its error body) in loopgate's closed outcome alphabet, as every peer adapter reads
 * it: 401/403 auth, 429 rate_limited, a context-length 400/413 conversation_full, another 4xx invalid_request, the
 * rest provider_unavailable. Shared here, not in one peer's folder, so each adapter loads with its own framework alone.
 */
import type { Outcome } from '../../kernel/index.ts';

export function byStatus(status: number | undefined, body: string): Outcome {
  if (status === 401 || status === 403) return { kind: 'failed', reason: 'auth' };
  if (status === 429) return { kind: 'failed', reason: 'rate_limited' };
  if ((status === 400 || status === 413) && /prompt is too long|context.length|context_window|maximum context/i.test(body))
    return { kind: 'conversation_full' };
  if (status !== undefined && status >= 400 && status < 500) return { kind: 'failed', reason: 'invalid_request' };
  return { kind: 'failed', reason: 'provider_unavailable' };
}
