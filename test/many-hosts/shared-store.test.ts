/**
 * Two hosts on one store, without a server: each host caches the conversations it
 * opened, so after the other host has written, its cached log is stale. The host
 * must notice (the store holds more than it flushed) and reopen, instead of failing
 * the next message with a conflict. (The many-hosts test shows the same across
 * processes on PostgreSQL.)
 */
import { describe, expect, it } from 'vitest';
import { reply } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { defaultHostConfig } from '../../src/host/config.ts';
import { AgentHost } from '../../src/host/host.ts';
import { decodeRecords } from '../../src/kernel/log/decode.ts';
import { MemoryEventStore } from '../../src/stores/memory-store.ts';

describe('hosts sharing one store', () => {
  it('take turns on one conversation, each continuing from what the other stored', async () => {
    const store = new MemoryEventStore();
    const answering = (name: string) => new ScriptedModelClient([], { onExhausted: (request) => reply(`${name} saw ${request.messages.length} messages`) });
    const hosts = [
      new AgentHost({ config: defaultHostConfig(), store, model: answering('a') }),
      new AgentHost({ config: defaultHostConfig(), store, model: answering('b') }),
    ];
    const replies: (string | undefined)[] = [];
    for (let i = 0; i < 6; i++) {
      const envelope = await hosts[i % 2]!.handle('c', `message ${i}`);
      expect(envelope.status, envelope.error).toBe(200);
      replies.push(envelope.reply);
    }
    // Every request saw the whole conversation so far: both hosts' turns.
    expect(replies).toEqual(['a saw 1 messages', 'b saw 3 messages', 'a saw 5 messages', 'b saw 7 messages', 'a saw 9 messages', 'b saw 11 messages']);
    const events = decodeRecords(await store.read('c'), 'c');
    expect(events.filter((e) => e.type === 'turn.closed')).toHaveLength(6);
  });
});
