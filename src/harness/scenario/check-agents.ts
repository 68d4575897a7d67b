/**
 * Before anything runs: every scenario names an agent the config defines, and
 * scripts only the behaviour of that agent's own tools — never their declared
 * side-effect level, schema, timeout or retries. A problem is a file error
 * naming the file, the line and the field.
 */
import { readFileSync } from 'node:fs';
import type { AnyToolDeclaration } from '../../kernel/index.ts';
import { locateInYaml } from '../../yaml/locate.ts';
import { VirtualClock } from '../virtual-clock.ts';
import { agentNameOf, buildAgent, NO_AGENT, UnknownAgentError, type AgentRegistry } from '../world/agent-under-test.ts';
import { toolScriptProblems } from '../world/scripted-tools.ts';
import { seededRandom } from '../world/seeded-random.ts';
import { ScenarioFileError, type LoadedScenario } from './load.ts';

export async function checkScenarioAgents(loaded: readonly LoadedScenario[], registry: AgentRegistry): Promise<void> {
  const tools = new Map<string, readonly AnyToolDeclaration[] | Error>();
  const problems: string[] = [];
  for (const l of loaded) {
    const name = agentNameOf(l.scenario, registry);
    if (!tools.has(name)) tools.set(name, await declaredTools(name, registry));
    const own = tools.get(name)!;
    const at = (path: (string | number)[]) => {
      let text = '';
      try {
        text = readFileSync(l.file, 'utf8');
      } catch {
        // the position is a courtesy
      }
      const { line, column } = text ? locateInYaml(text, path) : { line: 1, column: 1 };
      return `${l.file}:${line}:${column}`;
    };
    if (own instanceof Error) {
      problems.push(`${at(['agent'])}: agent: ${own.message}`);
      continue;
    }
    // Several agents and no default: a scenario that names none would silently run without any of them.
    if (l.scenario.agent === undefined && registry.defaultAgent === undefined && registry.agents.size > 1) {
      const names = [...registry.agents.keys()];
      problems.push(
        `${at([])}: agent: the config defines ${names.length} agents (${names.join(', ')}) and no defaultAgent: say which this scenario runs with (agent: ${names[0]}), or set defaultAgent in the config`,
      );
    }
    for (const p of toolScriptProblems(own, l.scenario.tools, name))
      problems.push(`${at(['tools', p.index, p.key])}: tools[${p.index}].${p.key}: ${p.message}`);
  }
  if (problems.length > 0) throw new ScenarioFileError(problems.join('\n'));
}

/** The tools an agent declares, built once with a throwaway clock; an unknown agent or a factory that throws is an Error value. */
async function declaredTools(name: string, registry: AgentRegistry): Promise<readonly AnyToolDeclaration[] | Error> {
  if (name === NO_AGENT && !registry.agents.has(NO_AGENT)) return [];
  try {
    const agent = await buildAgent(name, registry, { clock: new VirtualClock(), random: seededRandom(0) });
    return agent.tools ?? [];
  } catch (error) {
    if (error instanceof UnknownAgentError) return error;
    return new Error(`the factory of agent ${name} threw: ${(error as Error)?.message ?? String(error)}`);
  }
}
