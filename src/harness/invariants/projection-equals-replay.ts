/**
 * The projection equals a replay of the whole log — and a reference: the loop's
 * own incremental projection at the end, the pure `project` of every event, a
 * fresh incremental projection fed event by event, and the naive reference
 * projection (support/reference-projection.ts, written without the kernel's
 * projection code) all agree; so do the messages of every request the model
 * received and the reference projection of the log prefix recorded with it
 * (past 200 requests, 200 spread over the run: support/spread.ts).
 * Without the reference, the first three share one implementation and a bug in
 * it would agree with itself.
 */
import { project, ProjectionCache, type Message } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, firstViolation, loopgateOnly } from './invariant.ts';
import { GrowingLog } from './support/growing-log.ts';
import { sameJson, viewOf } from './support/log-view.ts';
import { referenceProjection } from './support/reference-projection.ts';
import { firstDifference, sameData } from './support/same-data.ts';
import { spread } from './support/spread.ts';

export const projectionEqualsReplay = defineInvariant({
  id: 'projection-equals-replay',
  title: "the loop's incremental projection equals a replay of the whole log, and a naive reference projection of it",
  appliesTo: loopgateOnly('no log to replay: a peer keeps none'),
  check: (run) => {
    const replayed = project(run.log.events);
    return firstViolation(
      () => equalsReplay(run, replayed),
      () => equalsReference(run, replayed),
    );
  },
});

function equalsReplay(run: ScenarioRun, replayed: readonly Message[]): string | undefined {
  // No loop ran over the final log when the host could not open it (a refused recovery write).
  if (run.finalProjection !== undefined && !sameJson(run.finalProjection, replayed))
    return "the loop's incremental projection at the end differs from a replay of the whole log";
  const growing = new GrowingLog();
  const cache = new ProjectionCache(growing.asLog());
  for (const event of run.log.events) {
    growing.push(event);
    if (!event.opaque && event.type === 'turn.closed') cache.current(); // fold as a live loop would, turn by turn
  }
  if (!sameJson(cache.current(), replayed)) return 'an incremental projection fed the log event by event differs from a replay of the whole log';
  return undefined;
}

function equalsReference(run: ScenarioRun, replayed: readonly Message[]): string | undefined {
  const events = run.log.events;
  const reference = referenceProjection(events);
  if (!sameData(replayed, reference)) return `the projection of the whole log differs from the reference projection: ${firstDifference(replayed, reference)}`;
  // Requests of one step (retries, a fallback) share their prefix: its reference is computed once.
  const byPrefix = new Map<number, Message[]>();
  const referenceUpTo = (upTo: number): Message[] => {
    let messages = byPrefix.get(upTo);
    if (!messages) {
      messages = referenceProjection(events.slice(0, upTo));
      byPrefix.set(upTo, messages);
    }
    return messages;
  };
  // The reference folds each request's prefix from the log's start: past SPREAD_MAX requests, SPREAD_MAX spread over the run.
  const requests = viewOf(run).requests;
  for (const k of spread(requests.length)) {
    const r = requests[k]!;
    const sent = run.requests[r.index];
    if (!sent) continue;
    const expected = referenceUpTo(r.event.payload.upTo);
    if (!sameData(sent.messages, expected))
      return `request ${r.index + 1} (seq ${r.event.seq}): the messages sent differ from the reference projection of the log up to seq ${r.event.payload.upTo}: ${firstDifference(sent.messages, expected)}`;
  }
  return undefined;
}
