/**
 * Outcomes are always in the closed alphabet: what the loop returned and what it
 * logged, with no field the alphabet does not have.
 */
import { isOutcome, type LogEvent } from '../../kernel/index.ts';
import type { ScenarioRun } from '../../harness/second-host.ts';
import { viewOf } from './log-view.ts';

const FIELDS: Readonly<Record<string, readonly string[]>> = {
  replied: ['kind'],
  cancelled: ['kind', 'by'],
  rejected: ['kind', 'reason'],
  nothing_to_do: ['kind'],
  conversation_full: ['kind'],
  interrupted: ['kind'],
  failed: ['kind', 'reason', 'detail'],
};

function problem(outcome: unknown): string | undefined {
  if (!isOutcome(outcome)) return `${JSON.stringify(outcome)} is not in the alphabet`;
  const extra = Object.keys(outcome).filter((k) => !FIELDS[outcome.kind]!.includes(k));
  return extra.length > 0 ? `${JSON.stringify(outcome)} has field(s) the alphabet does not: ${extra.join(', ')}` : undefined;
}

export function outcomesInAlphabet(run: ScenarioRun): string | undefined {
  for (const r of run.results) {
    const p = problem(r.outcome);
    if (p) return `turn ${r.turn} returned ${p}`;
  }
  for (const e of viewOf(run).known) {
    if (e.type !== 'turn.closed') continue;
    const p = problem((e as Extract<LogEvent, { type: 'turn.closed' }>).payload.outcome);
    if (p) return `turn ${e.payload.turn} logged ${p}`;
  }
  return undefined;
}
