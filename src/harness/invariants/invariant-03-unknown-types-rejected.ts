/**
 * Invariant 3 on the run's stored records: a record of a type this reader does
 * not know — or a newer version of a known one — is refused unless it is marked
 * ignorable; an ignorable one is kept opaque and changes nothing in the history.
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
  const seq = run.store.peek('case').length;
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
  let opaque: AnyEvent;
  try {
    opaque = decodeRecord({ ...base, type: 'fuzz.unknown', ignorable: true }, 'fuzz probe', seq);
  } catch (error) {
    return `an ignorable unknown event was refused: ${(error as Error).message}`;
  }
  if (opaque.opaque !== true) return 'an ignorable unknown event was not kept opaque';
  const events = run.log.events.slice(0, seq);
  if (!sameJson(project([...events, opaque]), project(events))) return 'an ignorable unknown event changed the projected history';
  return undefined;
}
