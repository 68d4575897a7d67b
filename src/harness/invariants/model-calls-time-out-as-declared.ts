/**
 * A model call waits at most the loop's `modelTimeoutMs`: an answer taken came
 * within that time after the request went out, and the loop's backstop — for a
 * client that does not keep the timeout itself (a wrapper that drops it, an SDK
 * stuck on a half-open connection) — ends the call exactly then ("no result
 * within … ms"), not later. A backstop ten times late keeps the customer waiting
 * and takes an answer the loop had given up on; the log alone reads as
 * consistent. Judged on the virtual clock, per model call (turn, step, attempt):
 * from its `model.request` to its `model.result`. A call cancelled by the turn
 * is not judged (its result may be recorded when the client lets go).
 */
import type { LogEvent } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';

export const modelCallsTimeOutAsDeclared = defineInvariant({
  id: 'model-calls-time-out-as-declared',
  title: "a model call waits at most the loop's modelTimeoutMs, on the virtual clock: no answer after it is taken, and the backstop ends the call exactly then",
  appliesTo: loopgateOnly('the virtual clock of loopgate’s own loop dates the requests and results'),
  check: (run) => timedOutAsDeclared(run),
});

const BACKSTOP = 'no result within ';

function timedOutAsDeclared(run: ScenarioRun): string | undefined {
  const limit = run.config.modelTimeoutMs;
  if (limit === undefined) return undefined;
  const sent = new Map<string, number>();
  for (const e of run.log.events) {
    if (e.opaque) continue;
    if (e.type === 'model.request') {
      const p = (e as Extract<LogEvent, { type: 'model.request' }>).payload;
      sent.set(`${p.turn}/${p.step}/${p.attempt}`, e.at);
      continue;
    }
    if (e.type !== 'model.result') continue;
    const { turn, step, attempt, result } = (e as Extract<LogEvent, { type: 'model.result' }>).payload;
    const at = sent.get(`${turn}/${step}/${attempt}`);
    if (at === undefined) continue;
    const took = e.at - at;
    const where = `turn ${turn}, step ${step}, attempt ${attempt} (sent at ${at} ms, modelTimeoutMs ${limit} ms)`;
    if (result.type === 'transport_error' && result.kind === 'aborted') continue;
    if (result.type === 'transport_error' && result.kind === 'timeout' && (result.message ?? '').startsWith(BACKSTOP)) {
      if (took !== limit) return `${where}: the loop's backstop ended the call after ${took} ms, not ${limit} ms`;
      continue;
    }
    if (took > limit) return `${where}: a ${describe(result)} came after ${took} ms and was taken: the call should have ended at ${limit} ms`;
  }
  return undefined;
}

function describe(result: Extract<LogEvent, { type: 'model.result' }>['payload']['result']): string {
  return result.type === 'transport_error' ? `${result.kind} error` : `${result.type} result`;
}
