/**
 * A UI following a conversation live, through the production host's event
 * stream, is shown only what is stored (follow.ts: "only stored events are ever
 * yielded"; "a seq, once yielded, names that event forever"), each event once,
 * in order, with no gap — also across a crash and the reconnect with
 * `Last-Event-ID` that follows it — and while it stays connected it gets every
 * event its host stores, without reconnecting (README, "Following a
 * conversation"). An event shown before the store held it is one a crash can
 * take back: the user saw a refund the conversation never recorded.
 *
 * Judged on cases with `follow: live` (world/live-follower.ts): each message the
 * host sent, with how many records the store held at that moment, against the
 * store at the end. Where the store could not be read back after a crash (a
 * record lost or garbled), the host rightly refuses to serve it: only what was
 * shown before is judged, against what the store held when it was shown.
 */
import { createRedactor, redactDeep, type EventRecord, type Redactor } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import type { LiveStream } from '../world/live-follower.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { sameData } from './support/same-data.ts';

export const followersShowOnlyStored = defineInvariant({
  id: 'followers-show-only-stored',
  title: 'a UI following the production host live is shown only stored events, each once and in order, across reconnects, and all of them while connected',
  appliesTo: loopgateOnly('a peer has no event stream of loopgate’s', (run) =>
    run.followedLive === undefined ? 'no UI follows the conversation while the case runs (follow: live, production host)' : undefined,
  ),
  check: (run: ScenarioRun) => {
    const live = run.followedLive;
    if (!live) return undefined;
    const readable = run.unreadable === undefined;
    const stored = run.store.peek(live.conversation);
    // Secrets the agent gained on a reopen (secretsOnReopen) are never shown by the reopened host, though a process that
    // did not know them stored them as plain text: a later process's stream shows the stored payload with them redacted.
    const gained = run.scenario.secretsOnReopen ?? [];
    const gainedRedactor = gained.length > 0 ? createRedactor({ secrets: gained }) : undefined;
    let next = 0;
    for (const [i, stream] of live.streams.entries()) {
      const what = `the live stream's connection ${i + 1} (to host process ${stream.process + 1}${stream.lastEventId !== undefined ? `, Last-Event-ID ${stream.lastEventId}` : ''})`;
      if (stream.status !== 200) {
        if (readable) return `${what} was answered ${stream.status}: ${(stream.text ?? '').trim().slice(0, 200)}`;
        continue;
      }
      const redactGained = stream.process > 0 ? gainedRedactor : undefined;
      const problem = streamProblem(what, stream, next, stored, readable, redactGained);
      if (typeof problem === 'string') return problem;
      next = problem;
      if (stream.endedBy === 'host' && readable)
        return `${what} was ended by the host while the UI still followed (keepOpen: only the client leaves); the last event shown was seq ${next - 1}`;
    }
    // With one host running the turns, an open stream shows what its host stores at once (before virtual time moves on).
    if (readable && (run.scenario.hosts ?? 1) === 1) {
      for (const [i, stream] of live.streams.entries()) {
        const late = lateEvent(stream, live.storedAt);
        if (late) return `the live stream's connection ${i + 1} (to host process ${stream.process + 1}) ${late}`;
      }
    }
    const last = live.streams[live.streams.length - 1];
    // Connected to the end, to the one host that runs the turns: it must have been shown all the host stored.
    if (readable && last?.status === 200 && last.endedBy === 'client' && (run.scenario.hosts ?? 1) === 1 && next < live.storedAtEnd) {
      const missing = stored[next];
      return `the UI following live had been shown events up to seq ${next - 1} when the case ended, but the store holds ${live.storedAtEnd} (seq ${next}${missing ? `, ${missing.type}` : ''} never came without a reconnect)`;
    }
    return undefined;
  },
});

/** The seq the stream's successor must start at, or what is wrong with it. */
function streamProblem(
  what: string,
  stream: LiveStream,
  from: number,
  stored: readonly EventRecord[],
  readable: boolean,
  redactGained: Redactor | undefined,
): number | string {
  let next = stream.lastEventId !== undefined ? Number(stream.lastEventId) + 1 : 0;
  if (next !== from) return `${what} asked for the events from seq ${next}, but the UI had been shown up to seq ${from - 1}`;
  for (const message of stream.messages) {
    if (message.event === 'error') {
      if (readable) return `${what} sent an error: ${(message.data ?? '').slice(0, 200)}`;
      continue;
    }
    if (message.id === undefined) continue;
    const seq = Number(message.id);
    if (seq !== next)
      return `${what} sent event id ${message.id} (${message.event}) where seq ${next} was next: ${seq < next ? 'an event it had already shown' : 'a gap'}`;
    if (seq >= message.storedWhenSent)
      return `${what} showed event seq ${seq} (${message.event}) when the store held only ${message.storedWhenSent} record(s): a crash then takes back what the UI was shown`;
    const record = stored[seq];
    if (readable) {
      if (!record) return `${what} showed event seq ${seq} (${message.event}), which the store does not hold at the end (${stored.length} records)`;
      if (message.event !== record.type) return `${what} showed seq ${seq} as ${message.event}, but the store holds ${record.type} there`;
      let data: { seq?: unknown; type?: unknown; payload?: unknown };
      try {
        data = JSON.parse(message.data ?? '') as typeof data;
      } catch {
        return `${what}, event id ${message.id}: its data is not JSON`;
      }
      if (data.seq !== seq || data.type !== record.type) return `${what}, event id ${message.id}, carries event seq ${String(data.seq)} (${String(data.type)})`;
      const shown = redactGained ? redactDeep(record.payload, redactGained) : record.payload;
      if (!sameData(data.payload, shown)) return `${what} showed seq ${seq} (${record.type}) with another payload than the store holds`;
    }
    next++;
  }
  return next;
}

/**
 * An event stored (by a write that succeeded whole) while the stream was open
 * that the stream did not show at the virtual time it was stored: the host told
 * its follower late or not at all (the UI sees nothing until the turn ends).
 */
function lateEvent(stream: LiveStream, storedAt: readonly (number | undefined)[]): string | undefined {
  if (stream.status !== 200) return undefined;
  const start = stream.lastEventId !== undefined ? Number(stream.lastEventId) + 1 : 0;
  const shown = new Map<number, number>();
  for (const message of stream.messages) if (message.id !== undefined) shown.set(Number(message.id), message.shownAt);
  for (let seq = start; seq < storedAt.length; seq++) {
    const at = storedAt[seq];
    if (at === undefined || at < stream.openedAt || (stream.endedAt !== undefined && at >= stream.endedAt)) continue;
    const when = shown.get(seq);
    if (when === at) continue;
    return when === undefined
      ? `never showed seq ${seq}, stored at ${at} ms while it was open${stream.endedAt !== undefined ? ` (until ${stream.endedAt} ms)` : ''}`
      : `showed seq ${seq} at ${when} ms, though it was stored at ${at} ms: the host told its follower late`;
  }
  return undefined;
}
