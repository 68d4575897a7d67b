/**
 * The model-error chain as the table has it (RECOVERING): authentication and
 * invalid requests fail at once; an abort that is not a cancel is not retried;
 * transient errors are retried at most `immediateRetries + backoffRetries` times
 * per client and step, never sooner than the provider's retry-after, and never
 * when retry-after is longer than the loop will wait; a client switch only goes
 * to a fallback.
 */
import type { ScenarioRun } from '../../harness/second-host.ts';
import { viewOf } from './log-view.ts';

const TRANSIENT = new Set(['timeout', 'rate_limited', 'overloaded', 'server_error', 'network', 'malformed_stream']);

export function errorChainFollowsTable(run: ScenarioRun): string | undefined {
  const { retry } = run.config;
  const retries = new Map<string, number>();
  for (const r of viewOf(run).requests) {
    const result = r.result?.payload.result;
    const handled = r.handled?.payload;
    if (!result || !handled || result.type !== 'transport_error') continue;
    const { turn, step, attempt, client } = r.event.payload;
    const where = `turn ${turn} step ${step} attempt ${attempt} (${result.kind})`;
    const kind = result.kind ?? '';
    if (!TRANSIENT.has(kind)) {
      if (handled.action !== 'fail') return `${where}: ${kind} must fail the turn at once, but the chain decided ${handled.action}`;
      continue;
    }
    if (handled.action === 'retry') {
      const key = `${turn}/${step}/${client}`;
      const n = (retries.get(key) ?? 0) + 1;
      retries.set(key, n);
      if (n > retry.immediateRetries + retry.backoffRetries)
        return `${where}: retry ${n} of ${client}, but the tiers allow ${retry.immediateRetries + retry.backoffRetries}`;
      if (result.retryAfterMs !== undefined) {
        if (result.retryAfterMs > retry.maxRetryAfterMs)
          return `${where}: retried although retry-after ${result.retryAfterMs} ms exceeds the ${retry.maxRetryAfterMs} ms limit`;
        if ((handled.delayMs ?? 0) < result.retryAfterMs)
          return `${where}: retried after ${handled.delayMs ?? 0} ms, sooner than the provider's retry-after ${result.retryAfterMs} ms`;
      }
    } else if (handled.action === 'switch_client') {
      if (!run.scenario.provider.fallback) return `${where}: switched client with no fallback configured`;
    }
  }
  return undefined;
}
