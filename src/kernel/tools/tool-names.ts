/**
 * Tool names in policy rules and visibility layers fail closed (field failure:
 * "a misspelled tool name in a deny list silently denies nothing"). Every name
 * must be a registered tool, or a `*` pattern that matches at least one;
 * otherwise the tool pipeline is not built, and the error names the rule or
 * layer, the list and the position, and the closest registered name.
 *
 * The production host's config lists (host/tool-names.ts) and the harness's
 * scenario files use the same test and wording.
 */
import { closestName } from '../closest-name.ts';
import { nameMatcher } from './glob.ts';
import type { ToolPolicy } from './policy.ts';
import type { VisibilityLayer } from './visibility.ts';

/**
 * Why `name` (a tool name, or a `*` pattern) matches none of `known`, with the
 * closest known name; undefined when it matches one. `what` says what the known
 * names are ("registered tool", "tool of agent shop").
 */
export function unmatchedToolName(name: string, known: readonly string[], what = 'registered tool'): string | undefined {
  if (name.includes('*')) {
    const matches = nameMatcher([name]);
    return known.some(matches) ? undefined : `pattern "${name}" matches no ${what}${didYouMean(name.replaceAll('*', ''), known)}`;
  }
  return known.includes(name) ? undefined : `"${name}" is not a ${what}${didYouMean(name, known)}`;
}

/** `; did you mean "x"?` for the closest candidate, or nothing when none is close. */
export function didYouMean(name: string, candidates: readonly string[]): string {
  const closest = closestName(name, candidates);
  return closest === undefined ? '' : `; did you mean "${closest}"?`;
}

/** One name in a policy rule or a visibility layer that matches no registered tool. */
export interface ToolNameProblem {
  /** Where, e.g. `policy rule "no-refunds": tools[1]` or `visibility layer "global": deny[0]`. */
  readonly where: string;
  /** The name as given. */
  readonly name: string;
  /** `where: why`, with the closest registered name. */
  readonly message: string;
}

/** Every name in the policy's rules and the visibility layers that matches no registered tool. */
export function toolNameProblems(registered: readonly string[], policy: ToolPolicy = {}, layers: readonly VisibilityLayer[] = []): ToolNameProblem[] {
  const problems: ToolNameProblem[] = [];
  const check = (label: string, list: string, names: readonly string[] | undefined) => {
    names?.forEach((name, index) => {
      if (typeof name !== 'string') return; // the shape checks (policy.ts, visibility.ts) name that
      const why = unmatchedToolName(name, registered);
      const where = `${label}: ${list}[${index}]`;
      if (why) problems.push({ where, name, message: `${where}: ${why}` });
    });
  };
  (policy.rules ?? []).forEach((rule, i) => check(`policy rule ${rule?.id ? JSON.stringify(rule.id) : `#${i}`}`, 'tools', arrayOrNone(rule?.tools)));
  layers.forEach((layer, i) => {
    const label = `visibility layer ${layer?.name ? JSON.stringify(layer.name) : `#${i}`}`;
    check(label, 'allow', arrayOrNone(layer?.allow));
    check(label, 'deny', arrayOrNone(layer?.deny));
  });
  return problems;
}

/** A policy rule or visibility layer names a tool that is not registered: the pipeline is not built. */
export class ToolNameError extends Error {
  readonly problems: readonly ToolNameProblem[];
  constructor(problems: readonly ToolNameProblem[]) {
    super(problems.map((p) => p.message).join('\n'));
    this.name = 'ToolNameError';
    this.problems = problems;
  }
}

/** Throws a `ToolNameError` listing every name that matches no registered tool. */
export function checkToolNames(registered: readonly string[], policy?: ToolPolicy, layers?: readonly VisibilityLayer[]): void {
  const problems = toolNameProblems(registered, policy, layers);
  if (problems.length > 0) throw new ToolNameError(problems);
}

function arrayOrNone(value: unknown): readonly string[] | undefined {
  return Array.isArray(value) ? (value as string[]) : undefined;
}
