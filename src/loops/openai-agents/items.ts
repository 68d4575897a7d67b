/**
 * OpenAI Agents' items and loopgate's messages. `AgentInputItem`s — what a
 * `Session` holds and what a `ModelRequest` carries — become loopgate messages:
 * a user message, an assistant message's text, a `function_call` as a tool call,
 * a `function_call_result` as a tool result in the user message after the calls
 * (status `incomplete` → unknown: the call may or may not have run; a call
 * `endings` names: failed (its body threw; its output is the tools' error text),
 * unknown (the runner timed it out: it may have run)). And a
 * normalized result becomes the output items a model returns.
 */
import type { AssistantBlock, Message, ModelResult, UserBlock } from '../../kernel/index.ts';

export interface Item {
  readonly type?: string;
  readonly role?: string;
  readonly content?: unknown;
  readonly callId?: string;
  readonly name?: string;
  readonly arguments?: string;
  readonly status?: string;
  readonly output?: unknown;
}

/** How the adapter saw calls end that the items cannot say: a body that threw, a call the runner timed out. */
export type CallEndings = Map<string, 'failed' | 'unknown'>;

export function fromAgentItems(input: string | readonly Item[], endings: ReadonlyMap<string, 'failed' | 'unknown'> = new Map()): Message[] {
  const items: readonly Item[] = typeof input === 'string' ? [{ role: 'user', content: input }] : input;
  const out: Message[] = [];
  const push = (role: 'user' | 'assistant', blocks: (UserBlock | AssistantBlock)[]) => {
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    if (last?.role === role) out[out.length - 1] = { role, content: [...last.content, ...blocks] } as Message;
    else out.push({ role, content: blocks } as Message);
  };
  for (const item of items) {
    if (item.type === 'function_call') push('assistant', [{ type: 'tool_call', id: item.callId ?? '', name: item.name ?? '', args: parsed(item.arguments) }]);
    else if (item.type === 'function_call_result')
      push('user', [{ type: 'tool_result', callId: item.callId ?? '', status: resultStatus(item, endings), content: textOf(item.output) }]);
    else if (item.role === 'user' || item.role === 'system') {
      if (item.role === 'user') push('user', [{ type: 'text', text: textOf(item.content) }]);
    } else if (item.role === 'assistant') {
      const text = textOf(item.content);
      if (text) push('assistant', [{ type: 'text', text }]);
    }
  }
  return out;
}

function resultStatus(item: Item, endings: ReadonlyMap<string, 'failed' | 'unknown'>): 'ok' | 'failed' | 'unknown' {
  if (item.status === 'incomplete') return 'unknown';
  return (item.callId !== undefined ? endings.get(item.callId) : undefined) ?? 'ok';
}

function parsed(args: string | undefined): unknown {
  try {
    return JSON.parse(args ?? '{}');
  } catch {
    return args;
  }
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => textOf(part)).join('');
  if (content && typeof content === 'object') {
    const c = content as { text?: unknown; refusal?: unknown; type?: string };
    if (typeof c.text === 'string') return c.text;
    if (typeof c.refusal === 'string') return c.refusal;
  }
  return content === undefined || content === null ? '' : JSON.stringify(content);
}

/** The output items a model returns for a normalized result (errors are thrown, not returned). */
export function outputItems(
  result: Extract<ModelResult, { content: unknown }> | Extract<ModelResult, { type: 'refusal' }>,
  cut: { callId: string },
): unknown[] {
  const message = (text: string) => ({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] });
  switch (result.type) {
    case 'refusal':
      return [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'refusal', refusal: result.text }] }];
    case 'tool_use':
      return result.content.map((b) =>
        b.type === 'text'
          ? message(b.text)
          : {
              type: 'function_call',
              callId: b.id,
              name: b.name,
              arguments: result.calls.find((c) => c.id === b.id)?.rawArgs ?? JSON.stringify(b.args ?? {}),
              status: 'completed',
            },
      );
    case 'max_tokens':
      // The Chat Completions model passes a cut call on as a function_call with truncated arguments.
      return [
        ...(result.text ? [message(result.text)] : []),
        ...(result.partialToolCall
          ? [{ type: 'function_call', callId: cut.callId, name: 'issue_refund', arguments: '{"order_id": "ORD-10', status: 'completed' }]
          : []),
      ];
    case 'context_window_exceeded':
      return [];
    default:
      return result.text ? [message(result.text)] : [];
  }
}
