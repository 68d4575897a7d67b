/**
 * Errors that are not the provider's HTTP answers: our own protocol checks, JSON
 * that does not parse, a socket that drops mid-body, a request that could not
 * be built.
 */
import type { ModelResult } from '../../src/kernel/index.ts';
import type { CallContext } from './call-runner.ts';
import { describeError } from './call-runner.ts';
import { transportFailure } from './results.ts';

/** The stream broke the provider's protocol (an event out of place, a bad shape). */
export class MalformedStreamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedStreamError';
  }
}

export function classifyOtherError(error: unknown, ctx: CallContext): ModelResult {
  if (error instanceof MalformedStreamError) return transportFailure('malformed_stream', error.message);
  if (error instanceof SyntaxError) return transportFailure('malformed_stream', `the stream carried data that is not valid JSON (${error.message})`);
  if (ctx.phase === 'stream') return transportFailure('network', `the connection failed while reading the stream: ${describeError(error)}`);
  return transportFailure('invalid_request', `could not send the request: ${describeError(error)}`);
}
