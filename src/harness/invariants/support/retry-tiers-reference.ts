/**
 * The retry tiers as DESIGN.md and the scenario README document them, written
 * out here (not the kernel's handler) for `outcome-follows-table`: a transient
 * transport error (timeout, rate_limited, overloaded, server_error, network,
 * malformed_stream) is retried while the step has tiers left, and each retry
 * waits what its tier says —
 * - tier 1, `immediateRetries` times: `immediateDelayMs`;
 * - tier 2, `backoffRetries` times: `backoffBaseMs · 2ⁿ` for the n-th backoff
 *   (n from 0), at most `backoffMaxMs`, plus up to `jitter` of that;
 * - both never shorter than the provider's `retry-after`;
 * and not retried once both are spent, or when its `retry-after` is longer
 * than `maxRetryAfterMs` — then the chain falls back to the scenario's fallback
 * client if the step has not switched to it yet and any retry-after window it
 * gave has ended, and fails the turn only when there is none.
 * The tiers count per step, across the clients the step falls back to.
 *
 * The other direction (no more retries than the tiers allow, never sooner than
 * `retry-after`) is outcome-follows-table's own check; this one says a retry the
 * tiers owe is made, and waits as long as its tier says.
 */
import type { ScenarioRun } from '../../second-host.ts';
import { viewOf } from './log-view.ts';

export const TRANSIENT_KINDS: ReadonlySet<string> = new Set(['timeout', 'rate_limited', 'overloaded', 'server_error', 'network', 'malformed_stream']);

/** What the tiers owe one transient error: a retry waiting between `minMs` and `maxMs`, or none. */
type Owed = { readonly retry: true; readonly minMs: number; readonly maxMs: number; readonly tier: string } | { readonly retry: false; readonly why: string };

export function retryTiersFollowed(run: ScenarioRun): string | undefined {
  const { retry } = run.config;
  let step = '';
  let immediate = 0;
  let backoff = 0;
  for (const r of viewOf(run).requests) {
    const asked = r.event.payload;
    const key = `${asked.turn}/${asked.step}`;
    if (key !== step || asked.attempt === 1) {
      step = key;
      immediate = 0;
      backoff = 0;
    }
    const result = r.result?.payload.result;
    const handled = r.handled?.payload;
    if (!result || !handled || result.type !== 'transport_error' || !TRANSIENT_KINDS.has(result.kind ?? '')) continue;
    // The agent's own handler (the scenario's `errorHandlers`) threw before the tiers were asked: the loop failed the turn.
    if (handled.handler === 'error-chain' && run.scenario.errorHandlers !== undefined) continue;
    const after = result.retryAfterMs ?? 0;
    let owed: Owed;
    if (result.retryAfterMs !== undefined && result.retryAfterMs > retry.maxRetryAfterMs) {
      owed = { retry: false, why: `its retry-after ${result.retryAfterMs} ms exceeds the ${retry.maxRetryAfterMs} ms limit` };
    } else if (immediate < retry.immediateRetries) {
      immediate++;
      const wait = Math.max(retry.immediateDelayMs, after);
      owed = { retry: true, minMs: wait, maxMs: wait, tier: `tier 1 retry ${immediate} of ${retry.immediateRetries}` };
    } else if (backoff < retry.backoffRetries) {
      const base = Math.min(retry.backoffMaxMs, retry.backoffBaseMs * 2 ** backoff);
      backoff++;
      owed = {
        retry: true,
        minMs: Math.max(base, after),
        maxMs: Math.max(Math.round(base * (1 + retry.jitter)), after),
        tier: `tier 2 backoff ${backoff} of ${retry.backoffRetries} (${retry.backoffBaseMs} ms · 2^${backoff - 1}, at most ${retry.backoffMaxMs} ms)`,
      };
    } else {
      owed = { retry: false, why: `tiers 1 and 2 are spent (${retry.immediateRetries} + ${retry.backoffRetries} retries)` };
    }
    const where = `turn ${asked.turn} step ${asked.step} attempt ${asked.attempt} (${result.kind})`;
    if (owed.retry && handled.action !== 'retry')
      return `${where}: a transient error with ${owed.tier} left must be retried, but the chain decided ${handled.action}`;
    if (!owed.retry && handled.action === 'retry') return `${where}: retried although ${owed.why}`;
    if (!owed.retry && handled.action === 'fail' && handled.handler === 'retry-tiers') {
      const left = fallbackLeft(run, r);
      if (left) return `${where}: ${owed.why}, so the chain must fall back to ${left}, but it failed the turn`;
    }
    if (owed.retry) {
      const waited = handled.delayMs ?? 0;
      if (waited < owed.minMs || waited > owed.maxMs) {
        const range = owed.minMs === owed.maxMs ? `${owed.minMs} ms` : `${owed.minMs}–${owed.maxMs} ms`;
        return `${where}: ${owed.tier} waited ${waited} ms, but the tier says ${range}`;
      }
    }
  }
  return undefined;
}

/**
 * The fallback client still open to the step of request `r`, by name, or nothing: the
 * scenario configures one, the step has not switched clients before `r` and is still on
 * the primary (the run's first client), and the fallback gave no retry-after window that
 * is open when the error came. Clients are told apart by name, as the kernel's windows
 * are: where the fallback is named as the primary is (a wire fallback on the same model),
 * nothing is judged.
 */
function fallbackLeft(run: ScenarioRun, r: ReturnType<typeof viewOf>['requests'][number]): string | undefined {
  const provider = run.scenario.provider;
  if (!provider.fallback || !r.result) return undefined;
  if (provider.fallbackModel !== undefined && (provider.fallbackModel === provider.model || provider.fallbackModel === run.config.model)) return undefined;
  const requests = viewOf(run).requests;
  const { turn, step } = r.event.payload;
  // A switch earlier in the step: the chain of two has no client left after the fallback.
  const switched = requests.some(
    (x) => x.index < r.index && x.event.payload.turn === turn && x.event.payload.step === step && x.handled?.payload.action === 'switch_client',
  );
  if (switched) return undefined;
  const primary = requests[0]?.event.payload.client;
  if (r.event.payload.client !== primary) return undefined;
  const fallback = requests.find((x) => x.event.payload.client !== primary)?.event.payload.client;
  if (fallback === undefined) return 'the fallback client';
  const now = r.result.at;
  let until = Number.NEGATIVE_INFINITY;
  for (const x of requests) {
    const given = x.result?.payload.result;
    if (x.event.payload.client !== fallback || !x.result || x.result.at > now || given?.type !== 'transport_error' || given.retryAfterMs === undefined)
      continue;
    until = Math.max(until, x.result.at + given.retryAfterMs);
  }
  return until > now ? undefined : fallback;
}
