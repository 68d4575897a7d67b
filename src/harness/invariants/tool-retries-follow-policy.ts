/**
 * A tool call is run as often as its retry policy says — no fewer times, no more
 * (seed 003 §2.4; scenarios/README.md, `maxRetries`: "NONE/IDEMPOTENT only;
 * default 2. STATEFUL/CRITICAL never retry"). A reference reading of the
 * documented rules, not the kernel's own helper:
 *
 * - a NONE or IDEMPOTENT call is started at most `1 + maxRetries` times (the
 *   tool's declared `maxRetries`, else 2);
 * - one whose last attempt failed in a way that calls for a retry — it threw
 *   something other than a ToolFailure (`TOOL_ERROR`) or timed out (`TIMEOUT`) —
 *   was started exactly `1 + maxRetries` times: it stopped only because the
 *   retries were spent. A loop that gives up one attempt early, or never retries
 *   a plain throw, passes every other check — the model just reads a failure a
 *   retry would have turned into a result;
 * - a STATEFUL or CRITICAL call is started once (invariant 13 says so too).
 *
 * Read from the log: a call's `tool.started` attempts up to its `tool.result`.
 * A shortfall is excused when something else stopped the retries: the turn was
 * cancelled or interrupted (its signal stops the next attempt), a crash or a
 * throw ended the process, or a body of the call failed with a ToolFailure that
 * forbids a retry (a tool may give that code itself). A call id the model used
 * for two calls in one turn is skipped (their attempts cannot be told apart).
 */
import type { LogEvent } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { viewOf } from './support/log-view.ts';

/** The default the scenario format and the README document for a tool that declares no `maxRetries`. */
const DOCUMENTED_DEFAULT_MAX_RETRIES = 2;
/** Error codes of a last attempt that called for another one (a plain throw, a timeout). */
const RETRYABLE_CODES = new Set(['TOOL_ERROR', 'TIMEOUT']);

export const toolRetriesFollowPolicy = defineInvariant({
  id: 'tool-retries-follow-policy',
  title: 'a tool call whose attempts all failed retryably ran exactly 1 + maxRetries times (NONE/IDEMPOTENT), once otherwise',
  appliesTo: loopgateOnly('the tools’ declared retries and each attempt’s start are in loopgate’s own declarations and log'),
  check: (run) => retriesFollowPolicy(run),
});

type Started = Extract<LogEvent, { type: 'tool.started' }>;

function retriesFollowPolicy(run: ScenarioRun): string | undefined {
  const retries = run.toolMaxRetries;
  if (!retries) return undefined;
  for (const turn of viewOf(run).turns) {
    const stopped =
      turn.recovered ||
      turn.outcome === undefined ||
      turn.outcome.kind === 'cancelled' ||
      turn.outcome.kind === 'interrupted' ||
      turn.events.some((e) => e.type === 'cancel.requested');
    const starts = new Map<string, Started[]>();
    const results = new Map<string, number>();
    for (const e of turn.events) {
      if (e.type === 'tool.started') starts.set(e.payload.callId, [...(starts.get(e.payload.callId) ?? []), e]);
      if (e.type === 'tool.result') results.set(e.payload.callId, (results.get(e.payload.callId) ?? 0) + 1);
    }
    for (const e of turn.events) {
      if (e.type !== 'tool.result' || results.get(e.payload.callId) !== 1) continue;
      const { callId, name } = e.payload;
      const started = (starts.get(callId) ?? []).filter((s) => s.payload.name === name);
      if (started.length === 0 || !retries.has(name)) continue;
      const level = run.sideEffectLevels.get(name) ?? started[0]!.payload.sideEffect;
      const limit = level === 'NONE' || level === 'IDEMPOTENT' ? 1 + (retries.get(name) ?? DOCUMENTED_DEFAULT_MAX_RETRIES) : 1;
      const where = `turn ${turn.turn}: ${name} (${level}, ${limit === 1 ? 'never retried' : `maxRetries ${limit - 1}`}) call ${callId}`;
      if (started.length > limit) return `${where} was started ${started.length} times; its policy allows ${limit}`;
      const code = e.payload.error?.error_code;
      if (started.length === limit || code === undefined || !RETRYABLE_CODES.has(code)) continue;
      if (stopped || run.lives > 1 || run.thrown !== undefined) continue;
      if (run.toolBodies?.get(callId)?.some((b) => b.tool === name && b.failedForGood)) continue;
      return `${where} ended ${code} after ${started.length} attempt${started.length === 1 ? '' : 's'}; a call that fails retryably runs ${limit} times before it gives up`;
    }
  }
  return undefined;
}
