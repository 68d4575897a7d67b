/**
 * Short, stable one-line renderings of events and requests — for `replay`, for
 * reports, and for snapshot-style assertions (in the spirit of codex's
 * context_snapshot: what the model saw, as lines a person can diff). What comes
 * from the conversation is printed to a terminal, so every control character
 * in it (ESC, OSC, BEL, bidi overrides…) is shown escaped, never sent.
 */
import { outcomeLabel, type AnyEvent, type RecordedRequest } from '../kernel/index.ts';
import { renderMessage } from '../harness/render.ts';
import { printable, printableLines } from '../report/terminal-text.ts';

const clip = (text: string, max = 80) => {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
};

/**
 * How long a call took, as its result says — except a call closed with its turn (by crash recovery, or by the
 * loop as a cancel ended the turn), whose result records 0 ms: it may have run for long before (outside probe
 * 35, F6: a charge that ran 500 ms before a SIGKILL read "in 0 ms").
 */
function tookFor(result: { readonly durationMs: number; readonly error?: { readonly error_code: string } | undefined }): string {
  const code = result.error?.error_code;
  if (result.durationMs === 0 && code === 'INTERRUPTED') return '(closed with its turn, by the loop or crash recovery: how long it ran is not recorded)';
  if (result.durationMs === 0 && code === 'NOT_RUN') return '(closed with its turn, by the loop or crash recovery: it never ran)';
  return `in ${result.durationMs} ms`;
}

/** One line per event, safe for a terminal. */
export function renderEvent(event: AnyEvent): string {
  return printable(describeEvent(event));
}

function describeEvent(event: AnyEvent): string {
  const head = `#${event.seq}`.padEnd(6);
  if (event.opaque) return `${head}${event.type} (v${event.v}, ignorable: not understood by this reader)`;
  const p = event.payload as Record<string, unknown>;
  switch (event.type) {
    case 'inbox.received':
      return `${head}inbox ← ${event.payload.intent} "${clip(event.payload.text)}" (${event.payload.source})`;
    case 'inbox.returned':
      return `${head}inbox ↩ ${event.payload.ids.join(', ')}: ${event.payload.reason}`;
    case 'turn.opened':
      return `${head}turn ${event.payload.turn} opened`;
    case 'user.message':
      return `${head}  user${event.payload.intent !== 'follow_up' ? ` (${event.payload.intent})` : ''}: ${event.payload.dropped ? '(dropped by the input filter)' : `"${clip(event.payload.text)}"`}`;
    case 'prompt.assembled':
      return `${head}  prompt: ${event.payload.fragments.map((f) => `${f.id}@${f.priority}`).join(', ')} (${event.payload.system.length} chars)`;
    case 'tools.declared':
      return `${head}  tools: ${event.payload.tools.map((t) => t.name).join(', ') || '(none)'}`;
    case 'model.request':
      return `${head}  step ${event.payload.step} request (attempt ${event.payload.attempt}) → ${event.payload.client} ${event.payload.model}`;
    case 'model.delta':
      return `${head}    Δ ${clip(JSON.stringify(event.payload.delta), 60)}`;
    case 'model.result': {
      const r = event.payload.result;
      const extra = r.kind ? `{${r.kind}${r.status ? ` ${r.status}` : ''}}` : r.at ? `{at ${r.at}}` : r.partialToolCall ? '{partial tool call}' : '';
      const usage = r.usage ? ` [${r.usage.inputTokens} in / ${r.usage.outputTokens} out]` : '';
      return `${head}  step ${event.payload.step} result: ${r.type}${extra}${usage}`;
    }
    case 'model.error_handled':
      return `${head}  ${event.payload.handler}: ${event.payload.action}${event.payload.delayMs !== undefined ? ` after ${event.payload.delayMs} ms` : ''} — ${clip(event.payload.detail)}`;
    case 'assistant.message':
      return `${head}  assistant: ${event.payload.content.map((b) => (b.type === 'text' ? `"${clip(b.text, 60)}"` : `${b.name}(${clip(JSON.stringify(b.args), 50)})#${b.id}`)).join(' ')}`;
    case 'policy.decision':
      return `${head}    policy ${event.payload.tool}#${event.payload.callId}: ${event.payload.decision} by ${event.payload.by} (${event.payload.rule})`;
    case 'tool.started':
      return `${head}    tool ${event.payload.name}#${event.payload.callId} started (attempt ${event.payload.attempt}, ${event.payload.sideEffect})`;
    case 'tool.result':
      return `${head}    tool ${event.payload.name}#${event.payload.callId} ${event.payload.status}${event.payload.error ? ` ${event.payload.error.error_code}` : ''} ${tookFor(event.payload)}: ${clip(event.payload.content, 60)}`;
    case 'projection.replaced':
      return `${head}  compaction: [${event.payload.from}, ${event.payload.to}] → summary (${event.payload.tokensBefore} → ${event.payload.tokensAfter} tokens)`;
    case 'projection.restored':
      return `${head}  compaction at #${event.payload.replacement} undone`;
    case 'cancel.requested':
      return `${head}  cancel by ${event.payload.by}: ${clip(event.payload.reason)}`;
    case 'turn.closed':
      return `${head}turn ${event.payload.turn} closed: ${outcomeLabel(event.payload.outcome)}${'detail' in event.payload.outcome && event.payload.outcome.detail ? ` — ${clip(event.payload.outcome.detail)}` : ''}${event.payload.recovered ? ' (recovered after a crash)' : ''} · ${event.payload.steps} steps, ${event.payload.toolCalls} tool calls`;
    default:
      return `${head}${(event as { type: string }).type} ${clip(JSON.stringify(p))}`;
  }
}

/** The request, line by line, safe for a terminal (a message's own line breaks are kept). */
export function renderRequest(request: RecordedRequest): string[] {
  return requestLines(request).map(printableLines);
}

function requestLines(request: RecordedRequest): string[] {
  return [
    `model: ${request.model} · max tokens ${request.maxTokens}${request.temperature !== undefined ? ` · temperature ${request.temperature}` : ''}`,
    `system: ${JSON.stringify(request.system)}`,
    `tools: ${request.tools.map((t) => t.name).join(', ') || '(none)'}`,
    `messages (${request.messages.length}):`,
    ...request.messages.map((m, i) => `  ${String(i).padStart(3)} ${renderMessage(m)}`),
  ];
}
