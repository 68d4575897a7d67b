/**
 * Invariant 3 on the run's stored records: a record of a type this reader does
 * not know — or a newer version of a known one — is refused unless it is marked
 * ignorable; an ignorable one is kept opaque, with the sources it was written
 * with, and changes nothing in the history.
 *
 * The newer version is the run's own last stored record with its version raised,
 * its payload as written: one the schema of the known version accepts, so only
 * the version can refuse it (a made-up payload would be refused by the schema
 * whatever the version check did). The same for the run's last stored message
 * (user, assistant, tool result): read as an ignorable newer version, it must
 * leave the projected history as the records before it make it.
 */
import { decodeRecord, EVENT_VERSIONS, LogReadError, project, type AnyEvent } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { sameJson } from './support/log-view.ts';

export const unknownTypesRejected = defineInvariant({
  id: 'invariant-03-unknown-types-rejected',
  title: 'unknown event types are refused on read unless marked ignorable',
  invariant: 3,
  appliesTo: loopgateOnly('no stored event records to read back: a peer keeps none'),
  check: (run) => unknownTypesRefused(run),
});

function unknownTypesRefused(run: ScenarioRun): string | undefined {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0; // the probes throw on purpose
  try {
    return probe(run);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

function probe(run: ScenarioRun): string | undefined {
  const seq = run.store.peek(run.conversation).length;
  const base = { seq, v: 1, at: 0, payload: { from: 'a newer writer' } };
  const refused = (what: string, record: Parameters<typeof decodeRecord>[0]): string | undefined => {
    try {
      decodeRecord(record, 'fuzz probe', seq);
    } catch (error) {
      return error instanceof LogReadError ? undefined : `${what}: decoding threw ${(error as Error)?.name} instead of LogReadError`;
    }
    return `${what} was accepted`;
  };
  const problem =
    refused('an unknown event type not marked ignorable', { ...base, type: 'fuzz.unknown', ignorable: false }) ??
    refused('a newer version of turn.closed not marked ignorable', { ...base, type: 'turn.closed', v: EVENT_VERSIONS['turn.closed'] + 1, ignorable: false });
  if (problem) return problem;
  const newer = newerVersionProbe(run);
  if (newer) return newer;
  // Derived from records before it (as a newer writer's summary is): kept opaque, its sources kept as written.
  const sources = seq > 0 ? [0, seq - 1] : undefined;
  let opaque: AnyEvent;
  try {
    opaque = decodeRecord({ ...base, type: 'fuzz.unknown', ignorable: true, ...(sources ? { sources } : {}) }, 'fuzz probe', seq);
  } catch (error) {
    return `an ignorable unknown event was refused: ${(error as Error).message}`;
  }
  if (opaque.opaque !== true) return 'an ignorable unknown event was not kept opaque';
  if (JSON.stringify(opaque.sources) !== JSON.stringify(sources))
    return `an ignorable unknown event with sources ${JSON.stringify(sources)} was read with sources ${JSON.stringify(opaque.sources)}`;
  const events = run.log.events.slice(0, seq);
  if (!sameJson(project([...events, opaque]), project(events))) return 'an ignorable unknown event changed the projected history';
  return undefined;
}

/** The run's last stored record, one version newer than this reader knows: refused, or opaque when ignorable. */
function newerVersionProbe(run: ScenarioRun): string | undefined {
  const stored = run.store.peek(run.conversation);
  const last = stored[stored.length - 1];
  if (last === undefined || !(last.type in EVENT_VERSIONS)) return undefined;
  const v = EVENT_VERSIONS[last.type as keyof typeof EVENT_VERSIONS] + 1;
  const what = `stored record seq ${last.seq} (${last.type}) as version ${v}, newer than this reader's`;
  try {
    decodeRecord({ ...last, v, ignorable: false }, 'newer version probe', last.seq);
    return `${what}, not marked ignorable, was accepted`;
  } catch (error) {
    if (!(error instanceof LogReadError)) return `${what}: decoding threw ${(error as Error)?.name} instead of LogReadError`;
  }
  let read: AnyEvent;
  try {
    read = decodeRecord({ ...last, v, ignorable: true }, 'newer version probe', last.seq);
  } catch (error) {
    return `${what}, marked ignorable, was refused: ${(error as Error).message}`;
  }
  if (read.opaque !== true) return `${what}, marked ignorable, was read as a known event instead of kept opaque`;
  return newerMessageProbe(run);
}

/** Types whose events the projection makes messages of: a newer, ignorable version of one must still add nothing. */
const PROJECTED = new Set(['user.message', 'assistant.message', 'tool.result']);

/**
 * The run's last stored message record (a user or assistant message, a tool
 * result), one version newer and marked ignorable, read after the records before
 * it: the history projected is theirs alone (an opaque event is skipped, even one
 * of a type the projection knows, whose payload the known schema accepts).
 */
function newerMessageProbe(run: ScenarioRun): string | undefined {
  const stored = run.store.peek(run.conversation);
  let last: (typeof stored)[number] | undefined;
  for (let i = stored.length - 1; i >= 0 && last === undefined; i--) if (PROJECTED.has(stored[i]!.type)) last = stored[i];
  if (last === undefined) return undefined;
  const v = EVENT_VERSIONS[last.type as keyof typeof EVENT_VERSIONS] + 1;
  let read: AnyEvent;
  try {
    read = decodeRecord({ ...last, v, ignorable: true }, 'newer version probe', last.seq);
  } catch (error) {
    return `stored record seq ${last.seq} (${last.type}) as version ${v}, marked ignorable, was refused: ${(error as Error).message}`;
  }
  const before = run.log.events.slice(0, last.seq);
  if (!sameJson(project([...before, read]), project(before)))
    return `stored record seq ${last.seq} (${last.type}) as version ${v}, marked ignorable, changed the projected history (an opaque event must add nothing)`;
  return undefined;
}
