/**
 * The config's tool lists fail closed (field failure: "a misspelled tool name in a
 * deny list silently denies nothing"). Every name in `tools.allow`, `tools.deny`,
 * `tools.ask` and each mode's lists must be a registered tool, or a `*` pattern
 * that matches at least one; `tools.mode` must be one of `tools.modes` (its own
 * keys: `toString` is not a mode). Otherwise a `ConfigError` names the file, line
 * and key, and the closest registered name. The test and its wording are the
 * kernel's (kernel/tools/tool-names.ts), which refuses the agent's own rules and
 * layers the same way.
 */
import { didYouMean, unmatchedToolName } from '../kernel/index.ts';
import { ConfigError, configKey, type HostConfig } from './config.ts';

type Layer = HostConfig['tools']['modes'][string];

/** The selected mode's layer, looked up among the config's own modes only. */
export function selectedMode(config: HostConfig): (Layer & { readonly name: string }) | undefined {
  const name = config.tools.mode;
  if (name === undefined) return undefined;
  const modes = config.tools.modes;
  if (!Object.hasOwn(modes, name)) {
    const defined = Object.keys(modes);
    throw new ConfigError(
      `${configKey(config, ['tools', 'mode'])}: "${name}" is not one of tools.modes (${defined.length ? defined.join(', ') : 'none defined'})${didYouMean(name, defined)}`,
    );
  }
  return { ...modes[name]!, name };
}

/** Throws one `ConfigError` with a line for every tool name in the config that names no registered tool, each naming those registered. */
export function checkConfiguredToolNames(config: HostConfig, registered: readonly string[]): void {
  const problems: string[] = [];
  const known = registered.length ? registered.join(', ') : 'none: the host was given no tools';
  const what = `registered tool (registered: ${known})`;
  const check = (path: (string | number)[], names: readonly string[] | undefined) => {
    names?.forEach((name, index) => {
      const problem = unmatchedToolName(name, registered, what);
      if (problem) problems.push(`${configKey(config, [...path, index])}: ${problem}`);
    });
  };
  check(['tools', 'allow'], config.tools.allow);
  check(['tools', 'deny'], config.tools.deny);
  check(['tools', 'ask'], config.tools.ask);
  for (const mode of Object.keys(config.tools.modes)) {
    check(['tools', 'modes', mode, 'allow'], config.tools.modes[mode]!.allow);
    check(['tools', 'modes', mode, 'deny'], config.tools.modes[mode]!.deny);
  }
  // One line per problem, each whole (outside probe 41, F7: a header line naming the registered tools came first).
  if (problems.length > 0) throw new ConfigError(`invalid config:\n${problems.join('\n')}`);
}
