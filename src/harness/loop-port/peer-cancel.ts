/** The reason the harness aborts a peer's turn with: which cancel source fired first. */
import type { CancelSource } from '../../kernel/index.ts';

/**
 * Known by a registered symbol, not by its class: the harness that aborts and the
 * adapter that reads the abort may be two copies of loopgate (the command's built
 * one, a config's import of another), and a cancel one copy sent must read as a
 * cancel in the other, not as a failure.
 */
const PEER_CANCEL = Symbol.for('loopgate.PeerCancel');

export class PeerCancel extends Error {
  readonly by: CancelSource;
  readonly [PEER_CANCEL] = true;
  constructor(by: CancelSource) {
    super(`scenario: cancel by ${by}`);
    this.name = 'PeerCancel';
    this.by = by;
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as { [PEER_CANCEL]?: unknown })[PEER_CANCEL] === true;
  }
}

/** The cancel behind an abort, if the signal was aborted by the harness. */
export function cancelOf(signal: AbortSignal): PeerCancel | undefined {
  return signal.aborted && signal.reason instanceof PeerCancel ? (signal.reason as PeerCancel) : undefined;
}
