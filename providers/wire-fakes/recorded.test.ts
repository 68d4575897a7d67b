import { describe, expect, it } from 'vitest';
import { RecordedBodyError, chunksToFrames, detectRecordedFormat, errorBodyStatus, sseTextToFrames } from './recorded.ts';

describe('recorded bodies', () => {
  it('detects the format by file name, then by content', () => {
    expect(detectRecordedFormat('a.chunks.txt', '{}')).toBe('chunks');
    expect(detectRecordedFormat('a.json', 'x')).toBe('json');
    expect(detectRecordedFormat('capture.txt', 'event: ping\ndata: {}\n\n')).toBe('sse');
    expect(detectRecordedFormat('capture', '{"a":1}')).toBe('json');
    expect(detectRecordedFormat('capture', '{"a":1}\n{"b":2}\n')).toBe('chunks');
    expect(() => detectRecordedFormat('capture', 'hello')).toThrow(RecordedBodyError);
  });

  it('names Anthropic and Responses events after their type, and ends Chat streams with [DONE]', () => {
    expect(chunksToFrames('anthropic', '{"type":"ping"}\n\n{"type":"message_stop"}').map((f) => f.text)).toEqual([
      'event: ping\ndata: {"type":"ping"}\n\n',
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    ]);
    expect(chunksToFrames('openai-chat', '{"choices":[]}\n').map((f) => f.text)).toEqual(['data: {"choices":[]}\n\n', 'data: [DONE]\n\n']);
    expect(chunksToFrames('openai-chat', '{"choices":[]}\n[DONE]').map((f) => f.text)).toEqual(['data: {"choices":[]}\n\n', 'data: [DONE]\n\n']);
  });

  it('serves raw SSE byte for byte, including an unterminated last event', () => {
    const text = 'event: a\r\ndata: 1\r\n\r\ndata: 2\n\ndata: 3';
    const frames = sseTextToFrames(text);
    expect(frames.map((f) => f.text).join('')).toBe(text);
    expect(frames).toHaveLength(3);
  });

  it('infers the status a provider sends an error body with', () => {
    expect(errorBodyStatus('anthropic', { type: 'error', error: { type: 'overloaded_error', message: 'x' } })).toMatchObject({ status: 529 });
    expect(errorBodyStatus('anthropic', { type: 'error', error: { type: 'invalid_request_error', message: 'x' } })).toMatchObject({ status: 400 });
    expect(errorBodyStatus('openai-chat', { error: { type: 'insufficient_quota', code: 'insufficient_quota' } })).toMatchObject({ status: 429 });
    expect(errorBodyStatus('openai-responses', { error: { type: 'invalid_request_error', code: null } })).toMatchObject({ status: 400 });
    expect(errorBodyStatus('openai-chat', { choices: [] })).toBeUndefined();
    expect(errorBodyStatus('anthropic', { type: 'message', content: [] })).toBeUndefined();
  });
});
