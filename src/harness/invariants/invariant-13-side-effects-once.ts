/**
 * Invariant 13: a STATEFUL or CRITICAL tool call is never executed twice for one
 * call id — not by retries, not after a crash, not when the model repeats the id.
 *
 * - Its start is recorded once (attempt 1, never retried), and the tool's body ran
 *   at most once for it (counted by the world around the tools, not by the loop).
 * - A call the model repeated (it sent the id of an earlier call of the same tool;
 *   the loop renamed it) is the same call: across the whole chain of repeats, as
 *   read from what the provider returned, a STATEFUL or CRITICAL body started and
 *   ran at most once — a renamed `refund_2` running again is caught — and every
 *   execution of the chain, whatever its level, used one idempotency key — and
 *   no other call used it (a backend would drop that call as a repeat).
 * - Its body ran only once the store held its start record (the write-ahead, seed
 *   004): read from the case's store as the body starts, so a skipped or unawaited
 *   barrier is caught with no crash at all. Without it a crash during the call
 *   leaves no trace that it may have run: the reopened host tells the model it
 *   never ran, and the model runs it again.
 */
import { startRefused } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, firstViolation } from './invariant.ts';
import { viewOf } from './support/log-view.ts';
import { repeatChains } from './support/model-call-ids.ts';
import { sideEffectsOnceObservably } from './observable/side-effects-once.ts';

export const sideEffectsOnce = defineInvariant({
  id: 'invariant-13-side-effects-once',
  title: 'a STATEFUL or CRITICAL call is never executed twice for one call id, nor for a repeat of it',
  invariant: 13,
  checkObservable: sideEffectsOnceObservably,
  check: (run) =>
    firstViolation(
      () => startedAndRunOnce(run),
      () => repeatsRunOnceWithOneKey(run),
      () => ranOnlyOnceStartStored(run),
    ),
});

function startedAndRunOnce(run: ScenarioRun): string | undefined {
  const starts = new Map<string, number>();
  for (const e of viewOf(run).known) {
    if (e.type !== 'tool.started' || (e.payload.sideEffect !== 'STATEFUL' && e.payload.sideEffect !== 'CRITICAL')) continue;
    if (e.payload.attempt !== 1) return `${e.payload.name} (${e.payload.sideEffect}) call ${e.payload.callId} was retried (attempt ${e.payload.attempt})`;
    const n = (starts.get(e.payload.callId) ?? 0) + 1;
    starts.set(e.payload.callId, n);
    if (n > 1) return `${e.payload.name} (${e.payload.sideEffect}) call ${e.payload.callId} was started ${n} times`;
  }
  // The level the tool was declared with (the world's truth), not the one the loop logged; the
  // runs counted per tool, since one id may name calls of different tools (a lost turn's, a reused one).
  for (const [tool, calls] of run.executionsByToolCall) {
    const level = run.sideEffectLevels.get(tool);
    if (level !== 'STATEFUL' && level !== 'CRITICAL') continue;
    for (const [callId, count] of calls) if (count > 1) return `${tool} (${level}) ran ${count} times for call ${callId}`;
  }
  return undefined;
}

function repeatsRunOnceWithOneKey(run: ScenarioRun): string | undefined {
  const chains = repeatChains(run);
  // A start the store refused never ran (its result takes it back): a repeat of it may run.
  const refused = new Set<string>();
  for (const e of viewOf(run).known) if (e.type === 'tool.result' && startRefused(e.payload)) refused.add(e.payload.callId);
  const started = new Map<string, string>(); // chain → the call of it that started (STATEFUL / CRITICAL)
  const keys = new Map<string, { key: string; callId: string }>(); // chain → the first idempotency key used
  const chainOfKey = new Map<string, string>(); // idempotency key → the chain that used it
  for (const e of viewOf(run).known) {
    if (e.type !== 'tool.started') continue;
    const { callId, name, sideEffect, idempotencyKey } = e.payload;
    const chain = chains.get(callId) ?? callId;
    if (idempotencyKey !== undefined) {
      const first = keys.get(chain);
      if (!first) {
        const owner = chainOfKey.get(idempotencyKey);
        if (owner !== undefined && owner !== chain)
          return `${name} call ${callId} ran with the idempotency key ${idempotencyKey} of call ${owner}, another call: the backend takes it for a repeat and drops it`;
        chainOfKey.set(idempotencyKey, chain);
        keys.set(chain, { key: idempotencyKey, callId });
      } else if (first.key !== idempotencyKey)
        return `${name} call ${callId} repeats call ${chain} but ran with the idempotency key ${idempotencyKey}, not ${first.key} (call ${first.callId}'s): the backend sees two requests`;
    }
    const level = run.sideEffectLevels.get(name) ?? sideEffect;
    if ((level !== 'STATEFUL' && level !== 'CRITICAL') || e.payload.attempt !== 1 || refused.has(callId)) continue;
    const before = started.get(chain);
    if (before !== undefined && before !== callId)
      return `${name} (${level}) started as call ${before} and again as call ${callId}, which repeats it (the model sent the same id): a repeated call ran twice`;
    started.set(chain, callId);
  }
  // The bodies that ran, counted by the world around the tools, per tool and chain.
  const ran = new Map<string, { tool: string; chain: string; count: number }>();
  for (const [tool, calls] of run.executionsByToolCall) {
    for (const [callId, count] of calls) {
      const chain = chains.get(callId) ?? callId;
      const key = `${tool}\u0000${chain}`;
      const seen = ran.get(key) ?? { tool, chain, count: 0 };
      seen.count += count;
      ran.set(key, seen);
    }
  }
  for (const { tool, chain, count } of ran.values()) {
    const level = run.sideEffectLevels.get(tool);
    if ((level === 'STATEFUL' || level === 'CRITICAL') && count > 1)
      return `${tool} (${level}) ran ${count} times for call ${chain} and the calls that repeat it`;
  }
  return undefined;
}

function ranOnlyOnceStartStored(run: ScenarioRun): string | undefined {
  for (const [callId, bodies] of run.toolBodies ?? [])
    for (const body of bodies) {
      if (!body.startNotStored) continue;
      const level = run.sideEffectLevels.get(body.tool) ?? 'STATEFUL';
      return `${body.tool} (${level}) call ${callId} ran before the store held its start record (the write-ahead): had the process died then, nothing stored would say the call may have run`;
    }
  return undefined;
}
