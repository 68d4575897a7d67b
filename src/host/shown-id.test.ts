/** An answer about a bad conversation id shows it escaped and cut: no raw control or bidi character, no 5,000-character echo. */
import { afterEach, describe, expect, it } from 'vitest';
import { reply } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { MemoryEventStore } from '../stores/memory-store.ts';
import { defaultHostConfig } from './config.ts';
import { AgentHost } from './host.ts';
import { shownId } from './shown-id.ts';

let host: AgentHost | undefined;
afterEach(async () => {
  await host?.close();
  host = undefined;
});

const answer = (id: string) => {
  host = new AgentHost({ config: defaultHostConfig(), store: new MemoryEventStore(), model: new ScriptedModelClient([reply('hi')]) });
  return host.handle(id, 'hi');
};

describe('shownId', () => {
  it('escapes control, bidi and other invisible characters as \\u escapes', () => {
    expect(shownId('a\u202eb\u0000c\u200bd\u2028e\u001b')).toBe('a\\u202eb\\u0000c\\u200bd\\u2028e\\u001b');
    expect(shownId('conv-1')).toBe('conv-1');
    expect(shownId(42)).toBe('42');
    expect(shownId('a"b\\c')).toBe('a\\"b\\\\c');
  });

  it('cuts a long id to its first 64 characters and says how long it was', () => {
    expect(shownId('x'.repeat(5_000))).toBe(`${'x'.repeat(64)}… (5000 characters)`);
    expect(shownId('x'.repeat(64))).toBe('x'.repeat(64));
  });
});

describe('handle() with a bad conversation id', () => {
  it('a bidi override is escaped, in the error and in the envelope', async () => {
    const envelope = await answer('\u202e');
    expect(envelope.status).toBe(400);
    expect(envelope.conversationId).toBe('\\u202e');
    expect(envelope.error).toBe('invalid conversation id "\\u202e": use 1-200 letters, digits, ".", "_", ":" or "-"');
    expect(JSON.stringify(envelope)).not.toMatch(/[\u202e]/);
  });

  it('an id holding a secret is redacted in the envelope too, not only in the error (a character outside the id syntax: refused before the secret check)', async () => {
    const secret = 'Pw~~>>??-9f8e7d6c-Ωmega';
    host = new AgentHost({ config: defaultHostConfig(), store: new MemoryEventStore(), model: new ScriptedModelClient([reply('hi')]), secrets: [secret] });
    const envelope = await host.handle(`conv-${secret}`, 'hi');
    expect(envelope.status).toBe(400);
    expect(envelope.conversationId).toBe('conv-[REDACTED]');
    expect(JSON.stringify(envelope)).not.toContain(secret);
  });

  it('a 5,000-character id is cut, in the error and in the envelope', async () => {
    const envelope = await answer('é'.repeat(5_000));
    expect(envelope.status).toBe(400);
    expect(envelope.conversationId).toBe(`${'é'.repeat(64)}… (5000 characters)`);
    expect(envelope.error).toBe(`invalid conversation id "${'é'.repeat(64)}… (5000 characters)": use 1-200 letters, digits, ".", "_", ":" or "-"`);
  });
});
