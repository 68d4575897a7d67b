/**
 * Every agent of the config is built once when the config loads (with a
 * throwaway clock) and checked the way every host will build it: a broken tool
 * declaration, a policy rule or visibility layer naming no tool of the agent, a
 * factory that throws — each is one line naming the config file, the agent and
 * the fix, and nothing runs. The inspections go with the registry, so the
 * scenario checks, the fuzzer and check-host read them instead of building each
 * agent again.
 */
import { readFileSync } from 'node:fs';
import { MIN_SECRET_LENGTH, secretGarbles } from '../kernel/index.ts';
import type { AgentInspection, AgentRegistry } from '../harness/world/agent-under-test.ts';
import { GARBLES_THE_REPORTS, secretsGarblingTheReports } from '../harness/gate-words.ts';
import { inspectFactory, NEVER_SETTLES } from '../harness/world/inspect-agent.ts';
import { ConfigFileError } from './config-error.ts';
import { lineOfKey } from './locate-key.ts';

/** The config with each agent inspected; throws one ConfigFileError listing every problem, one line each. */
export async function inspectConfigAgents<C extends { readonly file: string; readonly registry: AgentRegistry }>(
  config: C,
  options: { readonly reports?: boolean } = {},
): Promise<C> {
  const inspected = new Map<string, AgentInspection>();
  const problems: string[] = [];
  const garbling = new Set<unknown>();
  let source: string | undefined;
  const where = (name: string) => {
    source ??= readSource(config.file);
    const line = lineOfKey(source, ['agents', name]);
    return `${config.file}${line !== undefined ? `:${line}` : ''}: agents.${name}`;
  };
  for (const [name, factory] of config.registry.agents) {
    const inspection = await inspectFactory(factory, () => {
      // Nothing left to run and the factory still building: exit 2 naming the agent (not Node's exit 13).
      process.stderr.write(`loopgate: ${where(name)}: ${NEVER_SETTLES}\n`);
      process.exitCode = 2;
    });
    inspected.set(name, inspection);
    for (const problem of inspection.problems) problems.push(`${where(name)}: ${problem}`);
    // Refused by the gate only (a host writes no reports): a secret its reports' own words hold garbles every report.
    const secrets = options.reports !== false && inspection.problems.length === 0 && Array.isArray(inspection.agent?.secrets) ? inspection.agent.secrets : [];
    for (const i of secretsGarblingTheReports(secrets)) {
      garbling.add(secrets[i]);
      problems.push(
        `${where(name)}: secrets[${i}] (${(secrets[i] as string).length} characters) occurs in ${GARBLES_THE_REPORTS}; a secret must be the credential itself`,
      );
    }
  }
  // Each agent's lines are said without its own secrets (inspectFactory); these go with the error so that the lines
  // hold none of any agent's either — agents share credentials, and a refusal may be about the secret itself, in a
  // tool's name (outside probe 42, F1, F2).
  const secrets = [...inspected.values()]
    .flatMap((i) => (Array.isArray(i.agent?.secrets) ? i.agent.secrets : []))
    // One refused as too short, or as a word of the loop's records or the gate's reports, is no credential: it would garble the lines.
    .filter((s) => typeof s === 'string' && s.length >= MIN_SECRET_LENGTH && secretGarbles(s, []) === undefined && !garbling.has(s));
  if (problems.length > 0) throw new ConfigFileError(problems.join('\n'), { secrets });
  return { ...config, registry: { ...config.registry, inspected } };
}

function readSource(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return ''; // the line is a courtesy
  }
}
