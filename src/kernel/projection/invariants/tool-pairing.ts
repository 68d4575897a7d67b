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
import type { AssistantBlock, Message } from '../../model/client.ts';

/**
 * Text first, then tool calls in their original order; text that is empty or
 * only whitespace dropped (the "\n\n" a model writes before a call): a provider
 * refuses such a block, and the history would carry it to every later request.
 */
export function normalizeAssistantContent(content: readonly AssistantBlock[]): AssistantBlock[] {
  // The common shapes — only calls, or only text — with nothing to drop or rewrite: the blocks as they are, in one copy.
  if (isNormalAssistantContent(content)) return [...content]; // frozen: a spread stays on V8's fast path, `slice` leaves it
  const text: AssistantBlock[] = [];
  const calls: AssistantBlock[] = [];
  for (let k = 0; k < content.length; k++) {
    const block = content[k]!;
    if (block.type === 'text') {
      if (block.text.trim().length > 0) text.push(block);
    } else calls.push('repeatOf' in block ? { type: 'tool_call', id: block.id, name: block.name, args: block.args } : block); // the log's link is not the model's
  }
  return calls.length === 0 ? text : [...text, ...calls];
}

/**
 * Does `normalizeAssistantContent` give back these very blocks, in this order?
 * Only calls (none a repeat, whose link is the log's) or only text (none blank).
 */
export function isNormalAssistantContent(content: readonly AssistantBlock[]): boolean {
  let texts = 0;
  for (let k = 0; k < content.length; k++) {
    const block = content[k]!;
    if (block.type === 'text') {
      texts++;
      if (block.text.trim().length === 0) return false;
    } else if ('repeatOf' in block) return false;
  }
  return texts === 0 || texts === content.length;
}

export interface PairingViolation {
  readonly messageIndex: number;
  readonly problem: string;
}

/** Messages by index: an array, or the projection's persistent list. */
export interface MessageSource {
  readonly length: number;
  at(index: number): Message | undefined;
}

export function checkToolPairing(messages: readonly Message[] | MessageSource): PairingViolation | undefined {
  return checkToolPairingFrom(messages, 0).violation;
}

/**
 * `checkToolPairing`, resumed at message `from`: each message is checked only
 * against the one before it (a user message answers the calls of the assistant
 * message right before it), so messages before `from` that passed before and have
 * not changed need no second look. `checkedUpTo` is the first message that failed
 * its check, or the message count when none did; resuming there gives the same
 * answer as checking from the start.
 */
export function checkToolPairingFrom(
  messages: readonly Message[] | MessageSource,
  from: number,
): { readonly violation: PairingViolation | undefined; readonly checkedUpTo: number } {
  let expected: readonly string[] = from > 0 ? callIdsOf(messages.at(from - 1)!) : NONE;
  for (let i = from; i < messages.length; i++) {
    const message = messages.at(i)!;
    if (message.role === 'assistant') {
      if (expected.length > 0) return failed(i, `tool calls ${expected.join(', ')} have no result before the next assistant message`);
      let seenCall = false;
      const calls: string[] = [];
      for (let k = 0; k < message.content.length; k++) {
        const block = message.content[k]!;
        if (block.type === 'tool_call') {
          seenCall = true;
          calls.push(block.id);
        } else if (seenCall) {
          return failed(i, 'text after a tool call in the same assistant message');
        }
      }
      expected = calls;
      continue;
    }
    // user message: its results, in order, must be the calls waiting (compared as they are read; listed only for an error)
    let results = 0;
    let matches = true;
    let seenText = false;
    for (let k = 0; k < message.content.length; k++) {
      const block = message.content[k]!;
      if (block.type === 'tool_result') {
        if (seenText) return failed(i, `tool result ${block.callId} after text in the same user message`);
        if (results >= expected.length || block.callId !== expected[results]) matches = false;
        results++;
      } else seenText = true;
    }
    if (results !== expected.length || !matches) {
      return failed(i, `tool results [${resultIdsOf(message).join(', ')}] do not match the calls [${expected.join(', ')}] in order`);
    }
    expected = NONE;
  }
  if (expected.length > 0) {
    return { violation: { messageIndex: messages.length - 1, problem: `tool calls ${expected.join(', ')} have no result` }, checkedUpTo: messages.length };
  }
  return { violation: undefined, checkedUpTo: messages.length };
}

function failed(messageIndex: number, problem: string) {
  return { violation: { messageIndex, problem }, checkedUpTo: messageIndex };
}

/** No calls waiting (shared, never written). */
const NONE: readonly string[] = Object.freeze([]);

/** The call ids a user message's results answer, in order. */
function resultIdsOf(message: Message): string[] {
  const ids: string[] = [];
  for (let k = 0; k < message.content.length; k++) {
    const block = message.content[k]!;
    if (block.type === 'tool_result') ids.push(block.callId);
  }
  return ids;
}

/** The calls a message leaves waiting for results: an assistant message's, in order; none after a user message. */
function callIdsOf(message: Message): readonly string[] {
  if (message.role !== 'assistant') return NONE;
  const ids: string[] = [];
  for (let k = 0; k < message.content.length; k++) {
    const block = message.content[k]!;
    if (block.type === 'tool_call') ids.push(block.id);
  }
  return ids;
}
