import { describe, expect, it } from 'vitest';
import type { LogEvent, Message } from '../kernel/index.ts';
import { MAX_MESSAGE_LINES, requestLines, stepRequests } from './step-requests.ts';

describe('requestLines', () => {
  it('one line per message, each tool result on a line of its own', () => {
    const lines = requestLines({
      model: 'm',
      maxTokens: 512,
      temperature: 0.2,
      system: 'Be brief.',
      tools: [{ name: 'lookup_order', description: 'd', inputSchema: {} }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Where is ORD-1 and ORD-2?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Checking both.' },
            { type: 'tool_call', id: 'a', name: 'lookup_order', args: { order_id: 'ORD-1' } },
            { type: 'tool_call', id: 'b', name: 'lookup_order', args: { order_id: 'ORD-2' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', callId: 'a', status: 'ok', content: '{"status":"shipped"}' },
            { type: 'tool_result', callId: 'b', status: 'failed', content: 'ORDER_NOT_FOUND' },
            { type: 'text', text: 'Also, hurry.' },
          ],
        },
      ],
    });
    expect(lines).toEqual([
      'model: m · max tokens 512 · temperature 0.2',
      'system: Be brief.',
      'tools: lookup_order',
      'user: Where is ORD-1 and ORD-2?',
      'assistant: Checking both. | call lookup_order#a {"order_id":"ORD-1"} | call lookup_order#b {"order_id":"ORD-2"}',
      'user: result#a ok: {"status":"shipped"} | result#b failed: ORDER_NOT_FOUND | Also, hurry.',
    ]);
  });
});

describe('stepRequests of a long conversation', () => {
  // Every request carries the whole history, so the reports grew with the square of a case's length: a 1,000-turn
  // case wrote 34 MB of results.json, and 2,700 turns held the thread for 30 s writing the reports (outside probe
  // 35, F8). A request past MAX_MESSAGE_LINES messages shows its first and last ones and says how to see it whole.
  it('shows a long request by its ends, naming what it left out and where the whole request is', () => {
    const messages: Message[] = Array.from({ length: 500 }, (_, i) => ({
      role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: [{ type: 'text' as const, text: `message ${i}` }],
    }));
    const request = { model: 'm', maxTokens: 512, system: 'Be brief.', tools: [], messages };
    const events = [{ seq: 0, at: 0, type: 'model.request', payload: { turn: 0, step: 0, attempt: 1 } }] as unknown as LogEvent[];
    const [step] = stepRequests({ log: { events } as never, requests: [request], secrets: [] });
    const lines = step!.lines;
    expect(lines.length).toBe(3 + MAX_MESSAGE_LINES + 1);
    expect(lines.slice(0, 4)).toEqual(['model: m · max tokens 512', 'system: Be brief.', 'tools: (none)', 'user: message 0']);
    expect(lines).toContain(`… ${500 - MAX_MESSAGE_LINES} messages not shown (the whole request: loopgate replay --at 0)`);
    expect(lines.at(-1)).toBe('assistant: message 499');
    // A request that fits is shown whole.
    const [short] = stepRequests({ log: { events } as never, requests: [{ ...request, messages: messages.slice(0, MAX_MESSAGE_LINES) }], secrets: [] });
    expect(short!.lines).toHaveLength(3 + MAX_MESSAGE_LINES);
  });
});
