/**
 * Small constructors for results adapters build, keeping optional fields absent
 * (not `undefined`) so results compare and serialize cleanly.
 */
import type { ModelResult, TransportErrorKind, Usage } from '../../src/kernel/index.ts';

export function transportFailure(
  kind: TransportErrorKind,
  message: string,
  extra: { status?: number | undefined; retryAfterMs?: number | undefined; usage?: Usage | undefined } = {},
): ModelResult {
  return {
    type: 'transport_error',
    kind,
    message,
    ...(extra.status !== undefined ? { status: extra.status } : {}),
    ...(extra.retryAfterMs !== undefined ? { retryAfterMs: extra.retryAfterMs } : {}),
    ...(extra.usage !== undefined ? { usage: extra.usage } : {}),
  };
}

export function overflowAtRequest(message: string): ModelResult {
  return { type: 'context_window_exceeded', at: 'request', content: [], message };
}
