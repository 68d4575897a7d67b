/**
 * What a scenario needs from the loop it runs against, derived from the keys it
 * uses — and, for a loop that lacks any of it, the reason the case is skipped
 * ("skipped: ai-sdk has no steer — a steer reaches the running turn at its next
 * step"). A scenario that needs nothing a loop lacks runs unchanged.
 */
import type { Scenario } from '../scenario/schema.ts';
import { CAPABILITIES, type Capabilities, type Capability } from './capabilities.ts';

/** The tools' declared timeouts (the agent's own, with the scenario's stubs), by name. */
export type ToolTimeouts = ReadonlyMap<string, number | undefined>;

export function requirementsOf(scenario: Scenario, toolTimeouts: ToolTimeouts = new Map()): Capability[] {
  const needs = new Set<Capability>();
  const inbox = scenario.inbox;
  if (inbox.some((e) => e.steer !== undefined)) needs.add('steer');
  if (inbox.some((e) => e.inject !== undefined)) needs.add('inject');
  if (inbox.some((e) => e.crash || e.reopen)) needs.add('crash');
  if (inbox.some((e) => e.shutdown)) needs.add('shutdown');
  if (inbox.some((e) => e.loseLock)) needs.add('host:production');
  if (inbox.some((e) => e.at?.event !== undefined || e.at?.toolRecorded !== undefined)) needs.add('event-triggers');
  // A moment in a tool's retry: a loop without tool retries never reaches it.
  if (inbox.some((e) => (e.at?.attempt ?? 1) > 1)) needs.add('tool-retry');
  if (scenario.host === 'production' || scenario.expect.responses !== undefined) needs.add('host:production');
  if (scenario.bystander) needs.add('bystander');
  if (scenario.policy) needs.add('policy');
  if (scenario.visibility || scenario.operator?.allow !== undefined || (scenario.operator?.deny?.length ?? 0) > 0) needs.add('visibility');
  if ((scenario.operator?.ask?.length ?? 0) > 0) needs.add('policy');
  if (scenario.approver) needs.add('approver');
  if (scenario.compaction) needs.add('compaction');
  // A trigger at a checkpoint hook's run needs hooks the harness sees start (the agent's own included).
  if (scenario.checkpoints || inbox.some((e) => e.at?.checkpoint !== undefined)) needs.add('checkpoints');
  if (scenario.claim) needs.add('claim');
  if (scenario.errorHandlers) needs.add('error-handlers');
  if (scenario.provider.fallback) needs.add('fallback');
  if (scenario.store) needs.add('store-faults');
  if (scenario.prompt) needs.add('prompt-fragments');
  if (scenario.tools.some((t) => t.executor !== undefined)) needs.add('executor-faults');
  const c = scenario.config;
  if (c.maxToolCallsPerTurn !== undefined || c.maxToolCallsPerSession !== undefined) needs.add('budget:tool-calls');
  if (c.maxTokensPerTurn !== undefined || c.maxTokensPerSession !== undefined) needs.add('budget:tokens');
  if (c.modelTimeoutMs !== undefined || scenario.provider.script.some((s) => s.error?.kind === 'timeout')) needs.add('model-timeout');
  if (c.sideEffectNotice === false) needs.add('side-effect-notice');
  if (c.toolMaxOutputChars !== undefined) needs.add('output-truncation');
  if ((c.toolRetryBackoffMs ?? 0) > 0) needs.add('tool-retry-backoff');
  if (scenario.provider.kind === 'wire' && scenario.provider.provider) needs.add(`wire:${scenario.provider.provider}`);
  if (scenario.provider.kind === 'own') needs.add('own-client');
  // Only a cancel with a trigger can cut a running turn short: one without waits until the loop is idle.
  const cancelled = inbox.some((e) => e.cancel !== undefined && e.at !== undefined);
  for (const tool of scenario.tools) {
    const behaviours = tool.behaviour ?? [];
    const timeout = tool.timeoutMs ?? toolTimeouts.get(tool.name);
    // A tool that outlasts its timeout with no cancel to cut it short: only a per-tool timeout ends the turn.
    const outlasts = behaviours.some((b) => b === 'hang' || (typeof b === 'object' && 'slow' in b && timeout !== undefined && b.slow >= timeout));
    if (outlasts && !cancelled) needs.add('tool-timeout');
    if (behaviours.some((b) => typeof b === 'object' && 'fail' in b && b.fail.retryable === true)) needs.add('tool-retry');
    if (outlasts && scenario.tags.includes('retry')) needs.add('tool-retry');
    if (behaviours.some((b) => typeof b === 'object' && 'returnNotJson' in b)) needs.add('non-json-output');
  }
  if (scenario.provider.kind === 'wire' && inbox.some((e) => e.at?.delta !== undefined)) needs.add('stream-triggers');
  const notJson = scenario.provider.script.some((s) => s.tool_use?.some((call) => !jsonSafe(call.args)));
  if (notJson) needs.add('non-json-args');
  const rawArgs = scenario.provider.script.some((s) => s.tool_use?.some((call) => typeof call.args === 'string'));
  if (rawArgs && scenario.provider.kind !== 'wire') needs.add('lenient-args');
  return [...needs];
}

/** Why the loop cannot run the scenario, or nothing when it can. */
export function skipReason(loop: string, needs: readonly Capability[], capabilities: Capabilities): string | undefined {
  const missing = needs.filter((n) => !capabilities.supports.includes(n));
  if (missing.length === 0) return undefined;
  return lacking(
    loop,
    missing.map((need) => ({ need })),
  );
}

/** `<loop> has no <need> (<what it is>)[: why]; no …`: the one wording of a skip for what a loop lacks. */
export function lacking(loop: string, missing: readonly { readonly need: Capability; readonly why?: string }[]): string {
  return `${loop} has no ${missing.map((m) => `${m.need} (${CAPABILITIES[m.need]})${m.why === undefined ? '' : `: ${m.why}`}`).join('; no ')}`;
}

/** Can JSON carry this value as it is (no NaN, no infinities)? */
export function jsonSafe(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(jsonSafe);
  if (value !== null && typeof value === 'object') return Object.values(value).every(jsonSafe);
  return true;
}
