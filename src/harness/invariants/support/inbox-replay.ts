/**
 * The inbox replayed from the log alone: which messages are pending or taken
 * after every event. Used to check the loop's own bookkeeping against the log.
 */
import type { LogEvent } from '../../../kernel/index.ts';

export interface InboxMessage {
  readonly id: string;
  readonly intent: 'follow_up' | 'steer' | 'inject';
  readonly text: string;
  readonly source: string;
  /** Seq of its `inbox.received`. */
  readonly seq: number;
  state: 'pending' | 'taken';
  /** Times taken, minus times returned. */
  held: number;
}

export interface InboxReplay {
  readonly messages: ReadonlyMap<string, InboxMessage>;
  /** A violation of the inbox rules seen while replaying, if any. */
  readonly problem: string | undefined;
}

/** Replays the events; `visit` sees each event before it is applied, with the inbox as it was. */
export function replayInbox(
  events: readonly LogEvent[],
  visit?: (event: LogEvent, messages: ReadonlyMap<string, InboxMessage>) => string | undefined,
): InboxReplay {
  const messages = new Map<string, InboxMessage>();
  for (const e of events) {
    const seen = visit?.(e, messages);
    if (seen) return { messages, problem: seen };
    switch (e.type) {
      case 'inbox.received':
        if (messages.has(e.payload.id)) return { messages, problem: `message ${e.payload.id} was received twice` };
        messages.set(e.payload.id, { ...e.payload, seq: e.seq, state: 'pending', held: 0 });
        break;
      case 'user.message': {
        const m = messages.get(e.payload.id);
        if (!m) return { messages, problem: `message ${e.payload.id} was delivered (seq ${e.seq}) but never received` };
        if (m.state === 'taken') return { messages, problem: `message ${e.payload.id} was delivered twice (seq ${e.seq}) without being returned in between` };
        m.state = 'taken';
        m.held++;
        break;
      }
      case 'inbox.returned':
        for (const id of e.payload.ids) {
          const m = messages.get(id);
          if (!m || m.state !== 'taken') return { messages, problem: `message ${id} was returned (seq ${e.seq}) but it was not taken` };
          m.state = 'pending';
          m.held--;
        }
        break;
      default:
        break;
    }
  }
  return { messages, problem: undefined };
}

export const isWaking = (m: InboxMessage) => m.intent !== 'inject';
