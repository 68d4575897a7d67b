/**
 * A tool's retry waits the operator's backoff: retry n of a call starts no
 * sooner than `retryBackoffMs · 2^(n-1)` ms (held to a timer's limit) after
 * attempt n ended — when its body returned or threw, or when it was told to stop
 * (its timeout). The backoff exists to spare a service that is failing; a loop
 * that skips it, or waits from the attempt's start, hammers that service as if
 * none were set, and the model still reads the same result in the end
 * (host YAML `tools.retryBackoffMs`, a scenario's `config.toolRetryBackoffMs`;
 * outside probe 62, LOW-4: retries ran back to back with no way to set a wait).
 *
 * Read from the bodies the harness saw start, on the case's virtual clock. The
 * wait is exact — a loop that waits twice the backoff keeps a failing call from
 * its answer as long again (outside probe 65, F3: a doubled wait passed fuzz) —
 * unless the case's store is slow (`store.slowAppends`), which may add to it.
 */
import { MAX_TIMEOUT_MS } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';

export const toolRetriesWaitTheirBackoff = defineInvariant({
  id: 'tool-retries-wait-their-backoff',
  title: "a tool's retry n starts retryBackoffMs · 2^(n-1) ms (at most a timer's limit) after attempt n ended (at least, with a slow store)",
  appliesTo: loopgateOnly('the backoff is the operator’s setting of loopgate’s host, and the attempts are its own'),
  check: (run) => retriesWaited(run),
});

function retriesWaited(run: ScenarioRun): string | undefined {
  const backoff = run.toolRetryBackoffMs ?? 0;
  if (backoff === 0) return undefined;
  const exact = (run.scenario.store?.slowAppends ?? []).length === 0;
  for (const [callId, bodies] of run.toolBodies ?? []) {
    for (const retry of bodies) {
      if (retry.attempt < 2) continue;
      // The attempt before it, of the same tool: the latest one that started before it (a crash starts the count again).
      const before = bodies.filter((b) => b.tool === retry.tool && b.attempt === retry.attempt - 1 && b.startedAt <= retry.startedAt).at(-1);
      if (!before) continue;
      const ended = endOf(before);
      if (ended === undefined) continue;
      const wait = Math.min(backoff * 2 ** (before.attempt - 1), MAX_TIMEOUT_MS);
      const waited = retry.startedAt - ended;
      if (waited === wait || (waited > wait && !exact)) continue;
      return (
        `${retry.tool} call ${callId}: attempt ${retry.attempt} started at ${retry.startedAt} ms, ${waited} ms after attempt ${before.attempt} ended ` +
        `(at ${ended} ms); with retryBackoffMs ${backoff}, retry ${before.attempt} waits ${wait} ms (retryBackoffMs · 2^${before.attempt - 1})`
      );
    }
  }
  return undefined;
}

/** When an attempt was over for the loop: its body ended, or it was told to stop first (a timeout). */
function endOf(body: { readonly endedAt?: number; readonly abortedAt?: number; readonly abortedAfterEnd?: boolean }): number | undefined {
  if (body.abortedAt !== undefined && !body.abortedAfterEnd) return body.endedAt === undefined ? body.abortedAt : Math.min(body.abortedAt, body.endedAt);
  return body.endedAt;
}
