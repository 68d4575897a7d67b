/**
 * The production host's YAML config for a case, written as an operator writes
 * agent.yaml: the models it names (the primary and its fallbacks, over the wire
 * with their own keys where the case's provider is the wire fake), the operator's tool settings (the scenario's
 * `operator`), a tool output cap when the scenario sets one, the gate's reference
 * prices for every model it names (each answer then carries its turns' cost, which
 * host-answers-follow-outcomes bills again), and the harness's
 * own snapshot and session settings — and the scenario's loop limits (its
 * `config:`), each where an operator writes it: `model.maxTokens`,
 * `model.temperature`, `model.timeoutMs`, `budgets`, `thresholds`, `retry`. The
 * agent's own limits travel with the agent, as a team's agent carries them: the
 * host lays the YAML's over them, key by key, and applies the agent's where its
 * YAML says nothing, as it does in production (a YAML default that overrode them
 * would run a turn past the limits the gate certified; a YAML limit it dropped
 * would run past the operator's — outside probe 27, F2). Everything else is the
 * host's own defaults, the ones a deploy gets.
 *
 * Snapshots of derived state are taken every SNAPSHOT_EVERY events (a long
 * scenario: fewer, second-host.ts `snapshotEveryOf`; production:
 * every 10,000), so every case that reopens a conversation — a crash, a refused
 * write — resumes from a snapshot and the events after it: a restore that got
 * anything wrong shows in the requests, the history and the invariants.
 */

/** Events between snapshots through the production host in the harness. */
export const SNAPSHOT_EVERY = 8;
import type { LoopConfig } from '../../kernel/index.ts';
import { checkedHostConfig, type HostConfig } from '../../host/config.ts';
import type { WireProvider } from '../../../providers/names.ts';
import type { OperatorSettings } from '../scenario/schema.ts';
import { referencePriceTable } from './reference-prices.ts';

/**
 * A model client as the case's config names it: the scripted fake (the harness
 * passes the client, as a team's code passes `modelClient`), or a wire provider
 * at the wire fake's address, its key in the environment variable `apiKeyEnv`.
 */
export interface ConfigModel {
  readonly provider: 'fake' | WireProvider;
  readonly name: string;
  readonly baseURL?: string;
  readonly apiKeyEnv?: string;
}

/**
 * The config is checked here and must be handed on as it is: the host reads which limits it writes from the checked
 * object itself, and a copy (`{ ...config }`) says it writes every one, its defaults over the agent's own limits
 * (outside probe 62, MED-1). `snapshotEvery`: events between snapshots (SNAPSHOT_EVERY unless the case says).
 *
 * `models`: the primary and its fallbacks, each where the host must build it
 * from (createHostFromConfig builds every client the YAML names, fallbacks with
 * their own keys). `keepSessions`: idle sessions are kept for reuse as the
 * host's defaults say (a case with several hosts); otherwise none is (maxIdle 0):
 * every message reopens the conversation from the store, through its snapshot.
 */
export function hostConfigFor(
  models: { readonly primary: ConfigModel; readonly fallbacks: readonly ConfigModel[] },
  toolSettings: { readonly maxOutputChars?: number; readonly retryBackoffMs?: number },
  operator?: OperatorSettings,
  keepSessions = false,
  limits: Partial<LoopConfig> = {},
  snapshotEvery = SNAPSHOT_EVERY,
): HostConfig {
  const written = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  const budgets = written({
    maxSteps: limits.maxSteps,
    maxToolCallsPerTurn: limits.maxToolCallsPerTurn,
    maxToolCallsPerSession: limits.maxToolCallsPerSession,
    maxTokensPerTurn: limits.maxTokensPerTurn,
    maxTokensPerSession: limits.maxTokensPerSession,
  });
  const thresholds = written({
    maxCompactionsPerStep: limits.maxCompactionsPerStep,
    maxCheckpointExtensions: limits.maxCheckpointExtensions,
    sideEffectNotice: limits.sideEffectNotice,
  });
  const retry = written(limits.retry ?? {});
  return checkedHostConfig({
    model: {
      ...models.primary,
      ...written({ maxTokens: limits.maxTokens, temperature: limits.temperature, timeoutMs: limits.modelTimeoutMs }),
      ...(models.fallbacks.length > 0 ? { fallback: [...models.fallbacks] } : {}),
    },
    ...(Object.keys(budgets).length > 0 ? { budgets } : {}),
    ...(Object.keys(thresholds).length > 0 ? { thresholds } : {}),
    ...(Object.keys(retry).length > 0 ? { retry } : {}),
    tools: {
      // The operator's tool settings are the config's own (the loop driven directly gets them as operator-settings.ts says).
      ...(operator?.allow !== undefined ? { allow: operator.allow } : {}),
      ...(operator?.deny !== undefined ? { deny: operator.deny } : {}),
      ...(operator?.ask !== undefined ? { ask: operator.ask } : {}),
      ...(toolSettings.maxOutputChars !== undefined ? { maxOutputChars: toolSettings.maxOutputChars } : {}),
      ...(toolSettings.retryBackoffMs !== undefined ? { retryBackoffMs: toolSettings.retryBackoffMs } : {}),
    },
    ...(operator?.traceMode !== undefined ? { trace: { mode: operator.traceMode } } : {}),
    prices: referencePriceTable([models.primary.name, ...models.fallbacks.map((m) => m.name)]),
    snapshots: { every: snapshotEvery },
    ...(keepSessions ? {} : { sessions: { maxIdle: 0 } }),
  });
}
