/**
 * The redactor of one run: its configured secrets (the agent's and the
 * scenario's) and the common credential shapes. What a case reports about a run
 * — its timeline, its check messages with their expected and actual values —
 * passes it, so a report never carries a secret the run was told to keep.
 */
import { createRedactor, redactDeep, type Redactor } from '../kernel/index.ts';

/** A run of loopgate's loop or of one behind the port: what redacts it is its secrets. */
type WithSecrets = { readonly secrets: readonly string[] };

const redactors = new WeakMap<WithSecrets, Redactor>();

export function redactorOf(run: WithSecrets): Redactor {
  let redact = redactors.get(run);
  if (!redact) {
    redact = createRedactor({ secrets: run.secrets });
    redactors.set(run, redact);
  }
  return redact;
}

/** `value` (plain data: checks, timeline entries) with every string redacted for `run`. */
export function redactForRun<T>(run: WithSecrets, value: T): T {
  return redactDeep(value, redactorOf(run)) as T;
}
