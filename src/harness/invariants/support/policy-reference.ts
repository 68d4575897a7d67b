/**
 * The permissions as written, evaluated independently of the kernel's pipeline
 * (no shared code): visibility layers and policy rules, `*` patterns matched
 * by a hand-written search rather than the kernel's regular expressions. Read by
 * invariant 7 (a deny is never lifted) and `policy-decides-as-written` (nor is one
 * added that the rules do not make).
 */
import type { ToolPolicy, VisibilityLayer } from '../../../kernel/index.ts';

/** `*` matches any run of characters; nothing else is special (as in the kernel's lists). */
export function matchesPattern(pattern: string, name: string): boolean {
  if (!pattern.includes('*')) return pattern === name;
  const parts = pattern.split('*');
  if (!name.startsWith(parts[0]!) || !name.endsWith(parts[parts.length - 1]!)) return false;
  let at = parts[0]!.length;
  for (const part of parts.slice(1, -1)) {
    const found = name.indexOf(part, at);
    if (found < 0) return false;
    at = found + part.length;
  }
  return at <= name.length - parts[parts.length - 1]!.length;
}

export const anyMatch = (patterns: readonly string[] | undefined, name: string) => (patterns ?? []).some((p) => matchesPattern(p, name));

/** Why a layer hides the tool, or undefined if every layer leaves it visible. */
export function hiddenBy(layers: readonly VisibilityLayer[] | undefined, name: string): string | undefined {
  for (const layer of layers ?? []) {
    if (anyMatch(layer.deny, name)) return `layer ${layer.name} denies it`;
    if (layer.allow && !anyMatch(layer.allow, name)) return `layer ${layer.name}'s allow list leaves it out`;
  }
  return undefined;
}

/** A call's arguments as the model gave them (boxed: undefined arguments are arguments too). */
export type CallArgs = { readonly value: unknown };
type Rule = NonNullable<ToolPolicy['rules']>[number];

/**
 * Whether a rule's predicate holds for the call's arguments, as the policy
 * documents it: true only for `true`, and a predicate that throws matches a deny
 * or ask rule and never an allow rule (an error never opens a door).
 */
function predicateMatches(rule: Rule, args: CallArgs): boolean {
  try {
    return rule.when!(args.value) === true;
  } catch {
    return rule.decision !== 'allow';
  }
}

/**
 * The rules that match the call, by the reference; `undefined` when a rule with a
 * predicate applies and the arguments are not given (a predicate cannot be
 * judged from outside without them).
 */
export function matchingRules(policy: ToolPolicy, name: string, sideEffect: string | undefined, args?: CallArgs): readonly Rule[] | undefined {
  const applies = (rule: Rule) =>
    (!rule.tools || anyMatch(rule.tools, name)) &&
    (!rule.sideEffects || (sideEffect !== undefined && (rule.sideEffects as readonly string[]).includes(sideEffect)));
  const rules = policy.rules ?? [];
  if (args === undefined && rules.some((rule) => rule.when !== undefined && applies(rule))) return undefined;
  return rules.filter((rule) => applies(rule) && (rule.when === undefined || predicateMatches(rule, args!)));
}

/**
 * The rules' verdict by the reference: a matching deny rule (as `deniedBy`), else
 * ask if any matching rule asks, allow if any allows, the default if none matches.
 * A rule's predicate is asked about the call's arguments (it is a function of
 * them alone); undefined when there is no policy, or a predicate must judge and
 * the arguments are not given.
 */
export function referenceVerdict(
  policy: ToolPolicy | undefined,
  name: string,
  sideEffect: string | undefined,
  args?: CallArgs,
): 'allow' | 'deny' | 'ask' | { deniedBy: string } | undefined {
  if (!policy) return undefined;
  const applies = (rule: Rule) =>
    (!rule.tools || anyMatch(rule.tools, name)) &&
    (!rule.sideEffects || (sideEffect !== undefined && (rule.sideEffects as readonly string[]).includes(sideEffect)));
  // Past a plain deny, without the arguments, the reference abstains when a predicate would have to judge.
  const plainDeny = (policy.rules ?? []).find((rule) => rule.decision === 'deny' && rule.when === undefined && applies(rule));
  const matching = matchingRules(policy, name, sideEffect, args);
  const deny = matching?.find((rule) => rule.decision === 'deny') ?? plainDeny;
  if (deny) return { deniedBy: `rule ${deny.id} denies it` };
  if (matching === undefined) return undefined;
  return matching.some((rule) => rule.decision === 'ask') ? 'ask' : matching.length > 0 ? 'allow' : (policy.default ?? 'allow');
}
