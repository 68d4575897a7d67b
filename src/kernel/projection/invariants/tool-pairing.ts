/**
 * Invariant 6: in every projected request each tool call has exactly one result,
 * in one user message (the next one), in call order; no result without its call;
 * no text after a tool call in the same assistant message.
 *
 * The projection builds messages this way (`normalizeAssistantContent` and the
 * ordered insertion in projection.ts); `checkToolPairing` is the gate the loop runs
 * on every request before it is sent, so a violation becomes `failed{internal}`
 * instead of a request the provider rejects.
 */
import type { AssistantBlock, Message } from '../../../../providers/contract.ts';

/** Text first, then tool calls in their original order; empty text dropped. */
export function normalizeAssistantContent(content: readonly AssistantBlock[]): AssistantBlock[] {
  const text: AssistantBlock[] = [];
  const calls: AssistantBlock[] = [];
  for (const block of content) {
    if (block.type === 'text') {
      if (block.text.length > 0) text.push(block);
    } else calls.push(block);
  }
  return calls.length === 0 ? text : [...text, ...calls];
}

export interface PairingViolation {
  readonly messageIndex: number;
  readonly problem: string;
}

export function checkToolPairing(messages: readonly Message[]): PairingViolation | undefined {
  let expected: string[] = [];
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === 'assistant') {
      if (expected.length > 0) return { messageIndex: i, problem: `tool calls ${expected.join(', ')} have no result before the next assistant message` };
      let seenCall = false;
      const calls: string[] = [];
      for (const block of message.content) {
        if (block.type === 'tool_call') {
          seenCall = true;
          calls.push(block.id);
        } else if (seenCall) {
          return { messageIndex: i, problem: 'text after a tool call in the same assistant message' };
        }
      }
      expected = calls;
      continue;
    }
    // user message
    const results: string[] = [];
    let seenText = false;
    for (const block of message.content) {
      if (block.type === 'tool_result') {
        if (seenText) return { messageIndex: i, problem: `tool result ${block.callId} after text in the same user message` };
        results.push(block.callId);
      } else seenText = true;
    }
    if (expected.length > 0 || results.length > 0) {
      if (results.length !== expected.length || results.some((id, k) => id !== expected[k])) {
        return {
          messageIndex: i,
          problem: `tool results [${results.join(', ')}] do not match the calls [${expected.join(', ')}] in order`,
        };
      }
    }
    expected = [];
  }
  if (expected.length > 0) {
    return { messageIndex: messages.length - 1, problem: `tool calls ${expected.join(', ')} have no result` };
  }
  return undefined;
}
