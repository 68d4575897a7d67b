/**
 * A tool that holds its calls for a human's approval in its own SDK (the AI SDK's
 * `needsApproval`). The adapter that builds the agent (`aiSdkAgent`) makes it an
 * ask rule of the agent's policy, marked with the SDK's own setting: loopgate's
 * loop and host ask the approver as that rule says, and a peer loop that holds
 * such calls itself (capability `sdk-approval`) is handed the setting to give its
 * SDK back — so a scenario calling such a tool needs that capability of a peer,
 * not loopgate's policy, which no peer carries.
 */
import type { Agent, PolicyRule } from '../../kernel/index.ts';

const SDK_APPROVAL: unique symbol = Symbol.for('loopgate.sdk-approval');

/** The rule, marked as the SDK's approval of its tool (`needsApproval`: true or the SDK's function). A copy keeps the mark. */
export function markSdkApproval<R extends PolicyRule>(rule: R, needsApproval: unknown): R {
  return Object.assign(rule, { [SDK_APPROVAL]: needsApproval });
}

/** Is this rule an SDK's approval of a tool? */
export function isSdkApproval(rule: PolicyRule | undefined): boolean {
  return rule !== undefined && SDK_APPROVAL in rule;
}

/** The SDK approval settings the agent's policy carries, by tool name. */
export function sdkApprovals(agent: Pick<Agent, 'policy'>): ReadonlyMap<string, unknown> {
  const out = new Map<string, unknown>();
  for (const rule of agent.policy?.rules ?? [])
    if (isSdkApproval(rule)) for (const tool of rule.tools ?? []) out.set(tool, (rule as unknown as Record<typeof SDK_APPROVAL, unknown>)[SDK_APPROVAL]);
  return out;
}

/**
 * Whether the agent's own tool holds a call for approval: an SDK approval rule of its policy names the tool, and its
 * `when` (the SDK's function, as the policy reads it) holds for the arguments — or fails to answer (an error, or a
 * promise, never opens a door, as in the policy itself).
 */
export function heldForApproval(agent: Pick<Agent, 'policy'>): (tool: string, args: unknown) => boolean {
  const rules = (agent.policy?.rules ?? []).filter(isSdkApproval);
  return (tool, args) =>
    rules.some((rule) => {
      if (!(rule.tools ?? []).includes(tool)) return false;
      if (rule.when === undefined) return true;
      try {
        const answer: unknown = rule.when(args);
        // A promise is no answer (and its rejection, if any, is its own: never an unhandled one in the gate).
        if (typeof (answer as { then?: unknown } | null)?.then === 'function') Promise.resolve(answer).catch(() => {});
        return answer !== false;
      } catch {
        return true;
      }
    });
}
