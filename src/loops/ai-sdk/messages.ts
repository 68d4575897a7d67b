/**
 * The AI SDK's messages and loopgate's, both ways. Both shapes the SDK uses read
 * the same here: a `LanguageModelV3Prompt` sent to a model and the
 * `ModelMessage[]` an app persists (`response.messages`). A `tool` message's
 * results join the user message after them, as loopgate (and Anthropic) keep
 * them; an `error-*` or `execution-denied` output is a failed result.
 */
import type { Message, UserBlock, AssistantBlock } from '../../kernel/index.ts';

interface Part {
  readonly type: string;
  readonly text?: string;
  readonly toolCallId?: string;
  readonly toolName?: string;
  readonly input?: unknown;
  readonly output?: { readonly type: string; readonly value?: unknown; readonly reason?: string };
}

export interface SdkMessage {
  readonly role: string;
  readonly content: string | readonly Part[];
}

/** The system text and the conversation, as loopgate messages. */
export function fromSdkMessages(messages: readonly SdkMessage[]): { system: string; messages: Message[] } {
  const out: Message[] = [];
  const system: string[] = [];
  const pushUser = (blocks: UserBlock[]) => {
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    if (last?.role === 'user') out[out.length - 1] = { role: 'user', content: [...last.content, ...blocks] };
    else out.push({ role: 'user', content: blocks });
  };
  for (const m of messages) {
    const parts: readonly Part[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    if (m.role === 'system') system.push(typeof m.content === 'string' ? m.content : parts.map((p) => p.text ?? '').join(''));
    else if (m.role === 'assistant') {
      const blocks: AssistantBlock[] = [];
      for (const p of parts) {
        if (p.type === 'text' && p.text) blocks.push({ type: 'text', text: p.text });
        if (p.type === 'tool-call') blocks.push({ type: 'tool_call', id: p.toolCallId ?? '', name: p.toolName ?? '', args: parsed(p.input) });
      }
      out.push({ role: 'assistant', content: blocks });
    } else {
      const blocks: UserBlock[] = [];
      for (const p of parts) {
        if (p.type === 'text' && p.text !== undefined) blocks.push({ type: 'text', text: p.text });
        if (p.type === 'tool-result')
          blocks.push({ type: 'tool_result', callId: p.toolCallId ?? '', status: statusOf(p.output), content: contentOf(p.output) });
      }
      pushUser(blocks);
    }
  }
  return { system: system.join('\n'), messages: out };
}

function parsed(input: unknown): unknown {
  if (typeof input !== 'string') return input;
  try {
    return JSON.parse(input);
  } catch {
    return input;
  }
}

function statusOf(output: Part['output']): 'ok' | 'failed' {
  return output && (output.type.startsWith('error') || output.type === 'execution-denied') ? 'failed' : 'ok';
}

function contentOf(output: Part['output']): string {
  if (!output) return '';
  if (output.type === 'execution-denied') return `execution denied${output.reason ? `: ${output.reason}` : ''}`;
  return typeof output.value === 'string' ? output.value : JSON.stringify(output.value ?? null);
}
