/** A scenario file as a case: run it in the second host, check it three ways and against the invariants. */
import { addTokens, outcomeLabel } from '../kernel/index.ts';
import { costOfLog } from '../report/cost/cost-of-log.ts';
import type { PriceTable } from '../report/cost/price-table.ts';
import type { CaseMetrics, CheckResult } from '../report/results.ts';
import type { Case, CaseOutcome } from './cases.ts';
import { statusFromChecks } from './cases.ts';
import { checkExpectations } from './checks/expectations.ts';
import { checkReplyAssertions } from './checks/reply-assertions.ts';
import { checkInvariants } from './invariants/index.ts';
import type { LoadedScenario } from './scenario/load.ts';
import { crashes, type HostMode, type Scenario } from './scenario/schema.ts';
import { redactForRun } from './run-redactor.ts';
import { runawayText, runScenario, type Runaway, type ScenarioRun } from './second-host.ts';
import type { SuiteContext } from './suite-context.ts';
import { conversationOfCase, secretsKnownBefore } from './world/case-conversation.ts';
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
    // Summed as a turn sums its counts: held at 2^53 − 1, so a results file stays one loopgate reads back.
    inputTokens: run.results.reduce((n, r) => addTokens(n, r.usage.inputTokens), 0),
    outputTokens: run.results.reduce((n, r) => addTokens(n, r.usage.outputTokens), 0),
    modelRequests: run.requests.length,
    ...(prices ? { cost: costOfLog(run.log.events, prices).total } : {}),
  };
}

export function outcomeOfRun(run: ScenarioRun, checks: CaseOutcome['checks'], prices?: PriceTable): CaseOutcome {
  const last = run.results[run.results.length - 1];
  return {
    status: statusFromChecks(checks),
    ...(last ? { outcome: outcomeLabel(last.outcome) } : {}),
    // A failed expectation quotes what the run did: redacted like everything else about it.
    checks: redactForRun(run, checks),
    metrics: metricsOf(run, prices),
    timeline: prices ? withCallCosts(buildTimeline(run), costOfLog(run.log.events, prices).calls, prices.currency) : buildTimeline(run),
    requests: stepRequests(run),
    virtualMs: run.virtualMs,
    secrets: run.secrets,
  };
}

/**
 * The cases of one scenario file: one per host it runs through — the scenario's
 * own (`host:`, or the production host for one that crashes), else each of the
 * suite's. Through the loop, or through its only host, a case is
 * `scenario:<id>`; the same scenario through the production host besides is
 * `scenario:<id>@host`, with the same seed.
 */
export function scenarioCases(loaded: LoadedScenario, context: Omit<SuiteContext, 'root'>): Case[] {
  const pinned = pinnedHost(loaded.scenario);
  if (pinned) return [scenarioCase(loaded, context, pinned)];
  const hosts = context.hosts ?? ['loop'];
  // --update rewrites each file once, from its first host's run; a run without it then checks every host.
  return (context.update ? hosts.slice(0, 1) : hosts).map((host) => scenarioCase(loaded, context, host));
}

/**
 * The bystander's conversation judged as the case's is: its expectations (`bystander.expect`) and every
 * invariant that applies, each check named `bystander <name>`.
 */
async function bystanderChecks(run: ScenarioRun, invariants: SuiteContext['invariants']): Promise<CheckResult[]> {
  const named = (check: CheckResult): CheckResult => ({ ...check, name: `bystander ${check.name}` });
  return [...checkExpectations(run, run.scenario.expect).map(named), ...(await checkInvariants(run, invariants)).map(named)];
}

/**
 * A case stopped as a runaway, reported as that alone: the stop cut the run short, so what its expectations and
 * the invariants would say of it is about the stop, not the agent (outside probe 35, F8).
 */
function runawayCheck(runaway: Runaway): CheckResult {
  return {
    name: 'runaway',
    passed: false,
    message: `the case was stopped: ${runawayText(runaway)}; a loop that never settles, or a loop bug. Its expectations and invariants were not judged (the stop cut the run short)`,
  };
}

/** The host a scenario itself requires, if any. */
export function pinnedHost(scenario: Scenario): HostMode | undefined {
  return crashes(scenario) ? 'production' : scenario.host;
}

export function scenarioCase(loaded: LoadedScenario, context: Omit<SuiteContext, 'root'>, host: HostMode = 'loop'): Case {
  const { scenario } = loaded;
  const base = `scenario:${loaded.id}`;
  const besides = host === 'production' && pinnedHost(scenario) === undefined;
  return {
    id: besides ? `${base}@host` : base,
    seedId: base,
    kind: 'scenario',
    title: besides ? `${scenario.name} (through the production host)` : scenario.name,
    file: loaded.file,
    tags: scenario.tags,
    // Values the host gains as secrets on a reopen are secrets by the time any report is written: redacted there too;
    // and the agent's own, for a case whose build of it throws in words that hold one.
    ...(() => {
      const secrets = secretsKnownBefore(scenario, context.registry);
      return secrets.length > 0 ? { secrets } : {};
    })(),
    async run({ seed }) {
      if (scenario.live) {
        return { status: 'skipped', checks: [], skipReason: 'a live scenario: runs only with --live (needs a provider and its API key)' };
      }
      const run = await runScenario(scenario, {
        seed,
        agents: context.registry,
        host,
        conversation: conversationOfCase(scenario, loaded.id, host, context.registry),
        ...(context.seams ? { seams: context.seams } : {}),
      });
      if (run.runaway) return outcomeOfRun(run, [runawayCheck(run.runaway)], context.prices);
      const invariants = await checkInvariants(run, context.invariants);
      const expectations = checkExpectations(run, scenario.expect);
      const checks = [
        ...(context.update ? updateCase(loaded, run, { expectations, invariants }, context.update) : expectations),
        ...(await checkReplyAssertions(run, scenario.expect.assert, context.replies)),
        ...invariants,
        ...(run.bystander ? await bystanderChecks(run.bystander, context.invariants) : []),
      ];
      return outcomeOfRun(run, checks, context.prices);
    },
  };
}
