import { describe, expect, it } from 'vitest';
import { requestLines } from './step-requests.ts';

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
