import { describe, expect, it, vi } from 'vitest';
import type { Message } from '../model/client.ts';
import { MessageList } from '../projection/message-list.ts';
import { requestWithMessages } from './request-messages.ts';

const msg = (n: number): Message => ({ role: n % 2 ? 'assistant' : 'user', content: [{ type: 'text', text: `m${n}` }] }) as Message;

function listOf(n: number): MessageList {
  let list = MessageList.EMPTY;
  for (let i = 0; i < n; i++) list = list.push(msg(i));
  return list;
}

const fields = { model: 'm', system: 's', tools: [], maxTokens: 10, signal: new AbortController().signal };

describe('request messages from the persistent list', () => {
  it('a short history: the frozen array, at once, in the request key order', () => {
    const list = listOf(3);
    const request = requestWithMessages(list, { ...fields, temperature: 0.5 });
    expect(Object.getOwnPropertyDescriptor(request, 'messages')).toMatchObject({ value: list.toArray(), enumerable: true });
    expect(Object.keys(request)).toEqual(['model', 'system', 'messages', 'tools', 'maxTokens', 'signal', 'temperature']);
  });

  it('a long history: made an array only when read, then the same frozen array; spreads and rest copies carry it', () => {
    const list = listOf(5_000);
    const toArray = vi.spyOn(list, 'toArray');
    const request = requestWithMessages(list, fields);
    expect(toArray).not.toHaveBeenCalled();
    expect(Object.keys(request)).toEqual(['model', 'system', 'messages', 'tools', 'maxTokens', 'signal']);
    const { signal: _signal, ...sent } = request;
    expect(sent.messages).toHaveLength(5_000);
    expect(Object.isFrozen(sent.messages)).toBe(true);
    expect({ ...request, timeoutMs: 5 }.messages).toBe(sent.messages);
    expect(JSON.parse(JSON.stringify(request)).messages).toHaveLength(5_000);
    expect(request.messages[4_999]).toEqual(msg(4_999));
    // Read through another object (a Proxy of the request, an object whose prototype it is): the same array.
    expect(new Proxy(request, {}).messages).toBe(sent.messages);
    expect((Object.create(request) as typeof request).messages).toBe(sent.messages);
  });

  it('keeps the messages as they were when the request was made, whatever the list becomes', () => {
    const list = listOf(1_000);
    const request = requestWithMessages(list, fields);
    const later = list.push(msg(1_000)).set(0, msg(99));
    expect(later.length).toBe(1_001);
    expect(request.messages).toHaveLength(1_000);
    expect(request.messages[0]).toEqual(msg(0));
  });
});
