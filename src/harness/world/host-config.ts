/**
 * The production host's YAML config for a case: the loop limits the case runs
 * with (the agent's, then the scenario's), written as the keys an operator would
 * set, so the host reads them back through `loopConfigFrom` and the loop gets the
 * same limits as when the harness drives it directly. The tool pipeline gets the
 * pipeline's own defaults (the host's YAML defaults are stricter).
 *
 * Snapshots of derived state are taken every SNAPSHOT_EVERY events (production:
 * every 10,000), so every case that reopens a conversation — a crash, a refused
 * write — resumes from a snapshot and the events after it: a restore that got
 * anything wrong shows in the requests, the history and the invariants.
 */

/** Events between snapshots through the production host in the harness. */
export const SNAPSHOT_EVERY = 8;
import { DEFAULT_MAX_OUTPUT_CHARS, DEFAULT_TIMEOUT_MS, type LoopConfig } from '../../kernel/index.ts';
import { defaultHostConfig, type HostConfig } from '../../host/config.ts';
import type { OperatorSettings } from '../scenario/schema.ts';

/**
 * `keepSessions`: idle sessions are kept for reuse as the host's defaults say (a
 * case with several hosts); otherwise none is (maxIdle 0): every message reopens
 * the conversation from the store, through its snapshot.
 */
export function hostConfigFor(loop: LoopConfig, toolMaxOutputChars: number | undefined, operator?: OperatorSettings, keepSessions = false): HostConfig {
  const base = defaultHostConfig();
  return {
    ...base,
    model: {
      ...base.model,
      name: loop.model,
      maxTokens: loop.maxTokens,
      ...(loop.temperature !== undefined ? { temperature: loop.temperature } : {}),
      ...(loop.modelTimeoutMs !== undefined ? { timeoutMs: loop.modelTimeoutMs } : {}),
    },
    budgets: {
      maxSteps: loop.maxSteps,
      maxToolCallsPerTurn: loop.maxToolCallsPerTurn,
      maxToolCallsPerSession: loop.maxToolCallsPerSession,
      ...(loop.maxTokensPerTurn !== undefined ? { maxTokensPerTurn: loop.maxTokensPerTurn } : {}),
      ...(loop.maxTokensPerSession !== undefined ? { maxTokensPerSession: loop.maxTokensPerSession } : {}),
    },
    retry: { ...loop.retry },
    tools: {
      ...base.tools,
      // The operator's tool settings are the config's own (the loop driven directly gets them as operator-settings.ts says).
      ...(operator?.allow !== undefined ? { allow: operator.allow } : {}),
      deny: operator?.deny ?? [],
      ask: operator?.ask ?? [],
      maxOutputChars: toolMaxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS,
      defaultTimeoutMs: DEFAULT_TIMEOUT_MS,
    },
    ...(operator?.traceMode !== undefined ? { trace: { ...base.trace, mode: operator.traceMode } } : {}),
    snapshots: { every: SNAPSHOT_EVERY },
    sessions: keepSessions ? base.sessions : { ...base.sessions, maxIdle: 0 },
    thresholds: {
      maxCompactionsPerStep: loop.maxCompactionsPerStep,
      maxCheckpointExtensions: loop.maxCheckpointExtensions,
      sideEffectNotice: loop.sideEffectNotice,
    },
  };
}
