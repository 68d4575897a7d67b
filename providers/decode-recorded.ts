/**
 * Runs one recorded response through the named provider's adapter over the
 * wire fake (so the real SDK parses the bytes) and returns the normalized
 * result. For `fake`, the file holds a normalized result, run through the
 * scripted fake.
 */
import { createAdapter } from './clients.ts';
import type { ModelRequest, ModelResult } from '../src/kernel/index.ts';
import { ScriptedModelClient } from './fake/scripted.ts';
import { resultProblems } from './contract-suite/result-schema.ts';
import type { ProviderName } from './names.ts';
import { RecordedBodyError, detectRecordedFormat, errorBodyStatus, recordedPlan, type RecordedFormat } from './wire-fakes/recorded.ts';
import { acquireWireFake } from './wire-fakes/server.ts';

export interface DecodeOptions {
  /** Serve with this HTTP status (default: 200, or the status the provider sends an error body with). */
  readonly status?: number;
  /** Give up after this long (default: no limit of loopgate's own; a large recording takes as long as it takes). */
  readonly timeoutMs?: number;
}

export interface DecodeOutcome {
  readonly result: ModelResult;
  readonly format: RecordedFormat | 'normalized';
  readonly status?: number;
  /** Why this status, when it was inferred from an error body. */
  readonly statusNote?: string;
}

/** The request decoding sends: nothing declared, so nothing in the response depends on it; no time limit unless asked. */
export const DECODE_REQUEST: ModelRequest = {
  model: '',
  system: '',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'decode' }] }],
  tools: [],
  maxTokens: 1024,
};

export async function decodeRecorded(provider: ProviderName, fileName: string, text: string, options: DecodeOptions = {}): Promise<DecodeOutcome> {
  if (provider === 'fake') return decodeForFake(text);
  const format = detectRecordedFormat(fileName, text);
  let status = options.status;
  let statusNote: string | undefined;
  if (status === undefined && format === 'json') {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (error) {
      throw new RecordedBodyError(`not valid JSON: ${(error as Error).message}`);
    }
    const inferred = errorBodyStatus(provider, body);
    if (inferred) {
      status = inferred.status;
      statusNote = `served with status ${inferred.status} (${inferred.because}); pass --status to choose another`;
    }
  }
  status ??= 200;
  const fake = acquireWireFake();
  try {
    const scenario = fake.scenario(recordedPlan(provider, text, { format, status }));
    const client = createAdapter(provider, {
      apiKey: 'decode',
      baseURL: scenario.baseURL(provider),
      model: 'decode',
      // A complete JSON body answers a non-streaming request; chunks and SSE answer a streaming one.
      stream: format !== 'json',
    });
    const result = await client.call(options.timeoutMs !== undefined ? { ...DECODE_REQUEST, timeoutMs: options.timeoutMs } : DECODE_REQUEST);
    return { result, format, status, ...(statusNote ? { statusNote } : {}) };
  } finally {
    fake.release();
  }
}

async function decodeForFake(text: string): Promise<DecodeOutcome> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new RecordedBodyError(`the fake provider reads a normalized result as JSON: ${(error as Error).message}`);
  }
  const problems = resultProblems(value);
  if (problems.length > 0) throw new RecordedBodyError(`not a normalized ModelResult: ${problems.join('; ')}`);
  const client = new ScriptedModelClient([value as ModelResult]);
  return { result: await client.call(DECODE_REQUEST), format: 'normalized' };
}
