/**
 * The redactor of one run: its configured secrets (the agent's and the
 * scenario's) and the common credential shapes. What a case reports about a run
 * — its timeline, its check messages with their expected and actual values —
 * passes it, so a report never carries a secret the run was told to keep.
 */
import { createRedactor, redactDeep, type Redactor } from '../kernel/index.ts';
import type { ScenarioRun } from './second-host.ts';

const redactors = new WeakMap<ScenarioRun, Redactor>();

export function redactorOf(run: ScenarioRun): Redactor {
  let redact = redactors.get(run);
  if (!redact) {
    redact = createRedactor({ secrets: run.secrets });
    redactors.set(run, redact);
  }
  return redact;
}

/** `value` (plain data: checks, timeline entries) with every string redacted for `run`. */
export function redactForRun<T>(run: ScenarioRun, value: T): T {
  return redactDeep(value, redactorOf(run)) as T;
}
