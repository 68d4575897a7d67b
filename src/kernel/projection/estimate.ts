import type { Message } from '../model/client.ts';

/**
 * A provider-independent size estimate (about four characters a token). Used to
 * decide whether a compaction actually shrank the projection — only the
 * comparison matters, not the absolute number.
 */
export function estimateTokens(messages: readonly Message[]): number {
  let chars = 0;
  for (const message of messages) {
    for (const block of message.content) {
      switch (block.type) {
        case 'text':
          chars += block.text.length;
          break;
        case 'tool_call':
          chars += block.name.length + JSON.stringify(block.args ?? null).length;
          break;
        case 'tool_result':
          chars += block.content.length;
          break;
      }
    }
    chars += 8;
  }
  return Math.ceil(chars / 4);
}
