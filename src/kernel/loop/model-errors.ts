/**
 * The interceptable model-error chain (seed 000 §6; seed 001 §3.2). A model call
 * that ends in a transport error or a context overflow passes through handlers in
 * order; each may answer "handled: retry" (after a delay), "switch to another
 * client", or "fail with this outcome", or pass it on. Built-ins, after any the
 * host adds:
 *
 * 1. auth and invalid requests fail at once — retrying cannot help;
 * 2. overflow → compact, and retry only if the projection actually shrank
 *    (invariant 10), else `conversation_full`;
 * 3. retry tiers for transient errors: an immediate retry, then exponential
 *    backoff with jitter honouring `retry-after`, then the fallback clients;
 *    each tier bounded by config.
 */
import { modelClientProblem, type ContextWindowExceededResult, type ModelClient, type TransportErrorKind, type TransportErrorResult } from '../model/client.ts';
import { assertNever, outcomeProblem, type Outcome } from '../outcome.ts';
import type { LoopConfig } from './config.ts';
import { shown } from './records.ts';

export type ModelErrorResult = TransportErrorResult | ContextWindowExceededResult;

export type ErrorDecision =
  | { readonly action: 'retry'; readonly delayMs: number; readonly detail: string }
  | { readonly action: 'switch_client'; readonly client: ModelClient; readonly detail: string }
  | { readonly action: 'fail'; readonly outcome: Outcome; readonly detail: string };

export interface CompactionReport {
  readonly shrank: boolean;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  readonly detail: string;
}

export interface ErrorContext {
  readonly turn: number;
  readonly step: number;
  /** Attempts made for this step so far (1 after the first call). */
  readonly attempt: number;
  readonly config: LoopConfig;
  /** The clients to fall back to, in order: those after the current one in the chain, less any inside its retry-after window. */
  readonly fallbacks: readonly ModelClient[];
  /** Per-step counters handlers may use to bound themselves. */
  readonly counters: Map<string, number>;
  readonly random: () => number;
  /** Runs the compactor once and reports whether the projection shrank. */
  compact(): Promise<CompactionReport>;
}

export interface ModelErrorHandler {
  readonly name: string;
  handle(error: ModelErrorResult, context: ErrorContext): ErrorDecision | undefined | Promise<ErrorDecision | undefined>;
}

function bump(counters: Map<string, number>, key: string): number {
  const n = (counters.get(key) ?? 0) + 1;
  counters.set(key, n);
  return n;
}

export const failFastHandler: ModelErrorHandler = {
  name: 'fail-fast',
  handle(error) {
    if (error.type !== 'transport_error') return undefined;
    if (error.kind === 'auth')
      return { action: 'fail', outcome: { kind: 'failed', reason: 'auth', detail: error.message }, detail: 'authentication fails at once' };
    if (error.kind === 'invalid_request') {
      return { action: 'fail', outcome: { kind: 'failed', reason: 'invalid_request', detail: error.message }, detail: 'an invalid request is not retried' };
    }
    return undefined;
  },
};

export const compactionHandler: ModelErrorHandler = {
  name: 'compact-on-overflow',
  async handle(error, context) {
    if (error.type !== 'context_window_exceeded') return undefined;
    const full: ErrorDecision = { action: 'fail', outcome: { kind: 'conversation_full' }, detail: '' };
    if (bump(context.counters, 'compactions') > context.config.maxCompactionsPerStep) {
      return { ...full, detail: `still overflowing after ${context.config.maxCompactionsPerStep} compactions` };
    }
    const report = await context.compact();
    if (!report.shrank) return { ...full, detail: `compaction did not shrink the projection: ${report.detail}` };
    return { action: 'retry', delayMs: 0, detail: `compacted ${report.tokensBefore} → ${report.tokensAfter} tokens (estimated)` };
  },
};

const RETRYABLE: ReadonlySet<TransportErrorKind> = new Set(['timeout', 'rate_limited', 'overloaded', 'server_error', 'network', 'malformed_stream']);

export const retryTiersHandler: ModelErrorHandler = {
  name: 'retry-tiers',
  handle(error, context) {
    if (error.type !== 'transport_error' || !RETRYABLE.has(error.kind)) return undefined;
    const { retry } = context.config;
    const retryAfter = error.retryAfterMs;
    if (retryAfter !== undefined && retryAfter > retry.maxRetryAfterMs) {
      return fallbackOrFail(error, context, `retry-after ${retryAfter} ms exceeds the ${retry.maxRetryAfterMs} ms limit`);
    }
    const immediate = context.counters.get('immediate') ?? 0;
    if (immediate < retry.immediateRetries) {
      bump(context.counters, 'immediate');
      const delayMs = Math.max(retry.immediateDelayMs, retryAfter ?? 0);
      return { action: 'retry', delayMs, detail: `tier 1: immediate retry ${immediate + 1}/${retry.immediateRetries} after ${error.kind}` };
    }
    const backoff = context.counters.get('backoff') ?? 0;
    if (backoff < retry.backoffRetries) {
      bump(context.counters, 'backoff');
      const base = Math.min(retry.backoffMaxMs, retry.backoffBaseMs * 2 ** backoff);
      const jittered = Math.round(base * (1 + retry.jitter * context.random()));
      const delayMs = Math.max(jittered, retryAfter ?? 0);
      return {
        action: 'retry',
        delayMs,
        detail: `tier 2: backoff ${backoff + 1}/${retry.backoffRetries} after ${error.kind}${retryAfter !== undefined ? ` (retry-after ${retryAfter} ms)` : ''}`,
      };
    }
    return fallbackOrFail(error, context, `tiers 1–2 spent after ${error.kind}`);
  },
};

function fallbackOrFail(error: TransportErrorResult, context: ErrorContext, why: string): ErrorDecision {
  const next = context.fallbacks[0];
  if (next) {
    bump(context.counters, 'fallback');
    return { action: 'switch_client', client: next, detail: `tier 3: fallback to ${next.name} (${why})` };
  }
  return { action: 'fail', outcome: outcomeForTransport(error), detail: why };
}

/** The outcome of a transport error nobody handled. */
export function outcomeForTransport(error: TransportErrorResult): Outcome {
  const detail = error.message;
  switch (error.kind) {
    case 'rate_limited':
      return { kind: 'failed', reason: 'rate_limited', detail };
    case 'auth':
      return { kind: 'failed', reason: 'auth', detail };
    case 'invalid_request':
      return { kind: 'failed', reason: 'invalid_request', detail };
    case 'timeout':
    case 'overloaded':
    case 'server_error':
    case 'network':
    case 'malformed_stream':
    case 'aborted':
      return { kind: 'failed', reason: 'provider_unavailable', detail: `${error.kind}: ${detail}` };
    default:
      return assertNever(error.kind, 'transport error kind');
  }
}

export const BUILT_IN_HANDLERS: readonly ModelErrorHandler[] = [failFastHandler, compactionHandler, retryTiersHandler];

/** Runs the chain; the first handler that decides wins. */
export async function handleModelError(
  error: ModelErrorResult,
  context: ErrorContext,
  handlers: readonly ModelErrorHandler[],
): Promise<{ readonly handler: string; readonly decision: ErrorDecision }> {
  for (const handler of handlers) {
    const decision = await handler.handle(error, context);
    if (decision) return { handler: handler.name, decision: checkedDecision(handler.name, decision) };
  }
  const outcome: Outcome = error.type === 'context_window_exceeded' ? { kind: 'conversation_full' } : outcomeForTransport(error);
  return { handler: 'default', decision: { action: 'fail', outcome, detail: 'no handler retried it' } };
}

/**
 * A decision outside its shape, or a `fail` whose outcome is outside the
 * alphabet (a handler in JavaScript, or cast, is held to no type), fails the turn
 * internal, naming the handler and what was wrong: carried out, an unknown action
 * or a delay that is not a number of milliseconds from 0 up has no meaning (NaN
 * never waits, Infinity never ends), and stored as it is, a decision or close the
 * catalogue does not know would leave the conversation unreadable from its store.
 */
function checkedDecision(handler: string, decision: ErrorDecision): ErrorDecision {
  const problem = decisionProblem(decision);
  if (problem !== undefined) {
    return internal(`the error handler ${JSON.stringify(handler)} answered a decision outside its shape: ${problem}`, 'its decision is outside its shape');
  }
  if (decision.action !== 'fail') return decision;
  const outside = outcomeProblem(decision.outcome);
  if (outside === undefined) return decision;
  return internal(`the error handler ${JSON.stringify(handler)} failed the turn with an outcome outside the alphabet: ${outside}`, decision.detail);
}

function internal(detail: string, decisionDetail: string): ErrorDecision {
  return { action: 'fail', outcome: { kind: 'failed', reason: 'internal', detail }, detail: decisionDetail };
}

/** What keeps `value` from being a decision the loop can carry out and store, or undefined. (Its outcome is `outcomeProblem`'s.) */
function decisionProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `${shown(value)} is not an object`;
  const d = value as { action?: unknown; delayMs?: unknown; client?: unknown; detail?: unknown };
  switch (d.action) {
    case 'retry':
      if (typeof d.delayMs !== 'number' || !Number.isFinite(d.delayMs) || d.delayMs < 0)
        return `the delay ${shown(d.delayMs)} is not a number of milliseconds from 0 up`;
      break;
    case 'switch_client': {
      if (modelClientProblem(d.client, 'client') !== undefined) return `the client ${shown(d.client)} is not a model client`;
      break;
    }
    case 'fail':
      break;
    default:
      return `the action ${shown(d.action)} is not retry, switch_client or fail`;
  }
  return typeof d.detail === 'string' ? undefined : `the detail ${shown(d.detail)} is not text`;
}
