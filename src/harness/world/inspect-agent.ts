/**
 * An agent built once, before anything runs, with a throwaway clock: to read the
 * tools it declares (scenario checks, the fuzzer's generators, check-host) and to
 * find what the kernel would refuse in it — a broken tool declaration, a policy
 * rule or visibility layer naming no tool, a bad prompt fragment — while that can
 * still be one line naming the agent, instead of a case that throws. Every case
 * still builds its own fresh agent; this one only answers questions.
 */
import {
  agentPrompt,
  agentSettingProblems,
  agentToolProblems,
  createRedactor,
  foreignAgentProblem,
  REDACTED,
  redactSecretPieces,
  type Agent,
  type AgentFactory,
} from '../../kernel/index.ts';
import { VirtualClock } from '../virtual-clock.ts';
import { LOAD_LIMIT_ENV, loadLimitMs, showLimit, TIMED_OUT, withinRealTime } from './load-limit.ts';
import { NO_AGENT, UnknownAgentError, type AgentInspection, type AgentRegistry } from './agent-under-test.ts';
import { seededRandom } from './seeded-random.ts';
import { SAME_TOOLS, signatureDifference, toolSignature } from './tool-signature.ts';

/** The registry's agent `name`, inspected (or the inspection the config made when it loaded). Throws UnknownAgentError. */
export async function inspectAgent(name: string, registry: AgentRegistry): Promise<AgentInspection> {
  const known = registry.inspected?.get(name);
  if (known) return known;
  if (name === NO_AGENT && !registry.agents.has(NO_AGENT)) return { agent: {}, tools: [], problems: [] };
  const factory = registry.agents.get(name);
  if (!factory) throw new UnknownAgentError(name, registry);
  return inspectFactory(factory);
}

/** What a factory that never settles, with nothing else left to run, is told as (its agent named by the caller). */
export const NEVER_SETTLES = 'the factory never finished: it returned a promise that never settles, and nothing is left to run';

/**
 * Builds the agent once and lists, one line each, what the kernel refuses in it.
 * A factory whose promise never settles leaves the event loop empty: the build
 * never ends, and `onNeverSettles` is told (once), so the caller can name the agent.
 */
export async function inspectFactory(factory: AgentFactory, onNeverSettles?: () => void): Promise<AgentInspection> {
  let agent: Agent;
  const limitMs = loadLimitMs();
  let settled = false;
  const watch = () => {
    if (!settled) onNeverSettles?.();
  };
  if (onNeverSettles) process.once('beforeExit', watch);
  try {
    const built = await withinRealTime(
      Promise.resolve().then(() => factory({ clock: new VirtualClock(), random: seededRandom(0) })),
      limitMs,
    ).finally(() => {
      settled = true;
      process.off('beforeExit', watch);
    });
    if (built === TIMED_OUT) {
      return {
        tools: [],
        problems: [
          `the factory did not finish within ${showLimit(limitMs)}: it waits on a timer, socket or promise that does not settle (${LOAD_LIMIT_ENV} sets the limit)`,
        ],
      };
    }
    agent = built;
  } catch (error) {
    return { tools: [], problems: [`the factory threw: ${firstLine(error)}`] };
  }
  if (agent === null || typeof agent !== 'object' || Array.isArray(agent)) {
    return {
      tools: [],
      problems: [`the factory returned ${agent === null ? 'null' : Array.isArray(agent) ? 'a list' : typeof agent}, not an agent ({ tools, system, … })`],
    };
  }
  const foreign = foreignAgentProblem(agent);
  if (foreign) return { tools: [], problems: [foreign] };
  if (agent.tools !== undefined && !Array.isArray(agent.tools))
    return { tools: [], problems: ['tools must be a list of tool declarations (defineTool({ … }))'] };
  const problems: string[] = [...agentSettingProblems(agent)];
  // What every host builds from the agent: the registry, the policy and visibility checks included.
  problems.push(...agentToolProblems(agent));
  try {
    agentPrompt(agent);
  } catch (error) {
    problems.push(firstLine(error));
  }
  if (problems.length > 0) return { agent, tools: agent.tools ?? [], problems: redactedBy(agent, problems) };
  const signature = toolSignature(agent.tools);
  // A second build, as a second case or conversation would make it: the same tools, or a problem naming the difference.
  const difference = await secondBuildDifference(factory, signature, limitMs);
  if (difference) problems.push(`the factory declares different tools on different builds: ${difference}; ${SAME_TOOLS}`);
  return { agent, tools: agent.tools ?? [], problems: redactedBy(agent, problems), signature };
}

/**
 * The problems with the secrets the agent declares redacted: a second build's error, a tool named after a key, can
 * hold one, and these lines are printed before any redactor knows the agent's secrets (outside probe 40, F5).
 */
function redactedBy(agent: Agent, problems: string[]): string[] {
  // A secret refused as one (a word of the loop's records, part of a tool's name) is not kept out of the line naming why.
  const refused = (i: number) => problems.some((line) => line.startsWith(`secrets[${i}]`));
  const secrets = Array.isArray(agent.secrets) ? agent.secrets.filter((s, i): s is string => typeof s === 'string' && s.length > 0 && !refused(i)) : [];
  if (secrets.length === 0 || problems.length === 0) return problems;
  const redact = createRedactor({ secrets });
  return problems.map((line) => redactSecretPieces(redact(line), secrets, REDACTED));
}

async function secondBuildDifference(factory: AgentFactory, first: ReturnType<typeof toolSignature>, limitMs: number): Promise<string | undefined> {
  let again: unknown;
  try {
    again = await withinRealTime(
      Promise.resolve().then(() => factory({ clock: new VirtualClock(), random: seededRandom(0) })),
      limitMs,
    );
  } catch (error) {
    return `build 2 threw: ${firstLine(error)}`;
  }
  if (again === TIMED_OUT) return `build 2 did not finish within ${showLimit(limitMs)}`;
  const tools = (again as Agent | null)?.tools;
  if (again === null || typeof again !== 'object' || (tools !== undefined && !Array.isArray(tools))) return 'build 2 returned no agent with a list of tools';
  return signatureDifference(first, toolSignature(tools), 'build 1', 'build 2');
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!;
}
