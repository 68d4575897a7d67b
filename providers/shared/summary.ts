/**
 * The printable form of a result (used by `loopgate decode`, the contract runner
 * and the fixture tests): the fields that say how the call ended, without the
 * assistant content blocks that `text` and `calls` already show.
 */
import type { ModelResult, Usage } from '../../src/kernel/index.ts';

export interface ResultSummary {
  readonly type: ModelResult['type'];
  readonly text?: string;
  readonly calls?: readonly { readonly id: string; readonly name: string; readonly args: unknown }[];
  readonly partialToolCall?: boolean;
  readonly at?: 'request' | 'generation';
  readonly kind?: string;
  readonly status?: number;
  readonly retryAfterMs?: number;
  readonly message?: string;
  readonly details?: unknown;
  readonly stopReason?: string;
  readonly usage?: Usage;
}

export function summarizeResult(result: ModelResult): ResultSummary {
  const meta = {
    ...(result.stopReason !== undefined ? { stopReason: result.stopReason } : {}),
    ...(result.usage !== undefined ? { usage: result.usage } : {}),
  };
  switch (result.type) {
    case 'reply':
      return { type: result.type, text: result.text, ...meta };
    case 'tool_use':
      return {
        type: result.type,
        text: result.text,
        calls: result.calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
        ...meta,
      };
    case 'max_tokens':
      return { type: result.type, text: result.text, partialToolCall: result.partialToolCall, ...meta };
    case 'refusal':
      return { type: result.type, text: result.text, ...(result.details !== undefined ? { details: result.details } : {}), ...meta };
    case 'context_window_exceeded': {
      const text = result.content
        .filter((b) => b.type === 'text')
        .map((b) => (b as { text: string }).text)
        .join('');
      return { type: result.type, at: result.at, text, message: result.message, ...meta };
    }
    case 'unknown':
      return { type: result.type, text: result.text, ...meta, stopReason: result.stopReason };
    case 'transport_error':
      return {
        type: result.type,
        kind: result.kind,
        ...(result.status !== undefined ? { status: result.status } : {}),
        ...(result.retryAfterMs !== undefined ? { retryAfterMs: result.retryAfterMs } : {}),
        message: result.message,
        ...meta,
      };
  }
}
