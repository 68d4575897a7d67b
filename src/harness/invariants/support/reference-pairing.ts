/**
 * Invariant 6's own reading of a message list, written apart from the kernel's
 * `checkToolPairing` (which the loop runs before each request): a gate that judged
 * pairing with the function under test would pass whatever that function let
 * through, for loopgate's loop and for a peer's alike. Deliberately plain: the
 * calls of each assistant message, then the results of the message after it; and
 * each call id once in the whole list — a model may repeat an id, and a loop that
 * keeps it twice (or a history glue that copies a turn twice: outside probe 28,
 * F3) sends a request the provider refuses.
 */
import type { Message } from '../../../kernel/index.ts';

export interface ReferencePairingViolation {
  readonly messageIndex: number;
  readonly problem: string;
}

/**
 * `order`: loopgate's loop answers a step's calls in call order (DESIGN, invariant 6); a provider takes them in any
 * order, one each, and an SDK may answer them so (the AI SDK answers approved calls before denied ones): the outside
 * view of a peer asks what the provider asks.
 * `leftOpen`: calls that may end the messages without a result — the calls in flight of a turn no process could close (a
 * store refused after a crash keeps its last turn open, so its calls have no result yet). Only at the very end: a call
 * followed by another assistant message is unanswered whatever the set says.
 */
export function referencePairing(
  messages: readonly Message[],
  leftOpen: ReadonlySet<string> = new Set(),
  order: 'call order' | 'any order' = 'call order',
): ReferencePairingViolation | undefined {
  let open: string[] = []; // calls of the message before, waiting for their results
  const seen = new Set<string>(); // every call id so far: a provider refuses a request that repeats one (Anthropic, OpenAI: 400)
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    const blocks = message.content as readonly { readonly type: string; readonly id?: string; readonly callId?: string }[];
    if (message.role === 'assistant') {
      if (open.length > 0) return { messageIndex: i, problem: `tool calls ${open.join(', ')} have no result before the next assistant message` };
      const firstCall = blocks.findIndex((b) => b.type === 'tool_call');
      if (firstCall >= 0 && blocks.slice(firstCall).some((b) => b.type !== 'tool_call'))
        return { messageIndex: i, problem: 'text after a tool call in the same assistant message' };
      open = blocks.filter((b) => b.type === 'tool_call').map((b) => b.id!);
      for (const id of open) {
        if (seen.has(id)) return { messageIndex: i, problem: `tool call id ${id} is used again (a provider refuses a request that repeats a call id)` };
        seen.add(id);
      }
      continue;
    }
    const firstText = blocks.findIndex((b) => b.type !== 'tool_result');
    if (firstText >= 0 && blocks.slice(firstText).some((b) => b.type === 'tool_result'))
      return { messageIndex: i, problem: 'a tool result after text in the same user message' };
    const results = blocks.filter((b) => b.type === 'tool_result').map((b) => b.callId!);
    const answered = order === 'call order' ? results : [...results].sort();
    const asked = order === 'call order' ? open : [...open].sort();
    if (answered.join('\u0000') !== asked.join('\u0000'))
      return {
        messageIndex: i,
        problem: `tool results [${results.join(', ')}] do not answer the calls [${open.join(', ')}] one each${order === 'call order' ? ', in order' : ''}`,
      };
    open = [];
  }
  const unanswered = open.filter((id) => !leftOpen.has(id));
  if (unanswered.length > 0) return { messageIndex: messages.length - 1, problem: `tool calls ${unanswered.join(', ')} have no result` };
  return undefined;
}
