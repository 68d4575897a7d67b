/** A scenario file as a case: run it in the second host, check it three ways and against the invariants. */
import { outcomeLabel } from '../kernel/index.ts';
import type { CaseMetrics } from '../report/results.ts';
import type { Case, CaseOutcome } from './cases.ts';
import { statusFromChecks } from './cases.ts';
import { checkExpectations } from './checks/expectations.ts';
import { checkInvariants } from './invariants/index.ts';
import type { LoadedScenario } from './scenario/load.ts';
import { redactForRun } from './run-redactor.ts';
import { runScenario, type ScenarioRun } from './second-host.ts';
import type { SuiteContext } from './suite-context.ts';
import { buildTimeline } from './timeline.ts';

export function metricsOf(run: ScenarioRun): CaseMetrics {
  return {
    turns: run.results.length,
    steps: run.results.reduce((n, r) => n + r.steps, 0),
    toolCalls: run.results.reduce((n, r) => n + r.toolCalls, 0),
    inputTokens: run.results.reduce((n, r) => n + r.usage.inputTokens, 0),
    outputTokens: run.results.reduce((n, r) => n + r.usage.outputTokens, 0),
    modelRequests: run.requests.length,
  };
}

export function outcomeOfRun(run: ScenarioRun, checks: CaseOutcome['checks']): CaseOutcome {
  const last = run.results[run.results.length - 1];
  return {
    status: statusFromChecks(checks),
    ...(last ? { outcome: outcomeLabel(last.outcome) } : {}),
    // A failed expectation quotes what the run did: redacted like everything else about it.
    checks: redactForRun(run, checks),
    metrics: metricsOf(run),
    timeline: buildTimeline(run),
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
      const checks = [...checkExpectations(run, scenario.expect), ...(await checkInvariants(run, context.invariants))];
      return outcomeOfRun(run, checks);
    },
  };
}
