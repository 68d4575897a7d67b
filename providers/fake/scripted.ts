/**
 * The in-process scripted model client: each call takes the next entry of a
 * script. An entry is a normalized result (optionally with deltas and latency) or
 * a function of the request that returns one. Keeps every request it received.
 *
 * It honours the contract: it never rejects, settles once, reports aborts as
 * `transport_error{aborted}` and a passed timeout as `transport_error{timeout}`.
 */
import type { Clock } from '../../src/kernel/clock.ts';
import { systemClock } from '../../src/kernel/clock.ts';
import type { ModelClient, ModelDelta, ModelRequest, ModelResult } from '../contract.ts';
import { transportError } from './results.ts';

export interface ScriptedEntry {
  readonly result: ModelResult;
  /** Streamed before the result; default: the result's text as one delta. */
  readonly deltas?: readonly ModelDelta[];
  /** Time the call takes (on the client's clock). */
  readonly latencyMs?: number;
}

export type ScriptItem = ModelResult | ScriptedEntry | ((request: ModelRequest, index: number) => ModelResult | ScriptedEntry);

export interface ScriptedModelOptions {
  readonly name?: string;
  readonly clock?: Clock;
  /** What to do when the script runs out. Default: settle with transport_error{invalid_request}. */
  readonly onExhausted?: (request: ModelRequest, index: number) => ModelResult;
}

export class ScriptedModelClient implements ModelClient {
  readonly name: string;
  readonly requests: ModelRequest[] = [];
  readonly #script: ScriptItem[];
  readonly #clock: Clock;
  readonly #onExhausted: ScriptedModelOptions['onExhausted'];

  constructor(script: readonly ScriptItem[], options: ScriptedModelOptions = {}) {
    this.#script = [...script];
    this.name = options.name ?? 'scripted';
    this.#clock = options.clock ?? systemClock;
    this.#onExhausted = options.onExhausted;
  }

  /** Entries not consumed yet. */
  get remaining(): number {
    return this.#script.length - this.requests.length;
  }

  /** Appends entries (e.g. from a test that scripts as it goes). */
  push(...items: ScriptItem[]): void {
    this.#script.push(...items);
  }

  async call(request: ModelRequest, onDelta?: (delta: ModelDelta) => void): Promise<ModelResult> {
    const index = this.requests.length;
    const { signal: _signal, ...recorded } = request;
    this.requests.push(recorded);
    try {
      if (request.signal?.aborted) return transportError('aborted', { message: 'aborted before the call' });
      const item = this.#script[index];
      if (item === undefined) {
        return this.#onExhausted
          ? this.#onExhausted(request, index)
          : transportError('invalid_request', { message: `scripted model: script exhausted at call ${index + 1}` });
      }
      const entry = toEntry(typeof item === 'function' ? item(request, index) : item);
      if (entry.latencyMs && entry.latencyMs > 0) {
        const timeout = request.timeoutMs;
        const wait = timeout !== undefined ? Math.min(timeout, entry.latencyMs) : entry.latencyMs;
        await this.#clock.sleep(wait, request.signal);
        if (request.signal?.aborted) return transportError('aborted', { message: 'aborted during the call' });
        if (timeout !== undefined && entry.latencyMs > timeout) {
          return transportError('timeout', { message: `no response within ${timeout} ms` });
        }
      }
      if (onDelta) {
        for (const delta of entry.deltas ?? defaultDeltas(entry.result)) onDelta(delta);
      }
      return entry.result;
    } catch (error) {
      // A throwing script function is a broken script; the contract still holds.
      return transportError('invalid_request', { message: `scripted model: ${(error as Error).message}` });
    }
  }
}

function toEntry(item: ModelResult | ScriptedEntry): ScriptedEntry {
  return 'result' in item ? item : { result: item };
}

function defaultDeltas(result: ModelResult): ModelDelta[] {
  if ('text' in result && typeof result.text === 'string' && result.text.length > 0) {
    return [{ kind: 'text', text: result.text }];
  }
  return [];
}
