/**
 * Turns end the way the loop's transition table says (state-tables/loop-table.ts),
 * and the model-error chain decides as its RECOVERING column says.
 *
 * Turns end the way the loop's transition table says, judged from the outside: what the provider
 * actually answered last decides the outcome — a refusal is failed{refusal}, a
 * non-empty reply is replied, an unfixable overflow is conversation_full, an
 * auth error is failed{auth}, and so on — unless a cancel came first (then
 * cancelled by the first source) or the store refused a write (failed{persistence}).
 * The loop must also record each result as the provider returned it.
 *
 * A transient error is retried while the step has tiers left, each retry waiting
 * what its tier says (support/retry-tiers-reference.ts).
 *
 * `failed{internal}` is accepted only where the table has it for a reason the
 * scenario can cause (a model client sending arguments that are not JSON data, a
 * tool executor dropping a call's result, the agent's own claim policy or
 * model-error handler throwing).
 * The agent's own claim policy may end a turn before any request `rejected` or
 * `nothing_to_do`; everything after the claim is judged as for any agent.
 */
import { isLoopWritten, toFrozenPlainData, type LogEvent, type ModelResult } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, firstViolation, loopgateOnly, unlessHostSupplied } from './invariant.ts';
import { label, postedMessages, viewOf, type RequestView, type TurnView } from './support/log-view.ts';
import { retryTiersFollowed } from './support/retry-tiers-reference.ts';

export const outcomeFollowsTable = defineInvariant({
  id: 'outcome-follows-table',
  title: 'each turn ends, and each model error is handled, as the transition table says',
  appliesTo: loopgateOnly("the table is loopgate's loop's; a peer is judged on the scenario's outcome classes", unlessHostSupplied('model', 'errorHandlers')),
  check: (run) =>
    firstViolation(
      () => errorChainFollowsTable(run),
      () => retryTiersFollowed(run),
      () => turnsEndAsTableSays(run),
    ),
});

/** DESIGN.md: how an unhandled transport error ends a turn. */
export function failureForTransport(kind: string): string {
  switch (kind) {
    case 'rate_limited':
    case 'auth':
    case 'invalid_request':
      return `failed{${kind}}`;
    default:
      return 'failed{provider_unavailable}';
  }
}

/** A safety net of the loop: a step gives up after this many attempts. */
const MAX_ATTEMPTS_PER_STEP = 50;

function turnsEndAsTableSays(run: ScenarioRun): string | undefined {
  const view = viewOf(run);
  const mismatch = recordedAsReturned(run, view.requests);
  if (mismatch) return mismatch;
  for (const turn of view.turns) {
    if (!turn.outcome) continue; // an open turn is invariant 4's to report
    if (turn.recovered) continue; // closed by crash recovery (interrupted), not by the loop: invariant 4 checks it
    const { allowed, because } = expected(run, turn, view.requestsOf(turn.turn));
    const got = label(turn.outcome);
    if (!allowed.has(got)) return `turn ${turn.turn} ended ${got}, but ${because}: the table says ${[...allowed].join(' or ')}`;
  }
  return undefined;
}

/** The loop records what the provider answered; it may only say it gave up waiting (cancel, its own timeout). */
function recordedAsReturned(run: ScenarioRun, requests: readonly RequestView[]): string | undefined {
  for (const r of requests) {
    const logged = r.result?.payload.result;
    const response = run.responses[r.index];
    if (!logged || response?.settled !== 'result' || !response.result) continue;
    if (response.result.type === logged.type) continue;
    if (logged.type === 'transport_error' && (logged.kind === 'aborted' || logged.kind === 'timeout')) continue;
    return `request ${r.index + 1}: the provider answered ${response.result.type}, but the loop recorded ${logged.type}${logged.type === 'transport_error' ? `{${logged.kind}}` : ''}`;
  }
  return undefined;
}

function expected(run: ScenarioRun, turn: TurnView, requests: readonly RequestView[]): { allowed: Set<string>; because: string } {
  const allowed = new Set<string>();
  const cancel = turn.events.find((e): e is Extract<LogEvent, { type: 'cancel.requested' }> => e.type === 'cancel.requested');
  if (cancel) allowed.add(`cancelled{${cancel.payload.by}}`);
  if (run.storeWrites.failed.length > 0) allowed.add('failed{persistence}');
  const budgets = run.config.maxTokensPerTurn !== undefined || run.config.maxTokensPerSession !== undefined;
  const last = requests[requests.length - 1];
  if (!last) {
    const claim = run.scenario.claim;
    const decisions = claim === undefined ? [] : Array.isArray(claim) ? claim : [claim];
    // The agent's own claim policy (or the host's) decides what it decides: it may deny or drop anything.
    const ownClaim = run.hostParts.includes('claim');
    const taken = turn.events.filter((e): e is Extract<LogEvent, { type: 'user.message' }> => e.type === 'user.message');
    if (ownClaim || decisions.some((d) => 'deny' in d)) allowed.add('rejected');
    // What people sent (the loop's own notices are no work): each dropped, or posted saying nothing (empty or whitespace).
    const posted = postedMessages(viewOf(run).known);
    const fromPeople = taken.filter((e) => !isLoopWritten(posted.get(e.payload.id)?.source ?? ''));
    const saidNothing = (e: (typeof taken)[number]) => e.payload.dropped || (posted.get(e.payload.id)?.text ?? e.payload.text).trim() === '';
    if (ownClaim || decisions.some((d) => 'drop' in d) || (taken.length > 0 && fromPeople.every(saidNothing))) allowed.add('nothing_to_do');
    // A claim policy that throws (the agent's code) fails the turn before any request, and says so.
    const outcome = turn.outcome as { readonly detail?: unknown } | undefined;
    if (ownClaim && typeof outcome?.detail === 'string' && outcome.detail.startsWith('the claim policy threw')) allowed.add('failed{internal}');
    if (budgets) allowed.add('failed{budget_exhausted}');
    if (everyClientWaitsTooLong(run, turn)) allowed.add('failed{rate_limited}');
    return { allowed, because: 'it never asked the model' };
  }
  const result = last.result?.payload.result;
  const response = run.responses[last.index]?.result;
  const because = `its last request (${last.index + 1}) ended ${result ? `${result.type}${result.type === 'transport_error' ? `{${result.kind}}` : ''}` : 'without a result'}`;
  if (!result) return { allowed, because };
  if (last.handled) {
    const { action, handler } = last.handled.payload;
    if (action === 'fail') allowed.add(result.type === 'context_window_exceeded' ? 'conversation_full' : failureForTransport(result.kind ?? ''));
    // A model-error handler that throws (the agent's code: the scenario's `errorHandlers`) fails the turn, and says so.
    const outcome = turn.outcome as { readonly detail?: unknown } | undefined;
    const threw = handler === 'error-chain' && run.scenario.errorHandlers !== undefined;
    if (threw && typeof outcome?.detail === 'string' && outcome.detail.startsWith('error handler threw')) allowed.add('failed{internal}');
    else if (last.event.payload.attempt >= MAX_ATTEMPTS_PER_STEP) allowed.add('failed{provider_unavailable}');
    return { allowed, because: `${because} and the error chain decided ${action}` };
  }
  const step = last.event.payload.step;
  switch (result.type) {
    case 'reply': {
      const answered = turn.events.some((e) => e.type === 'assistant.message' && e.payload.step === step);
      allowed.add(answered ? 'replied' : 'failed{empty_reply}');
      if (answered && budgets) allowed.add('failed{budget_exhausted}'); // a steer or checkpoint continued the turn into a spent budget
      break;
    }
    case 'tool_use':
      allowed.add('failed{max_steps}');
      allowed.add('failed{budget_exhausted}');
      if (response && notPlainArgs(response)) allowed.add('failed{internal}');
      // A tool executor that broke its contract (a scenario's `executor: drops-result`) leaves the step without a result.
      if (droppedResult(run, turn)) allowed.add('failed{internal}');
      break;
    case 'max_tokens':
      allowed.add('failed{max_tokens}');
      break;
    case 'refusal':
      allowed.add('failed{refusal}');
      break;
    case 'unknown':
      allowed.add('failed{unknown_stop_reason}');
      break;
    default:
      break; // an error the chain never saw: only a cancel explains it
  }
  return { allowed, because };
}

/**
 * When the turn ended, was every client of the chain inside a retry-after window,
 * the first of them ending later than the loop waits? Then the step cannot start:
 * failed{rate_limited}, as the chain decides for a retry-after it will not wait.
 */
function everyClientWaitsTooLong(run: ScenarioRun, turn: TurnView): boolean {
  const closedAt = turn.events[turn.events.length - 1]?.at ?? 0;
  const until = new Map<string, number>();
  for (const r of viewOf(run).requests) {
    if (r.event.seq > turn.openedSeq) break;
    const given = r.result?.payload.result;
    const client = r.event.payload.client;
    if (!until.has(client)) until.set(client, Number.NEGATIVE_INFINITY);
    if (r.result && given?.type === 'transport_error' && given.retryAfterMs !== undefined)
      until.set(client, Math.max(until.get(client)!, r.result.at + given.retryAfterMs));
  }
  if (until.size < (run.scenario.provider.fallback ? 2 : 1)) return false; // a client never asked has no window
  const soonest = Math.min(...until.values());
  return soonest - closedAt > run.config.retry.maxRetryAfterMs;
}

/** Was a call made in this turn to a tool whose executor the scenario breaks (`drops-result`: no result, whatever the call's fate)? */
function droppedResult(run: ScenarioRun, turn: TurnView): boolean {
  const broken = new Set(run.scenario.tools.filter((t) => t.executor === 'drops-result').map((t) => t.name));
  return (
    broken.size > 0 && turn.events.some((e) => e.type === 'assistant.message' && e.payload.content.some((b) => b.type === 'tool_call' && broken.has(b.name)))
  );
}

function notPlainArgs(result: ModelResult): boolean {
  if (result.type !== 'tool_use') return false;
  try {
    toFrozenPlainData(
      result.calls.map((c) => c.args ?? {}),
      'args',
    );
    return false;
  } catch {
    return true;
  }
}

// ---------------------------------------------------------------------------
// The model-error chain (RECOVERING): authentication and invalid requests fail at
// once; an abort that is not a cancel is not retried; transient errors are retried
// at most `immediateRetries + backoffRetries` times per client and step, never
// sooner than the provider's retry-after, and never when retry-after is longer
// than the loop will wait; a client switch only goes to a fallback. And a client
// that asked for a retry-after is not asked again inside that window — by any
// later attempt, step or turn.
// ---------------------------------------------------------------------------

const TRANSIENT = new Set(['timeout', 'rate_limited', 'overloaded', 'server_error', 'network', 'malformed_stream']);

function errorChainFollowsTable(run: ScenarioRun): string | undefined {
  const { retry } = run.config;
  const retries = new Map<string, number>();
  /** Per client: until when it asked not to be called (the result's time plus its retry-after). */
  const windows = new Map<string, { until: number; turn: number; step: number }>();
  for (const r of viewOf(run).requests) {
    const asked = r.event.payload;
    const window = windows.get(asked.client);
    if (window && r.event.at < window.until) {
      return `turn ${asked.turn} step ${asked.step} attempt ${asked.attempt}: ${asked.client} was asked at ${r.event.at} ms, inside the retry-after window it gave in turn ${window.turn} step ${window.step} (until ${window.until} ms)`;
    }
    const given = r.result?.payload.result;
    if (r.result && given?.type === 'transport_error' && given.retryAfterMs !== undefined) {
      windows.set(asked.client, { until: r.result.at + given.retryAfterMs, turn: asked.turn, step: asked.step });
    }
  }
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
