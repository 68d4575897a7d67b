/** The reason the harness aborts a peer's turn with: which cancel source fired first. */
import type { CancelSource } from '../../kernel/index.ts';

export class PeerCancel extends Error {
  readonly by: CancelSource;
  constructor(by: CancelSource) {
    super(`scenario: cancel by ${by}`);
    this.name = 'PeerCancel';
    this.by = by;
  }
}

/** The cancel behind an abort, if the signal was aborted by the harness. */
export function cancelOf(signal: AbortSignal): PeerCancel | undefined {
  return signal.aborted && signal.reason instanceof PeerCancel ? signal.reason : undefined;
}
