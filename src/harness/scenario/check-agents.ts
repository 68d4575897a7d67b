/**
 * Before anything runs: every scenario names an agent the config defines,
 * scripts only the behaviour of that agent's own tools — never their declared
 * side-effect level, schema, timeout or retries — and names only tools that
 * exist wherever it names one (check-tool-names.ts), and lists no secret that
 * would garble the log (a word of its records, part of a tool's name) or the
 * reports (gate-words.ts). A problem is a file error
 * naming the file, the line and the field, with the closest name.
 */
import { readFileSync } from 'node:fs';
import { closestName, createRedactor, MAX_SECRETS, secretGarbles, type AnyToolDeclaration } from '../../kernel/index.ts';
import { locateInYaml } from '../../yaml/locate.ts';
import { GARBLES_THE_REPORTS, secretsGarblingTheReports } from '../gate-words.ts';
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
  const tools = new Map<string, DeclaredAgent | Error>();
  const problems: string[] = [];
  for (const l of loaded) {
    const name = agentNameOf(l.scenario, registry);
    if (!tools.has(name)) tools.set(name, await declaredTools(name, registry));
    const declared = tools.get(name)!;
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
    if (declared instanceof Error) {
      for (const line of declared.message.split('\n')) problems.push(`${at(['agent'])}: agent: ${line}`);
      continue;
    }
    const own = declared.tools;
    // `provider.kind: own` names one of the config's clients: a name it lacks could only fail the case, said here instead.
    const client = l.scenario.provider.kind === 'own' ? l.scenario.provider.client : undefined;
    if (client !== undefined && !registry.clients?.has(client)) {
      const defined = [...(registry.clients?.keys() ?? [])];
      const near = closestName(client, defined);
      problems.push(
        `${at(['provider', 'client'])}: provider.client: no client ${JSON.stringify(client)} in the config's clients${near ? ` (did you mean ${near}?)` : ''}; defined: ${defined.join(', ') || 'none (add clients: { NAME: yourHarness() } to loopgate.config.ts: docs/own-provider.md)'}`,
      );
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
    // The case's redactor looks for the agent's secrets and the scenario's (those a reopened host gains too): held to
    // the agent's own limit together. Each garbles the records or the reports as a secret of the agent would.
    const reopen = l.scenario.secretsOnReopen ?? [];
    const listed = (l.scenario.secrets?.length ?? 0) + reopen.length;
    const total = new Set([...declared.secretTexts, ...(l.scenario.secrets ?? []), ...reopen]).size;
    if (listed > 0 && total > MAX_SECRETS)
      problems.push(
        `${at(['secrets'])}: secrets: ${listed} here${reopen.length > 0 ? ' (secretsOnReopen among them)' : ''} and ${declared.secretTexts.length} of agent ${name} make ${total}; at most ${MAX_SECRETS}: each is looked for, in every form, in every text the loop writes`,
      );
    for (const key of ['secrets', 'secretsOnReopen'] as const) {
      const list = l.scenario[key] ?? [];
      const garblingTheReports = total > MAX_SECRETS ? [] : secretsGarblingTheReports(list);
      list.forEach((secret, i) => {
        const garbles = secretGarbles(secret, names) ?? (garblingTheReports.includes(i) ? GARBLES_THE_REPORTS : undefined);
        if (garbles) problems.push(`${at([key, i])}: ${key}[${i}]: ${secret.length} characters, occurs in ${garbles}; a secret must be the credential itself`);
      });
    }
    // A client message id holding a secret is refused by the production host (400, nothing stored): the case could
    // only fail, saying "(no turn ran)" — said here instead, before anything runs (outside probe 47, F3).
    const secrets = [...declared.secretTexts, ...(l.scenario.secrets ?? [])];
    if (secrets.length > 0) {
      const redact = createRedactor({ secrets });
      l.scenario.inbox.forEach((entry, i) => {
        const id = (entry as { messageId?: unknown }).messageId;
        if (typeof id === 'string' && redact(id) !== id)
          problems.push(
            `${at(['inbox', i, 'messageId'])}: inbox[${i}].messageId: holds a secret of the case or part of one: the production host refuses such an id (400); use an id that names no credential`,
          );
      });
    }
    // An executor that skips redaction leaks only secrets someone declared: with none, the case would pass whatever the log does.
    if ((l.scenario.secrets?.length ?? 0) === 0 && declared.secrets === 0)
      l.scenario.tools.forEach((t, i) => {
        if (t.executor === 'skips-redaction')
          problems.push(
            `${at(['tools', i, 'executor'])}: tools[${i}].executor: skips-redaction hands the log ${t.name}'s output unredacted, but neither this scenario (secrets:) nor agent ${label} declares a secret: with none to leak, the case checks nothing`,
          );
      });
  }
  return problems;
}

/** What the scenario checks read of an agent: its tools, and how many secrets it declares. */
interface DeclaredAgent {
  readonly tools: readonly AnyToolDeclaration[];
  readonly secrets: number;
  /** The secrets it declares. */
  readonly secretTexts: readonly string[];
}

/** The agent as declared (built once, or as the config built it), or an Error naming what is wrong with it. */
async function declaredTools(name: string, registry: AgentRegistry): Promise<DeclaredAgent | Error> {
  try {
    const inspection = await inspectAgent(name, registry);
    if (inspection.problems.length > 0) return new Error(inspection.problems.map((p) => `agent ${name}: ${p}`).join('\n'));
    const secrets = inspection.agent?.secrets;
    const texts = Array.isArray(secrets) ? secrets.filter((x): x is string => typeof x === 'string') : [];
    return { tools: inspection.tools, secrets: Array.isArray(secrets) ? secrets.length : 0, secretTexts: texts };
  } catch (error) {
    if (error instanceof UnknownAgentError) return error;
    throw error;
  }
}
