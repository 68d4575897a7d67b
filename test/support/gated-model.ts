/**
 * A model client the test answers by hand: every call waits until the test
 * answers it, so a test can act while a turn is mid-request (post a steer, cancel,
 * halt the host) without timing. It honours the contract: it never rejects, and an
 * aborted request settles as `transport_error{aborted}`.
 */
import { transportError } from '../../providers/fake/results.ts';
import type { ModelClient, ModelDelta, ModelRequest, ModelResult } from '../../src/kernel/model/client.ts';

export interface PendingCall {
  readonly request: ModelRequest;
  answer(result: ModelResult): void;
  /** Streams a delta now, as a provider would before its result (ignored once settled). */
  stream(delta: ModelDelta): void;
  readonly settled: boolean;
}

export class GatedModel implements ModelClient {
  readonly name: string;
  readonly calls: PendingCall[] = [];
  readonly #arrivals: (() => void)[] = [];

  constructor(name = 'gated') {
    this.name = name;
  }

  call(request: ModelRequest, onDelta?: (delta: ModelDelta) => void): Promise<ModelResult> {
    return new Promise<ModelResult>((resolve) => {
      let settled = false;
      const settle = (result: ModelResult) => {
        if (settled) return;
        settled = true;
        request.signal?.removeEventListener('abort', onAbort);
        resolve(result);
      };
      const onAbort = () => settle(transportError('aborted', { message: 'aborted while waiting for the test' }));
      if (request.signal?.aborted) return onAbort();
      request.signal?.addEventListener('abort', onAbort, { once: true });
      this.calls.push({
        request,
        answer: settle,
        stream: (delta) => {
          if (!settled) onDelta?.(delta);
        },
        get settled() {
          return settled;
        },
      });
      for (const arrived of this.#arrivals.splice(0)) arrived();
    });
  }

  /** The `index`-th call (0-based), once it has been made. */
  async nth(index: number, timeoutMs = 5_000): Promise<PendingCall> {
    const deadline = Date.now() + timeoutMs;
    while (this.calls.length <= index) {
      if (Date.now() > deadline) throw new Error(`GatedModel: call ${index} was never made (${this.calls.length} made)`);
      await new Promise<void>((resolve) => {
        this.#arrivals.push(resolve);
        setTimeout(resolve, 50);
      });
    }
    return this.calls[index]!;
  }
}

/** The text of every user text block in a request, in order. */
export function userTexts(request: ModelRequest): string[] {
  return request.messages.flatMap((m) => (m.role === 'user' ? m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])) : []));
}
