/**
 * Invariant 6 from outside a loop: every request the model received, and every persisted history, pairs each call
 * with one result — in any order within the message, as every provider takes them (the AI SDK answers a step's
 * approved calls before its denied ones: outside probe 46); loopgate's own loop is held to call order.
 */
import { referencePairing } from '../support/reference-pairing.ts';
import type { PeerRun } from '../../loop-port/peer-run.ts';

export function pairedObservably(run: PeerRun): string | undefined {
  for (let i = 0; i < run.requests.length; i++) {
    const v = referencePairing(run.requests[i]!.messages, undefined, 'any order');
    if (v) return `request ${i + 1}, message ${v.messageIndex}: ${v.problem}`;
  }
  for (let t = 0; t < run.histories.length; t++) {
    const v = referencePairing(run.histories[t]!, undefined, 'any order');
    const when = t < run.histories.length - 1 ? `when turn ${t} started` : 'at the end';
    if (v) return `the persisted history ${when}, message ${v.messageIndex}: ${v.problem} (the next request would carry it)`;
  }
  return undefined;
}
