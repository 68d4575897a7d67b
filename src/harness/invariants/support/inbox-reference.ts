/**
 * What a scenario's inbox entries must have posted, predicted from the outside
 * (seed 000 §6): an entry posts its message once, when its trigger fired —
 * untimed and timed entries always, the others only if their moment came. The
 * inbox invariant compares the log with this; the fuzzer's inbox model
 * (src/fuzz/generators/inbox-model.ts) generates entries with the same rules.
 */
import type { InboxEntry, Trigger } from '../../scenario/schema.ts';

export type MessageIntent = 'follow_up' | 'steer' | 'inject';

export function intentOf(entry: InboxEntry): MessageIntent | undefined {
  if (entry.say !== undefined) return 'follow_up';
  if (entry.steer !== undefined) return 'steer';
  if (entry.inject !== undefined) return 'inject';
  return undefined;
}

export function textOf(entry: InboxEntry): string | undefined {
  return entry.say ?? entry.steer ?? entry.inject;
}

/** What happened in the run that decides whether a trigger fired. */
export interface TriggerFacts {
  readonly requests: number;
  readonly executions: ReadonlyMap<string, number>;
  /** Events the case's running log reached (the longest, over every life). Default: none known, so no event trigger fired. */
  readonly events?: number;
  /** Deltas streamed over the whole case. */
  readonly deltas?: number;
  /** Approval requests put to the approver over the whole case. */
  readonly approvals?: number;
  /** Checkpoint hook runs started over the whole case. */
  readonly checkpoints?: number;
  /** The highest attempt any call of each tool started (for `toolStart` with an `attempt`). */
  readonly attempts?: ReadonlyMap<string, number>;
  /** The tools a start record of whose calls a live process's log appended (for `toolRecorded`). */
  readonly recorded?: ReadonlySet<string>;
}

/** Whether an entry's trigger fired: untimed and timed entries always run; the others only if their moment came. */
export function fired(at: Trigger | undefined, facts: TriggerFacts): boolean {
  if (!at) return true;
  if (at.request !== undefined) return facts.requests >= at.request;
  if (at.toolStart !== undefined)
    return at.attempt === undefined ? (facts.executions.get(at.toolStart) ?? 0) > 0 : (facts.attempts?.get(at.toolStart) ?? 0) >= at.attempt;
  if (at.toolRecorded !== undefined) return facts.recorded?.has(at.toolRecorded) ?? false;
  if (at.event !== undefined) return (facts.events ?? 0) > at.event;
  if (at.delta !== undefined) return (facts.deltas ?? 0) >= at.delta;
  if (at.approval !== undefined) return (facts.approvals ?? 0) >= at.approval;
  if (at.checkpoint !== undefined) return (facts.checkpoints ?? 0) >= at.checkpoint;
  return true;
}

/** The messages the entries must have posted, in file order (timed ones included). */
export function expectedMessages(entries: readonly InboxEntry[], facts: TriggerFacts): { intent: MessageIntent; text: string }[] {
  const out: { intent: MessageIntent; text: string }[] = [];
  for (const entry of entries) {
    const intent = intentOf(entry);
    if (intent && fired(entry.at, facts)) out.push({ intent, text: textOf(entry)! });
  }
  return out;
}
