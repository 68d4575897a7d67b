/**
 * The deltas of one model call, on their way to the log. Each stream — the
 * call's text, and the argument text of each tool call — goes through its own
 * stream redactor (../redact/stream.ts), so a secret split across deltas is held
 * back until it can be redacted whole: joining the stored deltas never rebuilds
 * it. A tool call's start ends the text stream (a text block ends where a call
 * begins); `end()` lets out what every stream still holds once the call settled.
 */
import type { ModelDelta } from '../model/client.ts';
import type { Redactor, StreamRedactor } from '../redact/index.ts';

/** How a stream of text is redacted across its pieces (LoopDeps.streamRedaction). */
export type StreamRedaction = (redact: Redactor) => StreamRedactor;

export class DeltaStreams {
  readonly #open: (redact: Redactor) => StreamRedactor;
  readonly #redact: Redactor;
  #text: StreamRedactor | undefined;
  readonly #args = new Map<number, StreamRedactor>();

  constructor(redact: Redactor, open: StreamRedaction) {
    this.#redact = redact;
    this.#open = open;
  }

  /** The deltas that may be stored now for `delta` (none, while a stream holds its tail back). */
  push(delta: ModelDelta): ModelDelta[] {
    switch (delta.kind) {
      case 'text': {
        this.#text ??= this.#open(this.#redact);
        return textDelta(this.#text.push(delta.text));
      }
      case 'tool_args': {
        let stream = this.#args.get(delta.index);
        if (!stream) this.#args.set(delta.index, (stream = this.#open(this.#redact)));
        return argsDelta(delta.index, stream.push(delta.json));
      }
      case 'tool_call_start': {
        const held = this.#endText();
        return [...held, delta];
      }
      default:
        return [delta];
    }
  }

  /** The call settled: what every stream still holds. */
  end(): ModelDelta[] {
    const out = this.#endText();
    for (const [index, stream] of this.#args) out.push(...argsDelta(index, stream.end()));
    this.#args.clear();
    return out;
  }

  #endText(): ModelDelta[] {
    const text = this.#text;
    this.#text = undefined;
    return text ? textDelta(text.end()) : [];
  }
}

function textDelta(text: string): ModelDelta[] {
  return text.length > 0 ? [{ kind: 'text', text }] : [];
}

function argsDelta(index: number, json: string): ModelDelta[] {
  return json.length > 0 ? [{ kind: 'tool_args', index, json }] : [];
}
