/**
 * ModelRequest → the Anthropic Messages request body. Exported so the exact
 * body can be logged and tested.
 *
 * - The system prompt goes in `system` (omitted when empty).
 * - Tool calls become `tool_use` blocks; tool results become `tool_result` blocks
 *   (failed or unknown results carry `is_error`). In a user message the results
 *   come first, in call order, then any text: the API requires results to lead.
 * - Empty text blocks are dropped (the API rejects them), and so is a message
 *   left with no content.
 * - `input` must be an object: arguments that are not one are wrapped as `{ "value": ... }`.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { Message, ModelRequest } from '../../src/kernel/index.ts';

type MessageParam = Anthropic.MessageParam;
type ContentBlockParam = Anthropic.ContentBlockParam;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toAnthropicMessage(message: Message): MessageParam | undefined {
  const content: ContentBlockParam[] = [];
  if (message.role === 'user') {
    for (const block of message.content) {
      if (block.type === 'tool_result') {
        content.push({
          type: 'tool_result',
          tool_use_id: block.callId,
          content: block.content,
          ...(block.status !== 'ok' ? { is_error: true } : {}),
        });
      }
    }
    for (const block of message.content) {
      if (block.type === 'text' && block.text !== '') content.push({ type: 'text', text: block.text });
    }
  } else {
    for (const block of message.content) {
      if (block.type === 'text') {
        if (block.text !== '') content.push({ type: 'text', text: block.text });
      } else {
        content.push({
          type: 'tool_use',
          id: block.id,
          name: block.name,
          input: isPlainObject(block.args) ? block.args : { value: block.args },
        });
      }
    }
  }
  return content.length > 0 ? { role: message.role, content } : undefined;
}

export function toAnthropicBody(request: ModelRequest, model: string): Anthropic.MessageCreateParamsNonStreaming {
  const messages = request.messages.map(toAnthropicMessage).filter((m): m is MessageParam => m !== undefined);
  return {
    model,
    max_tokens: request.maxTokens,
    ...(request.system !== '' ? { system: request.system } : {}),
    messages,
    ...(request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({
            name: tool.name,
            description: tool.description,
            input_schema: tool.inputSchema as Anthropic.Tool.InputSchema,
          })),
        }
      : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
  };
}
