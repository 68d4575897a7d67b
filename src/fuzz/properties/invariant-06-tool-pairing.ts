/**
 * Invariant 6: in every projected request (and the final history) each tool call
 * has exactly one result, in one user message, in call order; no result without
 * its call; no text after a tool call in the same assistant message.
 */
import { toolPairing } from '../../harness/checks/invariants.ts';
import { defineProperty, verdictOf } from '../property.ts';

export const toolPairingProperty = defineProperty({
  name: 'invariant-06-tool-pairing',
  title: 'every call has exactly one result, in order, in every request',
  invariant: 6,
  check: (run) => verdictOf(toolPairing(run)),
});
