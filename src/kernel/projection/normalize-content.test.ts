/**
 * normalizeAssistantContent's shortcut (only calls, or only text, nothing to drop
 * or rewrite: the blocks copied as they are) against the rule written out in full:
 * text first, blank text dropped, calls in order without the log's repeat link.
 */
import { describe, expect, it } from 'vitest';
import type { AssistantBlock } from '../model/client.ts';
import { normalizeAssistantContent } from './invariants/tool-pairing.ts';

function reference(content: readonly AssistantBlock[]): AssistantBlock[] {
  const text = content.filter((b) => b.type === 'text' && b.text.trim().length > 0);
  const calls = content
    .filter((b) => b.type === 'tool_call')
    .map((b) => ('repeatOf' in b && b.type === 'tool_call' ? { type: 'tool_call' as const, id: b.id, name: b.name, args: b.args } : b));
  return [...text, ...calls];
}

const BLOCKS: AssistantBlock[] = [
  { type: 'text', text: 'hello' },
  { type: 'text', text: '\n\n' },
  { type: 'text', text: '' },
  { type: 'tool_call', id: 'a', name: 't', args: { x: 1 } },
  { type: 'tool_call', id: 'b', name: 't', args: {}, repeatOf: 'a' } as AssistantBlock,
];

describe('normalizeAssistantContent', () => {
  it('gives what the rule gives for every list of up to four blocks', () => {
    let lists: AssistantBlock[][] = [[]];
    let checked = 0;
    for (let length = 0; length <= 4; length++) {
      for (const list of lists) {
        const got = normalizeAssistantContent(list);
        expect(got).toEqual(reference(list));
        expect(got).not.toBe(list);
        checked++;
      }
      lists = lists.flatMap((l) => BLOCKS.map((b) => [...l, b]));
    }
    expect(checked).toBe(1 + 5 + 25 + 125 + 625);
  });
});
