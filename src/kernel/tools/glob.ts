/**
 * Tool-name patterns for visibility and policy lists: an exact name, or a pattern
 * where `*` matches any run of characters (`fs_*`, `*`). Nothing else is special,
 * so a tool name can never be read as a pattern by accident.
 */
export type NameMatcher = (name: string) => boolean;

export function nameMatcher(patterns: readonly string[]): NameMatcher {
  const exact = new Set<string>();
  const wildcards: RegExp[] = [];
  for (const pattern of patterns) {
    if (!pattern.includes('*')) exact.add(pattern);
    else wildcards.push(new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`));
  }
  return (name) => exact.has(name) || wildcards.some((re) => re.test(name));
}

/** The first pattern in `patterns` that matches `name`, for explanations. */
export function firstMatch(patterns: readonly string[], name: string): string | undefined {
  return patterns.find((p) => nameMatcher([p])(name));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
