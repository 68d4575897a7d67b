/**
 * No request sends a text block that is empty or only whitespace. Anthropic's
 * API refuses such a block with a 400 ("text content blocks must contain
 * non-whitespace text"), and since the history is sent again on every turn, a
 * blank block that reached the history wedges the conversation: every later
 * message fails the same way. Field reports: claude-code #23369 and #23440,
 * home-assistant #175637, LibreChat agents #124, hermes-agent #69517 — a user
 * message of spaces, or the "\n\n" a model writes before a tool call, sent back.
 *
 * Read from the requests as they left for the provider, so it holds whatever
 * the projection did: a message that says nothing is dropped, and a model's
 * whitespace between its calls is not sent back.
 */
import type { Message } from '../../kernel/index.ts';
import type { SentRequest } from '../world/recording-model.ts';
import { defineInvariant } from './invariant.ts';

export const requestsHoldNoBlankText = defineInvariant({
  id: 'requests-hold-no-blank-text',
  title: 'no request sends a text block that is empty or only whitespace (a provider refuses it, and the history would carry it to every later turn)',
  check: (run) => blankTextIn(run.requests),
  checkObservable: (run) => blankTextIn(run.requests),
});

function blankTextIn(requests: readonly SentRequest[]): string | undefined {
  for (let r = 0; r < requests.length; r++) {
    const messages: readonly Message[] = requests[r]!.messages;
    for (let m = 0; m < messages.length; m++) {
      const content = messages[m]!.content;
      for (let b = 0; b < content.length; b++) {
        const block = content[b]!;
        if (block.type === 'text' && block.text.trim().length === 0) {
          return `request ${r + 1}, message ${m + 1} (${messages[m]!.role}), block ${b + 1}: a text block that is ${block.text === '' ? 'empty' : `only whitespace (${JSON.stringify(block.text)})`}`;
        }
      }
    }
  }
  return undefined;
}
