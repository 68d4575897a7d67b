/**
 * A UI that follows a conversation over the production host's server-sent events
 * gets the log: every stored event once, in order, with no gap, each message's
 * `id` its seq and `event` its type, the event itself as `data`; then an `end`
 * message naming the seq to follow from next. A client that reconnects with
 * `Last-Event-ID` (the last seq it got) gets exactly the events after it — not
 * the one it already has, none skipped (seed 000 §1, §3: replayable events;
 * README, "Following a conversation").
 *
 * Checked through the host's own handler after each production-host case
 * (world/follow-check.ts), against what the store held then. Not judged where the
 * store could not be read back (a record lost or garbled in a crash): the host
 * then rightly refuses to serve it.
 */
import type { ScenarioRun } from '../second-host.ts';
import type { FollowStream, StoredEvent } from '../world/follow-check.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { sameData } from './support/same-data.ts';

export const followersReplayTheLog = defineInvariant({
  id: 'followers-replay-the-log',
  title: 'a follower of the production host’s event stream gets every stored event once, in order; a reconnect gets exactly those after its last',
  appliesTo: loopgateOnly('a peer has no event stream of loopgate’s'),
  check: (run: ScenarioRun) => {
    const followed = run.followed;
    if (!followed || run.unreadable !== undefined) return undefined;
    // Secrets the agent gained on a reopen (secretsOnReopen) are never shown, though stored before as plain text — once a
    // reopen happened (a crash the case never reached leaves one process, which never had them: the fuzzer draws such).
    const reopened = run.scenario.inbox.some((e, i) => e.reopen && !run.unfired.some((u) => u.index === i));
    const gained = reopened ? (run.scenario.secretsOnReopen ?? []) : [];
    for (const [what, got] of [['the stream from the first event', followed.full] as const, ['the reconnect', followed.resumed] as const]) {
      const message = got?.messages.find((m) => gained.some((secret) => (m.data ?? '').includes(secret)));
      if (message) return `${what} showed event id ${message.id ?? '?'} (${message.event ?? 'message'}) with a secret the host reopened with, unredacted`;
    }
    const full = stream('the stream from the first event', followed.full, followed.stored);
    if (full !== undefined || !followed.resumed) return full;
    const after = Number(followed.resumed.lastEventId);
    return stream(
      `the reconnect with Last-Event-ID ${followed.resumed.lastEventId}`,
      followed.resumed,
      followed.stored.filter((e) => e.seq > after),
      followed.stored,
    );
  },
});

function stream(what: string, got: FollowStream, want: readonly StoredEvent[], all: readonly StoredEvent[] = want): string | undefined {
  if (got.status !== 200) return `${what} was answered ${got.status}: ${(got.text ?? '').trim().slice(0, 200)}`;
  const events = got.messages.filter((m) => m.id !== undefined);
  for (let i = 0; i < Math.max(events.length, want.length); i++) {
    const message = events[i];
    const stored = want[i];
    if (!message)
      return `${what} ended after ${events.length} event(s); the store holds ${want.length} for it (seq ${stored!.seq}, ${stored!.type}, never came)`;
    if (!stored) return `${what} sent event id ${message.id} (${message.event}) after the last stored one (${want.length} expected)`;
    const where = `${what}, event ${i + 1}`;
    if (message.id !== String(stored.seq)) return `${where} has id ${message.id}, but the next stored event is seq ${stored.seq} (${stored.type})`;
    if (message.event !== stored.type) return `${where} (id ${message.id}) says event ${message.event}, but seq ${stored.seq} is ${stored.type}`;
    let data: { seq?: unknown; type?: unknown; payload?: unknown };
    try {
      data = JSON.parse(message.data ?? '') as typeof data;
    } catch {
      return `${where} (id ${message.id}): its data is not JSON`;
    }
    if (data.seq !== stored.seq || data.type !== stored.type) return `${where} (id ${message.id}) carries event seq ${String(data.seq)} (${String(data.type)})`;
    if (!sameData(data.payload, stored.payload)) return `${where} (id ${message.id}, ${stored.type}) carries another payload than the stored event`;
  }
  const last = got.messages[got.messages.length - 1];
  const next = all.length > 0 ? all[all.length - 1]!.seq + 1 : 0;
  if (last?.event !== 'end') return `${what} did not end with an end message (last: ${last ? (last.event ?? 'message') : 'none'})`;
  let end: { next?: unknown };
  try {
    end = JSON.parse(last.data ?? '') as typeof end;
  } catch {
    return `${what}: its end message's data is not JSON`;
  }
  if (end.next !== next) return `${what}: its end message says to follow from ${String(end.next)}, but the next seq is ${next}`;
  return undefined;
}
