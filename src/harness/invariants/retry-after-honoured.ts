/**
 * A retry-after is honoured: a model client that answered with one is not asked
 * again before it ends — not by the next attempt (a backoff shorter than the
 * window), nor the next step, nor the next turn. Read from the log: each
 * `model.result` with `retryAfterMs` opens a window for its client, from the
 * result's time, and no later `model.request` to that client starts inside it.
 * A loop that waited its own backoff instead is rate-limited again and again —
 * and with a provider that counts the early requests, for longer. Judged from
 * outside another loop too, on the times the harness recorded each call.
 */
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, type PeerRun } from './invariant.ts';
import { viewOf } from './support/log-view.ts';

export const retryAfterHonoured = defineInvariant({
  id: 'retry-after-honoured',
  title: 'a client that gave a retry-after is not asked again before it ends',
  check: (run) => honoured(run),
  checkObservable: (run) => honouredFromOutside(run),
});

/**
 * From outside another loop: the case's model (one client) records when each request went out and when it settled;
 * a result with a retry-after opens a window from its settling, and no later request of that turn — a retry, a next
 * step — goes out inside it (outside probe 54, H3: a loop waiting its own second where the 429 asked for seven
 * passed, "not judged"). Across turns a peer is not held to it: the user's next message is a fresh start for it.
 */
function honouredFromOutside(run: PeerRun): string | undefined {
  let window: { until: number; opened: string; turn: number | undefined } | undefined;
  for (let i = 0; i < run.responses.length; i++) {
    const call = run.responses[i]!;
    if (call.sentMs === undefined) return undefined; // recorded without the case's clock
    // Within a turn: its retries and its next steps. A peer need not remember a window into the user's next message.
    const turn = run.requestTurns[i];
    if (window && window.turn === turn && call.sentMs < window.until)
      return `request ${i + 1} was sent at ${call.sentMs} ms, inside the retry-after window ${window.opened} until ${window.until} ms`;
    const result = call.result;
    if (result?.type === 'transport_error' && result.retryAfterMs !== undefined && call.settledMs !== undefined) {
      const until = call.settledMs + result.retryAfterMs;
      if (window?.turn !== turn || until > window.until)
        window = { until, opened: `request ${i + 1} was given (${result.retryAfterMs} ms at ${call.settledMs} ms)`, turn };
    }
  }
  return undefined;
}

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
