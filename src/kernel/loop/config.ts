/** The loop's configuration: limits, budgets and the retry tiers, with defaults. */

export interface RetryConfig {
  /** Tier 1: immediate retries (seed 001 §3.2: one, after a short pause). */
  readonly immediateRetries: number;
  readonly immediateDelayMs: number;
  /** Tier 2: exponential backoff. */
  readonly backoffRetries: number;
  readonly backoffBaseMs: number;
  readonly backoffMaxMs: number;
  /** Fraction of random jitter added to each backoff wait (0..1). */
  readonly jitter: number;
  /** Longest `retry-after` the loop will honour before giving up on the tier. */
  readonly maxRetryAfterMs: number;
}

export interface LoopConfig {
  readonly model: string;
  readonly maxTokens: number;
  readonly temperature?: number;
  /** Model requests per turn. Checked before tools run (invariant 11). */
  readonly maxSteps: number;
  readonly maxToolCallsPerTurn: number;
  readonly maxToolCallsPerSession: number;
  /** Input + output tokens per turn / per conversation; undefined = unlimited. */
  readonly maxTokensPerTurn?: number;
  readonly maxTokensPerSession?: number;
  readonly modelTimeoutMs?: number;
  readonly retry: RetryConfig;
  /** Compactions tried for one overflowing request before `conversation_full`. */
  readonly maxCompactionsPerStep: number;
  /** Times checkpoint hooks may extend one turn. */
  readonly maxCheckpointExtensions: number;
  /** After a failed turn that ran side effects, tell the model in the next turn (an inject). */
  readonly sideEffectNotice: boolean;
}

export const DEFAULT_RETRY: RetryConfig = {
  immediateRetries: 1,
  immediateDelayMs: 1_000,
  backoffRetries: 3,
  backoffBaseMs: 2_000,
  backoffMaxMs: 8_000,
  jitter: 0.1,
  maxRetryAfterMs: 60_000,
};

export const DEFAULT_LOOP_CONFIG: LoopConfig = {
  model: 'default',
  maxTokens: 4_096,
  maxSteps: 10,
  maxToolCallsPerTurn: 20,
  maxToolCallsPerSession: 200,
  retry: DEFAULT_RETRY,
  maxCompactionsPerStep: 2,
  maxCheckpointExtensions: 3,
  sideEffectNotice: true,
};
