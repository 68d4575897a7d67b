/**
 * A fuzz run as the reports' results (kind `fuzz`): one case per invariant — passed
 * with how many runs it held over, or failed with the violation, the shrunk
 * counterexample's file, timeline and metrics, and how to replay the search.
 */
import { outcomeLabel } from '../kernel/index.ts';
import { stepRequests } from '../harness/step-requests.ts';
import { buildTimeline } from '../harness/timeline.ts';
import { metricsOf } from '../harness/scenario-case.ts';
import { redactForRun } from '../harness/run-redactor.ts';
import { RESULTS_SCHEMA, summarize, type CaseResult, type FuzzSubject, type RunLoop, type RunResults } from '../report/results.ts';
import { EXPECTED_AT_LEAST, FAMILIES, runsToJudge } from './drawn.ts';
import type { FuzzResult } from './run-fuzz.ts';
import { isPeerRun } from '../harness/loop-port/peer-run.ts';
import type { ScenarioRun } from '../harness/second-host.ts';
import { peerOutcome } from '../harness/loop-port/peer-case.ts';

export interface FuzzReportInput {
  readonly result: FuzzResult;
  readonly startedAt: Date;
  readonly finishedAt: Date;
  readonly version: string;
  /** Where the counterexample was written, if there was one. */
  readonly counterexampleFile?: string;
  /** Whether the written file fails `loopgate run` (checked by running it), and why not when it does not. */
  readonly reproduces?: { readonly ok: boolean; readonly detail: string };
  /** The agent fuzzed and its tools (every report names them). */
  readonly subject?: FuzzSubject;
  /** The loop fuzzed, when it is one behind the port (a team's own, a framework's adapter). */
  readonly loop?: RunLoop;
}

export function fuzzResults(input: FuzzReportInput): RunResults {
  const { result } = input;
  const failure = result.failure;
  const subject = input.subject;
  const inLoop = input.loop ? ` in ${input.loop.name} behind the port, judged from outside` : '';
  const over = subject ? `, fuzzing agent ${subject.agent} (${subject.tools.join(', ') || 'no tools of its own'}) and the scripted probe${inLoop}` : inLoop;
  // Runs the loop could not take (what its agent declares needs what it lacks) are said, never counted as held.
  const skipped = result.skipped ? `; ${result.skipped.runs} generated run(s) not run: ${result.skipped.reason}` : '';
  const held = (runs: string) =>
    `held over ${runs} run(s), ${result.turns} turn(s) (seed ${result.seed}${result.interrupted ? ', stopped at the time limit' : ''})${over}${skipped}`;
  const cases: CaseResult[] = result.invariants.map((invariant): CaseResult => {
    const base = {
      id: `fuzz:${invariant.id}`,
      kind: 'fuzz' as const,
      title: invariant.title,
      durationMs: Math.round(result.durationMs),
      tags: ['fuzz', ...(invariant.invariant ? [`invariant-${invariant.invariant}`] : [])],
    };
    if (!failure || failure.invariant.id !== invariant.id) {
      // After a failure the search stops: the others held only over the runs before it.
      const tally = result.judged.get(invariant.id);
      if (tally && tally.runs === 0 && result.runs > 0) {
        const why = `not judged in any of the ${result.runs} run(s): ${tally.notJudged ?? 'not applicable'}`;
        return { ...base, status: 'skipped', skipReason: why, checks: [{ name: invariant.id, passed: true, message: why }] };
      }
      const message =
        tally && tally.runs < result.runs
          ? `${held(`${tally.runs} of ${result.runs}`)}; not judged in the other ${result.runs - tally.runs}: ${tally.notJudged}`
          : held(`${result.runs}`);
      return { ...base, status: 'passed', checks: [{ name: invariant.id, passed: true, message }] };
    }
    const run = failure.run;
    const replay = `loopgate fuzz --seed ${result.seed} --path ${failure.path}`;
    const message = `${failure.message} (found at run ${failure.foundAtRun}, shrunk in ${failure.shrinks} step(s); replay: ${replay})`;
    // Behind the port: the turns as the loop reported them, what the model saw, as `loopgate run` shows that loop's cases.
    const shown = run && isPeerRun(run) ? peerOutcome(run, []) : undefined;
    const last = run && !isPeerRun(run) ? run.results[run.results.length - 1] : undefined;
    return {
      ...base,
      status: 'failed',
      ...(input.counterexampleFile ? { file: input.counterexampleFile } : {}),
      ...(last ? { outcome: outcomeLabel(last.outcome) } : shown?.outcome !== undefined ? { outcome: shown.outcome } : {}),
      failure: run ? redactForRun(run, `${invariant.id}: ${message}`) : `${invariant.id}: ${message}`,
      ...(run && !isPeerRun(run) ? shownOfRun(run) : {}),
      ...(run && shown ? redactForRun(run, { virtualMs: run.virtualMs, metrics: shown.metrics, timeline: shown.timeline, requests: shown.requests }) : {}),
      checks: [
        run
          ? redactForRun(run, { name: invariant.id, passed: false, message, actual: failure.message })
          : { name: invariant.id, passed: false, message, actual: failure.message },
        ...(input.reproduces ? [{ name: 'counterexample reproduces with loopgate run', passed: input.reproduces.ok, message: input.reproduces.detail }] : []),
      ],
    };
  });
  cases.push(drawnCase(result));
  return {
    schema: RESULTS_SCHEMA,
    tool: { name: 'loopgate', version: input.version },
    startedAt: input.startedAt.toISOString(),
    finishedAt: input.finishedAt.toISOString(),
    durationMs: Math.round(result.durationMs),
    seed: result.seed,
    ...(input.loop ? { loop: input.loop } : {}),
    ...(subject
      ? {
          fuzz: {
            agent: subject.agent,
            tools: [...subject.tools],
            ...(subject.withoutArgs ? { withoutArgs: [...subject.withoutArgs] } : {}),
            ...(subject.notFuzzed !== undefined ? { notFuzzed: subject.notFuzzed } : {}),
          },
        }
      : {}),
    summary: summarize(cases),
    cases,
  };
}

/**
 * The fuzzer's own check: every family of faults and features a run this long
 * should have drawn many times over was drawn (drawn.ts). Its message is the
 * tally, so a report shows what the invariants held over.
 */
function drawnCase(result: FuzzResult): CaseResult {
  const base = {
    id: 'fuzz:generator-draws-every-fault',
    kind: 'fuzz' as const,
    title: 'the fuzzer drew every family of faults a run this long should hold many times over (a broken generator reaches no bug)',
    durationMs: 0,
    tags: ['fuzz', 'self-check'],
  };
  // Behind the port, only the families the loop declares what they need for are drawn (drawn.ts, `needs`).
  const families = result.families ? FAMILIES.filter((f) => result.families!.includes(f.id)) : FAMILIES;
  const cut = FAMILIES.filter((f) => !families.includes(f));
  const tally = families.map((f) => `${f.id} ${result.drawn.get(f.id) ?? 0}`).join(', ');
  if (result.failure || result.replayed !== undefined) {
    const why =
      result.replayed !== undefined
        ? `not judged: a replay of --path ${result.replayed} runs that case's shrink candidates, not what the generators draw`
        : 'not judged: the search stopped at a violation';
    return { ...base, status: 'skipped', skipReason: why, checks: [{ name: 'drawn', passed: true, message: `${why}; drawn before it: ${tally}` }] };
  }
  // Behind the port, the runs the loop could not take drew nothing it met.
  const ran = result.runs - (result.skipped?.runs ?? 0);
  const short = families.filter((f) => ran < runsToJudge(f)).map((f) => `${f.id} (from ${runsToJudge(f)})`);
  // Too few runs to judge any family: the check judged nothing, so it checked nothing (outside probe 42, F5).
  if (short.length === families.length) {
    const fewest = Math.min(...families.map(runsToJudge));
    const why = `too few runs ${ran < result.runs ? 'the loop could run ' : ''}to judge any family of faults (${ran}; the first is judged from ${fewest})`;
    return { ...base, status: 'skipped', skipReason: why, checks: [{ name: 'drawn', passed: true, message: `${why}; drawn: ${tally}` }] };
  }
  const notJudged =
    (short.length > 0 ? `; too few runs to judge ${short.join(', ')}` : '') +
    (cut.length > 0 ? `; not drawn for ${result.loop}, which does not declare what they need: ${cut.map((f) => f.id).join(', ')}` : '');
  if (result.undrawn.length > 0) {
    const message = `drew no ${result.undrawn.join(', no ')} in ${ran} run(s), where each should appear in at least ${EXPECTED_AT_LEAST}: the fuzzer's generators are broken, and the invariants held over cases that never reach such a fault (drawn: ${tally})`;
    return { ...base, status: 'failed', failure: message, checks: [{ name: 'drawn', passed: false, message, actual: tally }] };
  }
  return { ...base, status: 'passed', checks: [{ name: 'drawn', passed: true, message: `over ${ran} run(s): ${tally}${notJudged}` }] };
}

/**
 * What the report shows of a loopgate run: its time, metrics, timeline and requests — only its time when its log cannot
 * be read (the store gave the log records it refuses: the counterexample's bug itself), so the report is still written
 * (outside probe 66b: the fuzz run ended as an internal error there, exit 2, with no results.json).
 */
function shownOfRun(run: ScenarioRun) {
  try {
    return { virtualMs: run.virtualMs, metrics: metricsOf(run), timeline: buildTimeline(run), requests: stepRequests(run) };
  } catch {
    return { virtualMs: run.virtualMs };
  }
}
