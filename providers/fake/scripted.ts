/**
 * The in-process scripted model client: each call takes the next entry of a
 * script. An entry is a normalized result (optionally with deltas and latency) or
 * a function of the request that returns one. Keeps every request it received.
 *
 * It honours the contract: it never rejects, settles once, reports aborts as
 * `transport_error{aborted}` and a passed timeout as `transport_error{timeout}`.
 */
import { type Clock, systemClock, type ModelClient, type ModelDelta, type ModelRequest, type ModelResult } from '../../src/kernel/index.ts';
import { transportError } from './results.ts';

export interface ScriptedEntry {
  readonly result: ModelResult;
  /** Streamed before the result; default: the result's text as one delta. */
  readonly deltas?: readonly ModelDelta[];
  /** Time the call takes before its first delta (on the client's clock). */
  readonly latencyMs?: number;
  /** Delta pacing: time before each delta after the first (on the client's clock). */
  readonly deltaIntervalMs?: number;
  /** Time between the last delta and the result, e.g. a stream that stalls mid-way. */
  readonly tailLatencyMs?: number;
  /** The client does not honour the request's timeout (a hung client): its waits run to the end, and only the loop's own backstop ends the call. */
  readonly ignoresTimeout?: boolean;
}

export type ScriptItem = ModelResult | ScriptedEntry | ((request: ModelRequest, index: number) => ModelResult | ScriptedEntry);

export interface ScriptedModelOptions {
  readonly name?: string;
  /** The model this client is asked for (ModelClient.model); default: none, the loop's model name. */
  readonly model?: string;
  readonly clock?: Clock;
  /** What to do when the script runs out. Default: settle with transport_error{invalid_request}. */
  readonly onExhausted?: (request: ModelRequest, index: number) => ModelResult;
  /**
   * Keep every request in `requests` (default true). A soak test that sends tens of
   * thousands of requests turns it off, so the fake does not hold them all.
   */
  readonly keepRequests?: boolean;
}

export class ScriptedModelClient implements ModelClient {
  readonly name: string;
  readonly model?: string;
  readonly requests: ModelRequest[] = [];
  readonly #script: ScriptItem[];
  readonly #clock: Clock;
  readonly #onExhausted: ScriptedModelOptions['onExhausted'];
  readonly #keepRequests: boolean;
  #calls = 0;

  constructor(script: readonly ScriptItem[], options: ScriptedModelOptions = {}) {
    this.#script = [...script];
    this.name = options.name ?? 'scripted';
    if (options.model !== undefined) this.model = options.model;
    this.#clock = options.clock ?? systemClock;
    this.#onExhausted = options.onExhausted;
    this.#keepRequests = options.keepRequests ?? true;
  }

  /** How many calls the client has received. */
  get calls(): number {
    return this.#calls;
  }

  /** Entries not consumed yet. */
  get remaining(): number {
    return Math.max(0, this.#script.length - this.#calls);
  }

  /** Appends entries (e.g. from a test that scripts as it goes). */
  push(...items: ScriptItem[]): void {
    this.#script.push(...items);
  }

  async call(request: ModelRequest, onDelta?: (delta: ModelDelta) => void): Promise<ModelResult> {
    const index = this.#calls++;
    if (this.#keepRequests) {
      const { signal: _signal, ...recorded } = request;
      this.requests.push(recorded);
    }
    try {
      if (request.signal?.aborted) return transportError('aborted', { message: 'aborted before the call' });
      const item = this.#script[index];
      if (item === undefined) {
        return this.#onExhausted
          ? this.#onExhausted(request, index)
          : transportError('invalid_request', { message: `scripted model: script exhausted at call ${index + 1}` });
      }
      const entry = toEntry(typeof item === 'function' ? item(request, index) : item);
      // Waits spend one budget: the request's timeout covers the whole call.
      let budget = entry.ignoresTimeout ? undefined : request.timeoutMs;
      const wait = async (ms: number | undefined): Promise<ModelResult | undefined> => {
        if (!ms || ms <= 0) return undefined;
        const slept = budget !== undefined ? Math.min(budget, ms) : ms;
        await this.#clock.sleep(slept, request.signal);
        if (request.signal?.aborted) return transportError('aborted', { message: 'aborted during the call' });
        if (budget !== undefined) {
          budget -= slept;
          if (ms > slept) return transportError('timeout', { message: `no response within ${request.timeoutMs} ms` });
        }
        return undefined;
      };
      const early = await wait(entry.latencyMs);
      if (early) return early;
      const deltas = entry.deltas ?? defaultDeltas(entry.result);
      for (const [i, delta] of deltas.entries()) {
        if (i > 0) {
          const interrupted = await wait(entry.deltaIntervalMs);
          if (interrupted) return interrupted;
        }
        try {
          onDelta?.(delta);
        } catch {
          // A throwing listener is the caller's bug; like the adapters, the call goes on.
        }
      }
      const late = await wait(entry.tailLatencyMs);
      if (late) return late;
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
