/** Invariant 1: every model request is recomputable from the log — messages, system prompt, tools, model, max tokens. */
import { requestsRecomputable } from '../../harness/checks/invariants.ts';
import { defineProperty, verdictOf } from '../property.ts';

export const requestsRecomputableProperty = defineProperty({
  name: 'invariant-01-requests-recomputable',
  title: 'every model request is recomputable from the log',
  invariant: 1,
  check: (run) => verdictOf(requestsRecomputable(run)),
});
