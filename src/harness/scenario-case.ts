/** A scenario file as a case: run it in the second host, check it three ways and against the invariants. */
import { createRedactor, outcomeLabel, redactDeep } from '../kernel/index.ts';
import { costOfLog } from '../report/cost/cost-of-log.ts';
import type { PriceTable } from '../report/cost/price-table.ts';
import type { CaseMetrics } from '../report/results.ts';
import type { Case, CaseOutcome } from './cases.ts';
import { statusFromChecks } from './cases.ts';
import { checkExpectations } from './checks/expectations.ts';
import { checkReplyAssertions } from './checks/reply-assertions.ts';
import { checkInvariants } from './invariants/index.ts';
import type { LoadedScenario } from './scenario/load.ts';
import { runScenario, type ScenarioRun } from './second-host.ts';
import type { SuiteContext } from './suite-context.ts';
import { stepRequests } from './step-requests.ts';
import { buildTimeline } from './timeline.ts';
import { updateCase } from './update/update-case.ts';
import { withCallCosts } from './timeline-cost.ts';

/** What the case consumed; with a price table, what its model calls cost. */
export function metricsOf(run: ScenarioRun, prices?: PriceTable): CaseMetrics {
  return {
    turns: run.results.length,
    steps: run.results.reduce((n, r) => n + r.steps, 0),
    toolCalls: run.results.reduce((n, r) => n + r.toolCalls, 0),
    inputTokens: run.results.reduce((n, r) => n + r.usage.inputTokens, 0),
    outputTokens: run.results.reduce((n, r) => n + r.usage.outputTokens, 0),
    modelRequests: run.requests.length,
    ...(prices ? { cost: costOfLog(run.log.events, prices).total } : {}),
  };
}

export function outcomeOfRun(run: ScenarioRun, checks: CaseOutcome['checks'], prices?: PriceTable): CaseOutcome {
  const last = run.results[run.results.length - 1];
  // A check quotes what the run produced (a reply, a request); no configured secret reaches a report through it.
  const redact = createRedactor({ secrets: run.secrets });
  return {
    status: statusFromChecks(checks),
    ...(last ? { outcome: outcomeLabel(last.outcome) } : {}),
    checks: checks.map((check) => redactDeep(check, redact) as CaseOutcome['checks'][number]),
    metrics: metricsOf(run, prices),
    timeline: prices ? withCallCosts(buildTimeline(run), costOfLog(run.log.events, prices).calls, prices.currency) : buildTimeline(run),
    requests: stepRequests(run),
    virtualMs: run.virtualMs,
  };
}

export function scenarioCase(loaded: LoadedScenario, context: Omit<SuiteContext, 'root'>): Case {
  const { scenario } = loaded;
  return {
    id: `scenario:${loaded.id}`,
    kind: 'scenario',
    title: scenario.name,
    file: loaded.file,
    tags: scenario.tags,
    async run({ seed }) {
      if (scenario.live) {
        return { status: 'skipped', checks: [], skipReason: 'a live scenario: runs only with --live (needs a provider and its API key)' };
      }
      const run = await runScenario(scenario, { seed, agents: context.registry });
      const invariants = await checkInvariants(run, context.invariants);
      const expectations = checkExpectations(run, scenario.expect);
      const checks = [
        ...(context.update ? updateCase(loaded, run, { expectations, invariants }, context.update) : expectations),
        ...(await checkReplyAssertions(run, scenario.expect.assert, context.replies)),
        ...invariants,
      ];
      return outcomeOfRun(run, checks, context.prices);
    },
  };
}
