/** Chat Completions `finish_reason` → how the response ended. */
import type { StopInfo } from '../shared/assemble.ts';

export function chatStop(finishReason: string, hasRefusal: boolean): StopInfo {
  switch (finishReason) {
    case 'stop':
      return hasRefusal ? { category: 'refusal', raw: finishReason } : { category: 'reply', raw: finishReason };
    case 'tool_calls':
    case 'function_call':
      return { category: 'tool_use', raw: finishReason };
    case 'length':
      return { category: 'max_tokens', raw: finishReason };
    case 'content_filter':
      return { category: 'refusal', raw: finishReason, details: { finish_reason: 'content_filter' } };
    default:
      return { category: 'unknown', raw: finishReason };
  }
}
