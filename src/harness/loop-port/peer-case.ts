/**
 * A scenario file as a case against another framework's loop: skipped, with the
 * reason, when it needs what the loop lacks; else run in the peer host and judged
 * on outcome classes — on every expectation the run can answer when the loop is
 * the config's own (peer-expectations.ts) — and every invariant that can judge a
 * run from outside (the rest say why they cannot).
 */
import { createHash } from 'node:crypto';
import { addTokens, createRedactor } from '../../kernel/index.ts';
import type { Case, CaseOutcome } from '../cases.ts';
import { statusFromChecks } from '../cases.ts';
import { checkInvariants, type Invariant } from '../invariants/index.ts';
import { triggersCheck } from '../checks/expectations.ts';
import type { LoadedScenario } from '../scenario/load.ts';
import type { Scenario } from '../scenario/schema.ts';
import type { CheckResult, TimelineEntry } from '../../report/results.ts';
import { renderMessages } from '../render.ts';
import { sentRequests } from '../step-requests.ts';
import { buildAgent, agentNameOf, type AgentRegistry } from '../world/agent-under-test.ts';
import { seededRandom } from '../world/seeded-random.ts';
import { VirtualClock } from '../virtual-clock.ts';
import { checkPeerExpectations, reportedOutcomeLabel, type PeerJudging } from './peer-expectations.ts';
import type { ReplyAssertionContext } from '../checks/reply-assertion-types.ts';
import { runPeerScenario } from './peer-host.ts';
import { finalHistory, type PeerRun } from './peer-run.ts';
import type { LoopUnderTestFactory } from './peer-world.ts';
import { agentRequirementsOf } from './agent-requirements.ts';
import { lacking, requirementsOf, skipReason } from './requirements.ts';
import { conversationOfCase, secretsKnownBefore } from '../world/case-conversation.ts';

export interface PeerSuite {
  readonly loop: LoopUnderTestFactory;
  readonly registry: AgentRegistry;
  readonly invariants: readonly Invariant[];
  /** `all`: the loop is the config's own, its scenarios judged in full; else (the default) compared, outcomes judged (peer-expectations.ts). */
  readonly judged?: PeerJudging;
  /** The config's reply predicates and judges, for `expect.assert`. */
  readonly replies?: ReplyAssertionContext;
}

/** Why the scenario cannot run against the loop, or nothing. */
export async function peerSkipReason(scenario: Scenario, suite: PeerSuite): Promise<string | undefined> {
  if (scenario.live) return 'a live scenario: runs only with --live (needs a provider and its API key)';
  const agent = await buildAgent(agentNameOf(scenario, suite.registry), suite.registry, { clock: new VirtualClock(), random: seededRandom(1) });
  const timeouts = new Map((agent.tools ?? []).map((t) => [t.name, t.timeoutMs]));
  const own = skipReason(suite.loop.id, requirementsOf(scenario, timeouts), suite.loop.capabilities);
  if (own) return own;
  // What the agent itself declares and the peer would drop (its policy, claim, compactor, …), where it changes this run.
  const supports = suite.loop.capabilities.supports;
  const missing = (await agentRequirementsOf(agent, scenario)).filter((n) => !supports.includes(n.need));
  if (missing.length === 0) return undefined;
  return lacking(
    suite.loop.id,
    missing.map((m) => ({ need: m.need, why: `the agent's own — ${m.why}` })),
  );
}

export function peerScenarioCase(loaded: LoadedScenario, suite: PeerSuite): Case {
  const { scenario } = loaded;
  return {
    id: `scenario:${loaded.id}`,
    kind: 'scenario',
    title: scenario.name,
    file: loaded.file,
    tags: scenario.tags,
    ...(() => {
      const secrets = secretsKnownBefore(scenario, suite.registry);
      return secrets.length > 0 ? { secrets } : {};
    })(),
    run: ({ seed }) => runPeerCase(scenario, suite, seed, undefined, conversationOfCase(scenario, loaded.id, 'loop', suite.registry)),
  };
}

export async function runPeerCase(
  scenario: Scenario,
  suite: PeerSuite,
  seed: number,
  extra: (run: PeerRun) => CaseOutcome['checks'] = () => [],
  conversation?: string,
): Promise<CaseOutcome> {
  const skip = await peerSkipReason(scenario, suite);
  if (skip) return { status: 'skipped', checks: [], skipReason: skip };
  const run = await runPeerScenario(scenario, suite.loop, { seed, agents: suite.registry, ...(conversation !== undefined ? { conversation } : {}) });
  // What the loop kept must be messages before anything reads it (outside probe 45, F8: a content that was a text
  // crashed the report with a stack): else the case fails naming it, and nothing else is judged on it.
  const malformed = historyProblem(run);
  if (malformed) return peerOutcome(run, [...triggersCheck(run), { name: PERSISTED_HISTORY, passed: false, message: malformed }]);
  const reported = reportProblem(run);
  const checks = [
    // Its counts are counts (outside probe 45, F5: steps -1 made the run's results.json unwritable).
    ...(reported ? [{ name: LOOP_REPORT, passed: false, message: reported }] : []),
    ...extra(run),
    // A trigger that never fired: the case did not check what it meant, on a peer as on loopgate's loop (outside probe 45, F1).
    ...triggersCheck(run),
    ...(await checkPeerExpectations(run, scenario.expect, suite.judged, suite.replies)),
    ...(await checkInvariants(run, suite.invariants)),
    ...persistedChecks(run),
  ];
  return peerOutcome(run, checks);
}

/** The checks a peer's run fails when what it kept is no list of messages, or what it reported no counts. */
export const PERSISTED_HISTORY = 'persisted history';
export const LOOP_REPORT = 'loop report';

/**
 * What is wrong with what the loop kept or reported, as the check it fails (`persisted history`, `loop report`), or
 * nothing: judged before any invariant reads the run (a fuzz run of the loop judges it first, as `loopgate run` does).
 */
export function peerRunProblem(run: PeerRun): { readonly check: string; readonly message: string } | undefined {
  const malformed = historyProblem(run);
  if (malformed) return { check: PERSISTED_HISTORY, message: malformed };
  const reported = reportProblem(run);
  return reported ? { check: LOOP_REPORT, message: reported } : undefined;
}

/** Longest persisted line kept whole in a check; a longer one keeps its start, its length and a digest of all of it. */
const PERSISTED_LINE = 240;

/**
 * What the peer persisted, one passed check per line of its history at the end
 * (`persisted 000`, …): pinned with the verdicts (report/peer-verdicts.ts), so a
 * change in what the peer — or loopgate's port of it — keeps is a difference, also
 * where loopgate's expectation only says `contains` and its diff line reads the
 * same either way (outside probe 33, P28: the Agents adapter reading a timed-out
 * call `failed`, not "may have run", passed the pins).
 */
export function persistedChecks(run: PeerRun): CheckResult[] {
  // Redacted before it is cut or digested: a digest of a line holding a short secret (a PIN) would let anyone
  // holding the pinned verdicts guess it offline.
  const redact = createRedactor({ secrets: run.secrets });
  return renderMessages(finalHistory(run)).map((given, i) => {
    const line = redact(given);
    return {
      name: `persisted ${String(i).padStart(3, '0')}`,
      passed: true,
      message:
        line.length <= PERSISTED_LINE
          ? line
          : `${line.slice(0, PERSISTED_LINE)}… (${line.length} characters, sha256 ${createHash('sha256').update(line).digest('hex').slice(0, 12)})`,
    };
  });
}

export function peerOutcome(run: PeerRun, checks: CaseOutcome['checks']): CaseOutcome {
  const last = run.reports[run.reports.length - 1];
  return {
    status: statusFromChecks(checks),
    ...(run.unsettled ? { outcome: `(turn ${run.unsettled.turn} never ended)` } : last ? { outcome: reportedOutcomeLabel(last.outcome) } : {}),
    checks,
    metrics: {
      turns: run.reports.length,
      steps: run.reports.reduce((n, r) => n + (isCount(r.steps) ? r.steps : 0), 0),
      toolCalls: run.toolRuns.length,
      // Held at 2^53 − 1 as loopgate's own counts are: a peer sums what its client reports (1e308 twice is Infinity).
      inputTokens: run.reports.reduce((n, r) => addTokens(n, isTokens(r.usage?.inputTokens) ? r.usage.inputTokens : 0), 0),
      outputTokens: run.reports.reduce((n, r) => addTokens(n, isTokens(r.usage?.outputTokens) ? r.usage.outputTokens : 0), 0),
      modelRequests: run.requests.length,
    },
    // What the model saw at each step, as loopgate's cases show it (outside probe 46: a peer's failures showed none).
    requests: sentRequests(run.requests, run.requestTurns, run.secrets),
    timeline: peerTimeline(run),
    virtualMs: run.virtualMs,
    secrets: run.secrets,
  };
}

const isCount = (n: unknown): n is number => Number.isInteger(n) && (n as number) >= 0;
/** A token count: 0 or more (held at 2^53 − 1 when summed, so Infinity is one too). */
const isTokens = (n: unknown): n is number => typeof n === 'number' && n >= 0;

/** What is wrong with the counts a turn's report gives, or nothing. */
function reportProblem(run: PeerRun): string | undefined {
  if (run.malformedReports?.length) return run.malformedReports[0];
  for (const r of run.reports) {
    if (!isCount(r.steps)) return `turn ${r.turn} reported steps ${String(r.steps)} (a count: a whole number, 0 or more)`;
    for (const key of ['inputTokens', 'outputTokens'] as const)
      if (!isTokens(r.usage?.[key])) return `turn ${r.turn} reported usage.${key} ${String(r.usage?.[key])} (a count of tokens, 0 or more)`;
  }
  return undefined;
}

/** What is wrong with a message the loop kept (its history at each turn's start and at the end, and what waits), or nothing. */
function historyProblem(run: PeerRun): string | undefined {
  for (const messages of [...run.histories, run.waiting] as readonly unknown[]) {
    if (!Array.isArray(messages)) return `the loop kept ${messages === null ? 'null' : typeof messages}, not a list of messages`;
    for (const [i, m] of messages.entries()) {
      if (m === null || typeof m !== 'object') return `message ${i}: ${m === null ? 'null' : typeof m}, not a message ({ role, content })`;
      const { role, content } = m as { role?: unknown; content?: unknown };
      if (role !== 'user' && role !== 'assistant') return `message ${i}: role ${JSON.stringify(role) ?? 'undefined'} (user or assistant)`;
      if (!Array.isArray(content))
        return `message ${i} (${role}): content is ${content === null ? 'null' : `a ${typeof content}`}, not a list of blocks ({ type, … })`;
      const bad = content.findIndex((b) => b === null || typeof b !== 'object' || typeof (b as { type?: unknown }).type !== 'string');
      if (bad >= 0) return `message ${i} (${role}): content[${bad}] is not a block ({ type, … })`;
    }
  }
  return undefined;
}

/** The peer's turns for the report's timeline: each ending as the peer gave it, beside the outcome it was classified as. */
function peerTimeline(run: PeerRun): TimelineEntry[] {
  const entries: TimelineEntry[] = run.faults.map((f) => ({ at: f.at, kind: 'fault', label: f.label }));
  for (const r of run.reports) {
    const e = r.ending;
    const ending =
      e.kind === 'resolved'
        ? `resolved, finish ${e.finishReason ?? '-'}`
        : e.kind === 'threw'
          ? `threw ${e.errorClass}${e.status ? ` ${e.status}` : ''}: ${e.message}`
          : `unsettled: ${e.waitingOn}`;
    entries.push({ at: 0, kind: 'outcome', turn: r.turn, label: `${run.loop.id} turn ${r.turn}: ${reportedOutcomeLabel(r.outcome)}`, detail: ending });
  }
  if (run.unsettled)
    entries.push({
      at: run.virtualMs,
      kind: 'outcome',
      turn: run.unsettled.turn,
      label: `turn ${run.unsettled.turn} never ended`,
      detail: run.unsettled.waitingOn,
    });
  return entries;
}
