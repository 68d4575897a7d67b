/**
 * Messages and spans rendered as short lines — what scenario expectations match
 * against, and what `replay` prints (in the spirit of codex's context snapshots).
 *
 *   user: Where is ORD-1001?
 *   assistant: Let me check. | call lookup_order#c1 {"order_id":"ORD-1001"}
 *   user: result#c1 ok: {"id":"ORD-1001",...} | And refund it.
 */
import type { Message, SpanRecord, TraceRecord } from '../kernel/index.ts';

export function renderMessage(message: Message): string {
  return `${message.role}: ${message.content
    .map((b) =>
      b.type === 'text' ? b.text : b.type === 'tool_call' ? `call ${b.name}#${b.id} ${JSON.stringify(b.args)}` : `result#${b.callId} ${b.status}: ${b.content}`,
    )
    .join(' | ')}`;
}

export function renderMessages(messages: readonly Message[]): string[] {
  return messages.map(renderMessage);
}

/** Each span as its path of kinds from the root and its status: `turn > tool > policy:ok`. */
export function spanShape(trace: TraceRecord): string[] {
  const byId = new Map(trace.spans.map((s) => [s.id, s]));
  const path = (s: SpanRecord): string => {
    const parent = s.parentId ? byId.get(s.parentId) : undefined;
    return parent ? `${path(parent)} > ${s.kind}` : s.kind;
  };
  return trace.spans.map((s) => `${path(s)}:${s.status}`);
}
