import { describe, expect, it } from 'vitest';
import { classifyFailure, type FailureInfo } from './failure.ts';

const never = () => false;

describe('classifyFailure', () => {
  it('maps HTTP statuses to transport error kinds', () => {
    const kind = (info: FailureInfo) => {
      const result = classifyFailure(info, never);
      return result.type === 'transport_error' ? [result.kind, result.status] : [result.type];
    };
    expect(kind({ status: 401, message: 'bad key' })).toEqual(['auth', 401]);
    expect(kind({ status: 403, message: 'no' })).toEqual(['auth', 403]);
    expect(kind({ status: 400, message: 'bad' })).toEqual(['invalid_request', 400]);
    expect(kind({ status: 404, message: 'no model' })).toEqual(['invalid_request', 404]);
    expect(kind({ status: 500, message: 'boom' })).toEqual(['server_error', 500]);
    expect(kind({ status: 502, message: 'bad gateway' })).toEqual(['server_error', 502]);
    expect(kind({ status: 503, message: 'unavailable' })).toEqual(['overloaded', 503]);
    expect(kind({ status: 529, message: 'Overloaded' })).toEqual(['overloaded', 529]);
    expect(kind({ status: 408, message: 'timeout' })).toEqual(['timeout', 408]);
  });

  it('keeps retry-after on a 429', () => {
    expect(classifyFailure({ status: 429, headers: new Headers({ 'retry-after': '3' }), message: 'slow down' }, never)).toEqual({
      type: 'transport_error',
      kind: 'rate_limited',
      message: 'slow down',
      status: 429,
      retryAfterMs: 3000,
    });
  });

  it('treats insufficient quota as an account problem, not a rate limit', () => {
    const result = classifyFailure({ status: 429, type: 'insufficient_quota', code: 'insufficient_quota', message: 'quota' }, never);
    expect(result).toMatchObject({ type: 'transport_error', kind: 'auth', status: 429 });
  });

  it('asks the provider detector about overflow before anything else', () => {
    const result = classifyFailure({ status: 400, message: 'prompt is too long' }, (info) => info.message.includes('too long'));
    expect(result).toEqual({ type: 'context_window_exceeded', at: 'request', content: [], message: 'prompt is too long' });
  });

  it('classifies stream errors by type, code and message', () => {
    const kind = (info: FailureInfo) => {
      const result = classifyFailure(info, never);
      return result.type === 'transport_error' ? result.kind : result.type;
    };
    expect(kind({ type: 'overloaded_error', message: 'Overloaded' })).toBe('overloaded');
    expect(kind({ type: 'server_error', message: 'The server is overloaded or not ready yet.' })).toBe('overloaded');
    expect(kind({ type: 'server_error', message: 'Sorry, something went wrong.' })).toBe('server_error');
    expect(kind({ type: 'api_error', message: 'Internal server error' })).toBe('server_error');
    expect(kind({ code: 'rate_limit_exceeded', message: 'TPM' })).toBe('rate_limited');
    expect(kind({ type: 'invalid_request_error', message: 'bad' })).toBe('invalid_request');
    expect(kind({ type: 'authentication_error', message: 'bad key' })).toBe('auth');
  });
});
