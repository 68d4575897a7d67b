/**
 * The store holds exactly the log, record for record (a shorter prefix only
 * after a refused write). The harness's persisted-history check also decodes
 * every record through the catalogue's schemas; the fuzzer compares the records
 * with the events instead — the log validated each payload when it was appended,
 * so what is left to find is a store that loses, reorders or alters records — and
 * decodes only the last one, so the property stays cheap enough to run on every case.
 */
import { decodeRecord, toRecord } from '../../kernel/index.ts';
import type { ScenarioRun } from '../../harness/second-host.ts';

export function storeEqualsLog(run: ScenarioRun): string | undefined {
  const stored = run.store.peek('case');
  const events = run.log.events;
  if (stored.length > events.length) return `the store holds ${stored.length} events, the log ${events.length}`;
  for (let i = 0; i < stored.length; i++) {
    if (stored[i]!.seq !== i) return `the store's record ${i} has seq ${stored[i]!.seq}: records must be gapless from 0, as the log is`;
    if (JSON.stringify(stored[i]) !== JSON.stringify(toRecord(events[i]!))) return `stored record seq ${i} (${stored[i]!.type}) differs from the log's event`;
  }
  if (stored.length > 0) {
    try {
      decodeRecord(stored[stored.length - 1]!, 'store', stored.length - 1);
    } catch (error) {
      return `the last stored record does not decode: ${(error as Error).message}`;
    }
  }
  const persistenceFailed = run.results.some((r) => r.outcome.kind === 'failed' && r.outcome.reason === 'persistence');
  const lastWriteFailed = run.storeWrites.attempts > 0 && run.storeWrites.failed.includes(run.storeWrites.attempts);
  if (!persistenceFailed && !lastWriteFailed && stored.length !== events.length) return `${events.length - stored.length} event(s) never reached the store`;
  return undefined;
}
