import { describe, expect, it } from 'vitest';
import { EVENT_SCHEMAS } from './log/catalogue.ts';
import { loopVocabulary } from './vocabulary.ts';

describe('the loop vocabulary', () => {
  const words = loopVocabulary();

  it('holds every event type, field name, enum value and literal of the catalogue, and the codes and span words', () => {
    for (const type of Object.keys(EVENT_SCHEMAS)) expect(words).toContain(type);
    // field names at several depths, enum values, discriminator literals
    for (const word of [
      'callId',
      'status',
      'truncatedFrom',
      'cacheReadTokens',
      'failed_tool',
      'STATEFUL',
      'context_window_exceeded',
      'tool_call',
      'conversation_full',
    ])
      expect(words).toContain(word);
    for (const word of ['NOT_RUN', 'PIPELINE_ERROR', 'TIMEOUT', 'model_call', 'undetermined']) expect(words).toContain(word);
  });

  it('holds no free text: a user string a payload carries is not a word of the loop', () => {
    expect(words).not.toContain('');
    expect(words.every((w) => /^[A-Za-z_.]+$/.test(w))).toBe(true);
  });
});
