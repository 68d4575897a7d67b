/**
 * The production host's YAML config for a case, written as an operator writes
 * agent.yaml: the model it names, the operator's tool settings (the scenario's
 * `operator`), a tool output cap when the scenario sets one, and the harness's
 * own snapshot and session settings — no loop limits. The loop limits the case
 * runs with (the agent's, then the scenario's) travel with the agent, as a
 * team's agent carries its own: the host must apply them where its YAML says
 * nothing, as it does in production (a YAML default that overrode them would
 * run a turn past the limits the gate certified). Everything else is the
 * host's own defaults, the ones a deploy gets.
 *
 * Snapshots of derived state are taken every SNAPSHOT_EVERY events (production:
 * every 10,000), so every case that reopens a conversation — a crash, a refused
 * write — resumes from a snapshot and the events after it: a restore that got
 * anything wrong shows in the requests, the history and the invariants.
 */

/** Events between snapshots through the production host in the harness. */
export const SNAPSHOT_EVERY = 8;
import { checkedHostConfig, type HostConfig } from '../../host/config.ts';
import type { OperatorSettings } from '../scenario/schema.ts';

/**
 * `keepSessions`: idle sessions are kept for reuse as the host's defaults say (a
 * case with several hosts); otherwise none is (maxIdle 0): every message reopens
 * the conversation from the store, through its snapshot.
 */
export function hostConfigFor(model: string, toolMaxOutputChars: number | undefined, operator?: OperatorSettings, keepSessions = false): HostConfig {
  return checkedHostConfig({
    model: { name: model },
    tools: {
      // The operator's tool settings are the config's own (the loop driven directly gets them as operator-settings.ts says).
      ...(operator?.allow !== undefined ? { allow: operator.allow } : {}),
      ...(operator?.deny !== undefined ? { deny: operator.deny } : {}),
      ...(operator?.ask !== undefined ? { ask: operator.ask } : {}),
      ...(toolMaxOutputChars !== undefined ? { maxOutputChars: toolMaxOutputChars } : {}),
    },
    ...(operator?.traceMode !== undefined ? { trace: { mode: operator.traceMode } } : {}),
    snapshots: { every: SNAPSHOT_EVERY },
    ...(keepSessions ? {} : { sessions: { maxIdle: 0 } }),
  });
}
