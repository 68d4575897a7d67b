/**
 * Serving recorded response bodies (the shared wire fixtures, or what a team
 * captured): a JSON document, a `.chunks.txt` file (one SSE data payload per
 * line), or raw SSE text.
 */
import { InputError } from '../../src/kernel/index.ts';
import type { WireProvider } from '../names.ts';
import type { Frame, WirePlan } from './plan.ts';
import { sseFrame } from './plan.ts';

export type RecordedFormat = 'json' | 'chunks' | 'sse';

export class RecordedBodyError extends InputError {
  constructor(message: string) {
    super(message);
    this.name = 'RecordedBodyError';
  }
}

/** By file name first (`.chunks.txt`, `.json`), then by content. */
export function detectRecordedFormat(fileName: string, text: string): RecordedFormat {
  if (fileName.endsWith('.chunks.txt')) return 'chunks';
  if (fileName.endsWith('.json')) return 'json';
  if (/^(data|event|id|retry):/m.test(text) || /^:/m.test(text)) return 'sse';
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      JSON.parse(trimmed);
      return 'json';
    } catch {
      // Several JSON objects, one per line: the chunks format.
      if (trimmed.split('\n').every((line) => line.trim() === '' || isJson(line))) return 'chunks';
    }
  }
  throw new RecordedBodyError('not a recognizable response body: expected JSON, one JSON event per line (.chunks.txt), or SSE text');
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * `.chunks.txt` lines as the SSE the API sends: Anthropic and Responses events
 * are named after their `type`; Chat Completions chunks are `data:` only and the
 * stream ends with `data: [DONE]` (the files leave it out; the live API sends it).
 */
/** The event a stream of each named-event protocol begins with: a cut line before any other is served as it. */
const FIRST_EVENT: Readonly<Record<WireProvider, string | null>> = { anthropic: 'message_start', 'openai-responses': 'response.created', 'openai-chat': null };

export function chunksToFrames(provider: WireProvider, text: string): Frame[] {
  const frames: Frame[] = [];
  let previous: string | null = null;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let name: string | null = null;
    if (provider !== 'openai-chat') {
      try {
        const parsed = JSON.parse(line) as { type?: unknown };
        if (typeof parsed.type === 'string') name = parsed.type;
      } catch {
        // A malformed line is served as it is, under the event it was cut from (its `"type"` as far as it reads, else
        // the line before's): the client has to cope with it. Unnamed, an SDK skips it — a cut delta would vanish
        // and its text with it, where the API's bytes end the stream as malformed (outside probe 29, F2).
        name = /^\s*\{\s*"type"\s*:\s*"([^"\\]+)"/.exec(line)?.[1] ?? previous ?? FIRST_EVENT[provider];
      }
      // A keep-alive names nothing a cut line could have been: it is skipped by the SDK, and so would the line be.
      if (name !== 'ping') previous = name ?? previous;
    }
    frames.push(sseFrame(name, line, 'other'));
  }
  if (provider === 'openai-chat' && !frames.some((f) => f.text.startsWith('data: [DONE]'))) {
    frames.push(sseFrame(null, '[DONE]', 'final'));
  }
  return frames;
}

/** Raw SSE text split into events at blank lines; the bytes are served exactly as given. */
export function sseTextToFrames(text: string): Frame[] {
  const frames: Frame[] = [];
  const separator = /\r?\n\r?\n/g;
  let start = 0;
  for (let match = separator.exec(text); match !== null; match = separator.exec(text)) {
    const end = match.index + match[0].length;
    frames.push({ text: text.slice(start, end), tag: 'other' });
    start = end;
  }
  if (start < text.length) frames.push({ text: text.slice(start), tag: 'other' });
  return frames;
}

export interface RecordedPlanOptions {
  readonly format: RecordedFormat;
  /** HTTP status to serve with (default 200). */
  readonly status?: number;
}

export function recordedPlan(provider: WireProvider, text: string, options: RecordedPlanOptions): WirePlan {
  const status = options.status ?? 200;
  switch (options.format) {
    case 'json':
      return { kind: 'body', status, body: text, contentType: 'application/json' };
    case 'chunks':
      return { kind: 'stream', status, frames: chunksToFrames(provider, text), end: 'close' };
    case 'sse':
      return { kind: 'stream', status, frames: sseTextToFrames(text), end: 'close' };
  }
}

/**
 * The HTTP status a provider sends an error body with, read from its error type
 * or code; undefined when the body is not an error body.
 */
export function errorBodyStatus(provider: WireProvider, body: unknown): { status: number; because: string } | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const error = (body as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { type, code } = error as { type?: unknown; code?: unknown };
  if (provider === 'anthropic') {
    if ((body as { type?: unknown }).type !== 'error') return undefined;
    const byType: Record<string, number> = {
      invalid_request_error: 400,
      authentication_error: 401,
      billing_error: 402,
      permission_error: 403,
      not_found_error: 404,
      request_too_large: 413,
      rate_limit_error: 429,
      api_error: 500,
      overloaded_error: 529,
    };
    const status = typeof type === 'string' ? byType[type] : undefined;
    return status !== undefined ? { status, because: `error.type ${type}` } : { status: 500, because: `unrecognized error.type ${String(type)}` };
  }
  const byCode: Record<string, number> = {
    context_length_exceeded: 400,
    invalid_api_key: 401,
    insufficient_quota: 429,
    rate_limit_exceeded: 429,
    model_not_found: 404,
  };
  if (typeof code === 'string' && byCode[code] !== undefined) return { status: byCode[code]!, because: `error.code ${code}` };
  const byType: Record<string, number> = {
    invalid_request_error: 400,
    authentication_error: 401,
    insufficient_quota: 429,
    tokens: 429,
    requests: 429,
    server_error: 500,
  };
  if (typeof type === 'string' && byType[type] !== undefined) return { status: byType[type]!, because: `error.type ${type}` };
  return { status: 500, because: `unrecognized error type ${String(type)}` };
}
