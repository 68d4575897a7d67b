/**
 * Before anything runs: every scenario names an agent the config defines,
 * scripts only the behaviour of that agent's own tools — never their declared
 * side-effect level, schema, timeout or retries — and names only tools that
 * exist wherever it names one (check-tool-names.ts), and lists no secret that
 * would garble the log (a word of its records, part of a tool's name). A problem is a file error
 * naming the file, the line and the field, with the closest name.
 */
import { readFileSync } from 'node:fs';
import { secretGarbles, type AnyToolDeclaration } from '../../kernel/index.ts';
import { locateInYaml } from '../../yaml/locate.ts';
import { agentNameOf, NO_AGENT, UnknownAgentError, type AgentRegistry } from '../world/agent-under-test.ts';
import { inspectAgent } from '../world/inspect-agent.ts';
import { toolScriptProblems } from '../world/scripted-tools.ts';
import { scenarioToolNameProblems } from './check-tool-names.ts';
import { ScenarioFileError, type LoadedScenario } from './load.ts';

export async function checkScenarioAgents(loaded: readonly LoadedScenario[], registry: AgentRegistry): Promise<void> {
  const problems = await scenarioAgentProblems(loaded, registry);
  if (problems.length > 0) throw new ScenarioFileError(problems.join('\n'));
}

/** What checkScenarioAgents refuses, one line each (empty when nothing). */
export async function scenarioAgentProblems(loaded: readonly LoadedScenario[], registry: AgentRegistry): Promise<string[]> {
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
      for (const line of own.message.split('\n')) problems.push(`${at(['agent'])}: agent: ${line}`);
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
    // `agents: {}` leaves every scenario with no agent: say so where a tool is missing, or the lines read as typos.
    const label = name === NO_AGENT && registry.agents.size === 0 ? `${NO_AGENT} (the config defines no agents)` : name;
    for (const p of scenarioToolNameProblems(l.scenario, own, label)) problems.push(`${at([...p.path])}: ${p.field}: ${p.message}`);
    // The scenario's secrets join the agent's: one that is a word of the log or inside a tool's name garbles every record.
    const names = [...own.map((t) => t.name), ...l.scenario.tools.map((t) => t.name)];
    l.scenario.secrets?.forEach((secret, i) => {
      const garbles = secretGarbles(secret, names);
      if (garbles)
        problems.push(`${at(['secrets', i])}: secrets[${i}]: ${secret.length} characters, occurs in ${garbles}; a secret must be the credential itself`);
    });
  }
  return problems;
}

/** The tools an agent declares (built once, or as the config built it), or an Error naming what is wrong with the agent. */
async function declaredTools(name: string, registry: AgentRegistry): Promise<readonly AnyToolDeclaration[] | Error> {
  try {
    const inspection = await inspectAgent(name, registry);
    if (inspection.problems.length > 0) return new Error(inspection.problems.map((p) => `agent ${name}: ${p}`).join('\n'));
    return inspection.tools;
  } catch (error) {
    if (error instanceof UnknownAgentError) return error;
    throw error;
  }
}
