/**
 * A tool both denied (`tools.deny`) and asked (`tools.ask`) in a host config:
 * the deny hides it, so the ask is never put — the config says two things and
 * only one holds. A config error naming both places. A deny pattern counts by
 * the registered tools it matches (`deny: [issue_*]` with `ask: [issue_refund]`);
 * an ask pattern may reach past a deny (`ask: ["*refund*"]` stays for the refund
 * tools to come), so only a tool the ask names outright is checked — or an ask
 * pattern the deny list holds as it is (or `*`): nothing it matches is ever asked. A tool asked
 * by name that an allow list leaves out is hidden just the same.
 *
 * Denied and allowed, in one layer (the top-level lists, or one mode's): a deny
 * is never lifted, so a tool the allow list names outright that the same layer's
 * deny matches is never offered — the same config error, measured the same way
 * (an allow pattern may reach past a deny: `allow: ["*"]` with `deny: [x]` is
 * "everything but x"; only the very same pattern, or a deny of everything, is refused).
 */
import { nameMatcher } from '../kernel/index.ts';
import { ConfigError, configKey, configSource, type HostConfig } from './config.ts';

type Path = readonly (string | number)[];

export function checkDeniedAndAsked(config: HostConfig, registered: readonly string[]): void {
  const problems = [
    ...deniedAndAllowed(config, registered, ['tools'], config.tools),
    ...Object.entries(config.tools.modes).flatMap(([mode, layer]) => deniedAndAllowed(config, registered, ['tools', 'modes', mode], layer)),
    ...deniedAndAsked(config, registered),
  ];
  if (problems.length > 0) throw new ConfigError(`invalid config:\n${problems.join('\n')}`);
}

/** The tools a list entry names: a pattern's registered matches, or the name itself. */
function named(registered: readonly string[], name: string): readonly string[] {
  return name.includes('*') ? registered.filter(nameMatcher([name])) : [name];
}

/** One visibility layer's allow entries that its own deny hides. */
function deniedAndAllowed(
  config: HostConfig,
  registered: readonly string[],
  at: Path,
  layer: { readonly deny?: readonly string[]; readonly allow?: readonly string[] | undefined },
): string[] {
  const deny = layer.deny ?? [];
  const allow = layer.allow ?? [];
  const problems: string[] = [];
  allow.forEach((tool, a) => {
    const d = tool.includes('*')
      ? deny.findIndex((denied) => denied === tool || denied === '*')
      : deny.findIndex((denied) => named(registered, denied).includes(tool));
    if (d === -1) return;
    const where = configSource(config)?.locate([...at, 'deny', d]);
    problems.push(
      `${configKey(config, [...at, 'allow', a])}: ${tool} is also denied by ${[...at, 'deny'].join('.')}[${d}]${where ? ` (${where})` : ''}: a deny is never lifted, so it is never offered; keep it in one list`,
    );
  });
  return problems;
}

/**
 * The asks the same tool settings make void: each `ask` entry a deny hides (by its `deny` index) or an allow list
 * leaves out (`deny: 'allow'`). Also what a scenario's `operator` is checked with when it is loaded.
 */
export function voidAsks(
  lists: { readonly deny: readonly string[]; readonly ask: readonly string[]; readonly allow?: readonly string[] | undefined },
  registered: readonly string[],
): { readonly ask: number; readonly tool: string; readonly deny: number | 'allow' }[] {
  const { deny, ask, allow } = lists;
  if (ask.length === 0 || (deny.length === 0 && allow === undefined)) return [];
  const allowed = allow === undefined ? undefined : nameMatcher(allow);
  const found: { ask: number; tool: string; deny: number | 'allow' }[] = [];
  ask.forEach((tool, a) => {
    // An ask pattern may reach past a deny, but not past the very same pattern (or a deny of everything): nothing it could match is ever asked.
    if (tool.includes('*')) {
      const d = deny.findIndex((denied) => denied === tool || denied === '*');
      if (d !== -1) found.push({ ask: a, tool, deny: d });
      return;
    }
    if (allowed && !allowed(tool)) {
      found.push({ ask: a, tool, deny: 'allow' });
      return;
    }
    const d = deny.findIndex((denied) => named(registered, denied).includes(tool));
    if (d !== -1) found.push({ ask: a, tool, deny: d });
  });
  return found;
}

function deniedAndAsked(config: HostConfig, registered: readonly string[]): string[] {
  return voidAsks(config.tools, registered).map(({ ask: a, tool, deny: d }) => {
    if (d === 'allow') {
      const where = configSource(config)?.locate(['tools', 'allow']);
      return `${configKey(config, ['tools', 'ask', a])}: ${tool} is not in tools.allow${where ? ` (${where})` : ''}: a tool the allow list hides is never asked for; allow it or drop the ask`;
    }
    const where = configSource(config)?.locate(['tools', 'deny', d]);
    return `${configKey(config, ['tools', 'ask', a])}: ${tool} is also denied by tools.deny[${d}]${where ? ` (${where})` : ''}: a denied tool is never asked for; keep it in one list`;
  });
}
