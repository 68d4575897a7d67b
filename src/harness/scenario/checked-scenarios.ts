/**
 * Scenario files loaded and checked before anything runs, every problem of
 * every kind in one pass: the schema's, then — on each valid scenario or on
 * what of a faulty file is valid — the checks against its agent and the
 * config's assertions and judges. One ScenarioFileError, one line per problem.
 */
import type { ReplyAssertionContext } from '../checks/reply-assertion-types.ts';
import type { AgentRegistry } from '../world/agent-under-test.ts';
import { scenarioAgentProblems } from './check-agents.ts';
import { replyAssertionNameProblems } from './check-reply-assertions.ts';
import { wireStepProblems } from './check-wire-steps.ts';
import { readScenarios, ScenarioFileError, type LoadedScenario } from './load.ts';

export async function checkedScenarios(
  files: readonly string[],
  root: string,
  registry: AgentRegistry,
  replies: ReplyAssertionContext,
): Promise<LoadedScenario[]> {
  const { loaded, problems, secrets } = readScenarios(files, root);
  const all = [...problems, ...wireStepProblems(loaded), ...(await scenarioAgentProblems(loaded, registry)), ...replyAssertionNameProblems(loaded, replies)];
  if (all.length > 0) throw new ScenarioFileError(all.join('\n'), secrets);
  return [...loaded];
}
