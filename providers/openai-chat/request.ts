/**
 * ModelRequest → the Chat Completions request body. Exported so the exact body
 * can be logged and tested.
 *
 * - The system prompt is the first message (role `system`).
 * - Tool calls become the assistant message's `tool_calls` (arguments as JSON text);
 *   the assistant's text is its `content`: one text block as text, several as
 *   content parts in order, so none runs into another (the calls follow them).
 * - Tool results become `tool` messages, one per result, in call order, placed
 *   before any text of the same user message (they must follow the calls directly).
 * - `max_completion_tokens` carries the limit (reasoning models reject `max_tokens`).
 */
import type OpenAI from 'openai';
import type { Message, ModelRequest } from '../../src/kernel/index.ts';

type ChatMessage = OpenAI.Chat.ChatCompletionMessageParam;

function toChatMessages(message: Message): ChatMessage[] {
  if (message.role === 'user') {
    const out: ChatMessage[] = [];
    for (const block of message.content) {
      if (block.type === 'tool_result') out.push({ role: 'tool', tool_call_id: block.callId, content: block.content });
    }
    const texts = message.content.flatMap((b) => (b.type === 'text' && b.text !== '' ? [b.text] : []));
    if (texts.length === 1) out.push({ role: 'user', content: texts[0]! });
    else if (texts.length > 1) out.push({ role: 'user', content: texts.map((text) => ({ type: 'text' as const, text })) });
    return out;
  }
  const texts = message.content.flatMap((b) => (b.type === 'text' && b.text !== '' ? [b.text] : []));
  const calls = message.content.flatMap((b) =>
    b.type === 'tool_call' ? [{ id: b.id, type: 'function' as const, function: { name: b.name, arguments: JSON.stringify(b.args ?? {}) } }] : [],
  );
  if (texts.length === 0 && calls.length === 0) return [];
  const content = texts.length === 0 ? null : texts.length === 1 ? texts[0]! : texts.map((text) => ({ type: 'text' as const, text }));
  return [{ role: 'assistant', content, ...(calls.length > 0 ? { tool_calls: calls } : {}) }];
}

export function toChatBody(request: ModelRequest, model: string): OpenAI.Chat.ChatCompletionCreateParamsNonStreaming {
  const messages: ChatMessage[] = [];
  if (request.system !== '') {
    messages.push({ role: 'system', content: request.system });
  }
  for (const message of request.messages) messages.push(...toChatMessages(message));
  return {
    model,
    messages,
    max_completion_tokens: request.maxTokens,
    ...(request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({
            type: 'function' as const,
            function: { name: tool.name, description: tool.description, parameters: tool.inputSchema as Record<string, unknown> },
          })),
        }
      : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
  };
}
