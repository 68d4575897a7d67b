/**
 * `loopgate check-host agent.yaml [--agent NAME]`: before a deploy, the production
 * host's config is checked against the agent it will serve — the agent built by
 * its factory from loopgate.config.ts. Every key must be known and every tool the
 * config names (tools.deny, ask, allow, modes) must be one of the agent's, so a
 * misspelled deny cannot fail open. Nothing is opened: no store, no model client,
 * no collector; no API key is needed. Exit 0, or 2 naming file, line and key.
 */
import { BUNDLED_CONFIG, loadConfig } from '../../config/load-config.ts';
import { inspectAgent } from '../../harness/world/inspect-agent.ts';
import { ConfigError } from '../../host/config.ts';
import { checkHostConfig } from '../../host/from-config.ts';
import { LOOPGATE_LOOP, systemClock } from '../../kernel/index.ts';
import { printable } from '../../report/terminal-text.ts';
import { EXIT } from '../exit-codes.ts';
import { UsageError } from '../usage-error.ts';
import { declaredSecrets, redactOutputAlso } from '../redacted-output.ts';

export interface CheckHostArgs {
  file: string;
  agent?: string;
  config?: string;
}

export async function checkHost(args: CheckHostArgs, out: (line: string) => void, err: (line: string) => void = () => undefined): Promise<number> {
  const config = await loadConfig({ path: args.config, forHost: true });
  // What it prints from here (a scenario refused for an agent's secret pasted in as a key) names none of its agents' secrets.
  redactOutputAlso(declaredSecrets(config.registry));
  // Without a config of the user's, the agents are loopgate's bundled example: say so before anything is judged against them.
  if (args.config === undefined && config.file === BUNDLED_CONFIG)
    err(
      `loopgate: no loopgate.config.ts found from ${printable(process.cwd())} upwards: checking against loopgate's bundled example agents (give --config for yours)`,
    );
  const name = args.agent ?? config.registry.defaultAgent;
  const defined = [...config.registry.agents.keys()];
  if (name === undefined) throw new UsageError(`name the agent the host serves (--agent NAME); ${config.file} defines: ${defined.join(', ') || 'none'}`);
  if (!config.registry.agents.has(name)) throw new UsageError(`--agent ${name}: no such agent in ${config.file}; defined: ${defined.join(', ') || 'none'}`);
  // Built once, and checked, when the config loaded.
  const agent = (await inspectAgent(name, config.registry)).agent ?? {};
  // And built as the host will build it, for loopgate's loop: an adapter of another SDK's agent refuses there what only
  // its own loop runs (an Agents agent's guardrails) — the host would refuse to start (outside probe 41, F1).
  try {
    await config.registry.agents.get(name)!({ clock: systemClock, random: Math.random, loop: LOOPGATE_LOOP });
  } catch (error) {
    throw new UsageError(`--agent ${name}: ${(error as Error)?.message ?? String(error)}`);
  }
  let parsed;
  try {
    parsed = checkHostConfig(args.file, { agent });
  } catch (error) {
    // Each problem names its file, line and key: the host's "invalid config:" heading adds a line and nothing else.
    if (error instanceof ConfigError) throw new UsageError(error.message.replace(/^invalid config:\n/, ''));
    throw error;
  }
  const tools = agent.tools ?? [];
  // The lists are the file's: an agent's own policy (its ask and deny rules) applies besides (outside probe 56, LOW-7).
  out(
    printable(
      `${args.file}: OK for agent ${name} (${tools.length} tool${tools.length === 1 ? '' : 's'}; model ${parsed.model.provider}/${parsed.model.name}; the file's tools.deny: ${parsed.tools.deny.join(', ') || 'none'}, tools.ask: ${parsed.tools.ask.join(', ') || 'none'}, beside the agent's own policy)`,
    ),
  );
  return EXIT.passed;
}
