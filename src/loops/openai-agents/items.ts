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

type Ending = 'ok' | 'failed' | 'unknown';

/**
 * How the adapter saw calls end that the items cannot say: a body that threw, a
 * call the runner timed out. Kept per run, not per id: a model may use an id
 * again, and a later run that went well reads `ok` (outside probe 28, F2). The
 * n-th result of an id is the n-th run of it.
 */
export class CallEndings {
  readonly #runs = new Map<string, { ending: Ending }[]>();

  /** A run of `callId` starts: mark how it ends on what this returns. */
  started(callId: string): { ending: Ending } {
    const run = { ending: 'ok' as Ending };
    const runs = this.#runs.get(callId);
    if (runs) runs.push(run);
    else this.#runs.set(callId, [run]);
    return run;
  }

  /** The runner gave up on the latest run of `callId`: it may have run. */
  timedOut(callId: string): void {
    const latest = this.#runs.get(callId)?.at(-1);
    if (latest) latest.ending = 'unknown';
    else this.started(callId).ending = 'unknown';
  }

  /** How the `nth` run (from 0) of `callId` ended; `ok` when the adapter saw none. */
  of(callId: string, nth: number): Ending {
    return this.#runs.get(callId)?.[nth]?.ending ?? 'ok';
  }
}

export function fromAgentItems(input: string | readonly Item[], endings: CallEndings = new CallEndings()): Message[] {
  const items: readonly Item[] = typeof input === 'string' ? [{ role: 'user', content: input }] : input;
  const out: Message[] = [];
  const push = (role: 'user' | 'assistant', blocks: (UserBlock | AssistantBlock)[]) => {
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    if (last?.role === role) out[out.length - 1] = { role, content: [...last.content, ...blocks] } as Message;
    else out.push({ role, content: blocks } as Message);
  };
  const seen = new Map<string, number>(); // results of each call id so far: the n-th is the n-th run
  for (const item of items) {
    if (item.type === 'function_call') push('assistant', [{ type: 'tool_call', id: item.callId ?? '', name: item.name ?? '', args: parsed(item.arguments) }]);
    else if (item.type === 'function_call_result') {
      const callId = item.callId ?? '';
      const nth = seen.get(callId) ?? 0;
      seen.set(callId, nth + 1);
      push('user', [{ type: 'tool_result', callId, status: item.status === 'incomplete' ? 'unknown' : endings.of(callId, nth), content: textOf(item.output) }]);
    } else if (item.role === 'user' || item.role === 'system') {
      if (item.role === 'user') push('user', [{ type: 'text', text: textOf(item.content) }]);
    } else if (item.role === 'assistant') {
      const text = textOf(item.content);
      if (text) push('assistant', [{ type: 'text', text }]);
    }
  }
  return out;
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
