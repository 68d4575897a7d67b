/**
 * A retry-after is honoured: a model client that answered with one is not asked
 * again before it ends — not by the next attempt (a backoff shorter than the
 * window), nor the next step, nor the next turn. Read from the log: each
 * `model.result` with `retryAfterMs` opens a window for its client, from the
 * result's time, and no later `model.request` to that client starts inside it.
 * A loop that waited its own backoff instead is rate-limited again and again —
 * and with a provider that counts the early requests, for longer.
 */
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { viewOf } from './support/log-view.ts';

export const retryAfterHonoured = defineInvariant({
  id: 'retry-after-honoured',
  title: 'a client that gave a retry-after is not asked again before it ends',
  appliesTo: loopgateOnly('model requests, their results and their times are in loopgate’s event log'),
  check: (run) => honoured(run),
});

function honoured(run: ScenarioRun): string | undefined {
  /** Per client: when its window ends, and the request that opened it. */
  const windows = new Map<string, { until: number; opened: string }>();
  for (const r of viewOf(run).requests) {
    const { client, turn, step, attempt } = r.event.payload;
    const window = windows.get(client);
    if (window && r.event.at < window.until) {
      return `turn ${turn}, step ${step}, attempt ${attempt} asked ${client} at ${r.event.at} ms, inside the retry-after window it gave (${window.opened}) until ${window.until} ms`;
    }
    const result = r.result?.payload.result;
    if (r.result && result?.type === 'transport_error' && result.retryAfterMs !== undefined) {
      const until = r.result.at + result.retryAfterMs;
      if (until > (window?.until ?? Number.NEGATIVE_INFINITY)) {
        windows.set(client, { until, opened: `turn ${turn}, step ${step}, attempt ${attempt}: ${result.retryAfterMs} ms at ${r.result.at} ms` });
      }
    }
  }
  return undefined;
}
