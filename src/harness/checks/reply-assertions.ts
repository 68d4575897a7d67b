/**
 * `expect.assert`: each assertion on the last turn's reply checked and
 * reported on its own — `assert[i] matches`, `json`, `assertion NAME`,
 * `rubric`. A rubric's check carries the judge's verdict and reason
 * (`judge`), which every report shows. Nothing sent to a judge, and nothing a
 * check quotes, holds a configured secret: the case's redactor runs first.
 */
import { createRedactor, outcomeLabel, project, type LogEvent, type Redactor } from '../../kernel/index.ts';
import type { CheckResult } from '../../report/results.ts';
import { grade } from '../judge/grade.ts';
import { resolveJudge } from '../judge/judge-client.ts';
import { RegexTimeoutError, testWithin } from '../bounded-regex.ts';
import { renderMessages } from '../render.ts';
import type { ReplyAssertion } from '../scenario/reply-assertions-schema.ts';
import type { ScenarioRun } from '../second-host.ts';
import { compileJsonSchema, schemaErrors } from './json-schema.ts';
import type { AssertionRun, ReplyAssertionContext } from './reply-assertion-types.ts';

export const NO_REPLY_ASSERTIONS: ReplyAssertionContext = { predicates: new Map(), judges: new Map() };

export async function checkReplyAssertions(
  run: ScenarioRun,
  assertions: readonly ReplyAssertion[] | undefined,
  context: ReplyAssertionContext = NO_REPLY_ASSERTIONS,
): Promise<CheckResult[]> {
  if (!assertions?.length) return [];
  return checkAssertionsOn({ secrets: run.secrets, run: assertionRun(run) }, assertions, context);
}

/** A run as the assertions read it: loopgate's own, or another loop's (which keeps no event log). */
export interface AssertedRun {
  readonly secrets: readonly string[];
  readonly run: AssertionRun;
}

/** `expect.assert` on any loop's run: the last turn's reply, each assertion on its own. */
export async function checkAssertionsOn(
  asserted: AssertedRun,
  assertions: readonly ReplyAssertion[] | undefined,
  context: ReplyAssertionContext = NO_REPLY_ASSERTIONS,
): Promise<CheckResult[]> {
  if (!assertions?.length) return [];
  const redact = createRedactor({ secrets: asserted.secrets });
  const { run } = asserted;
  const reply = run.replies[run.replies.length - 1];
  const out: CheckResult[] = [];
  for (const [i, assertion] of assertions.entries()) {
    const name = `assert[${i}] ${assertion.assertion !== undefined ? `assertion ${assertion.assertion}` : kindOf(assertion)}`;
    if (reply === undefined) {
      out.push({ name, passed: false, message: 'the last turn has no reply to check', actual: run.outcome ?? '(no turn ran)' });
      continue;
    }
    out.push(await checkOne(name, assertion, reply, run, context, redact));
  }
  return out;
}

function kindOf(a: ReplyAssertion): string {
  return a.matches !== undefined ? 'matches' : a.json !== undefined ? 'json' : 'rubric';
}

async function checkOne(
  name: string,
  a: ReplyAssertion,
  reply: string,
  run: AssertionRun,
  context: ReplyAssertionContext,
  redact: Redactor,
): Promise<CheckResult> {
  if (a.matches !== undefined) {
    const pattern = new RegExp(a.matches, a.flags); // compiled once already, when the file loaded
    const shown = `/${a.matches}/${a.flags ?? ''}`;
    let matched: boolean;
    try {
      matched = testWithin(pattern, reply);
    } catch (error) {
      if (!(error instanceof RegexTimeoutError)) throw error;
      const message = `the pattern ${shown} did not finish matching the reply within ${error.limitMs} ms (it backtracks without end: simplify it)`;
      return { name, passed: false, message, expected: shown, actual: reply };
    }
    return matched
      ? { name, passed: true, message: `matches ${shown}` }
      : { name, passed: false, message: `the reply does not match ${shown}`, expected: shown, actual: reply };
  }
  if (a.json !== undefined) {
    let value: unknown;
    try {
      value = JSON.parse(reply);
    } catch (error) {
      return { name, passed: false, message: `the reply is not JSON: ${(error as Error).message}`, actual: reply };
    }
    const validate = compileJsonSchema(a.json);
    if (validate instanceof Error) return { name, passed: false, message: validate.message };
    if (validate(value)) return { name, passed: true, message: 'the reply is JSON valid against the schema' };
    const problems = schemaErrors(validate.errors);
    return { name, passed: false, message: `the reply is JSON but not valid against the schema: ${problems.join('; ')}`, expected: a.json, actual: value };
  }
  if (a.assertion !== undefined) {
    const predicate = context.predicates.get(a.assertion);
    if (!predicate) return { name, passed: false, message: `no assertion ${JSON.stringify(a.assertion)} in the config` };
    let verdict: unknown;
    try {
      verdict = await predicate(reply, run);
    } catch (error) {
      return { name, passed: false, message: `the predicate threw: ${(error as Error)?.message ?? String(error)}`, actual: reply };
    }
    if (verdict === true) return { name, passed: true, message: `${a.assertion} holds` };
    if (typeof verdict === 'string') return { name, passed: false, message: verdict, actual: reply };
    if (verdict === false) return { name, passed: false, message: `${a.assertion} returned false`, actual: reply };
    return { name, passed: false, message: `${a.assertion} returned ${describe(verdict)}; a predicate returns true, or a string saying why it fails` };
  }
  // rubric
  const rubric = redact(a.rubric!);
  const judge = await resolveJudge(a, context);
  if (judge instanceof Error) return { name, passed: false, message: `could not grade: ${judge.message}`, expected: rubric };
  const history = run.history.map((line) => redact(line));
  const result = await grade(judge.client, judge.model, { rubric, history: history.slice(0, -1), reply: redact(reply) });
  if ('error' in result)
    return { name, passed: false, message: `judge ${judge.name} could not grade: ${redact(result.error)}`, expected: rubric, actual: redact(reply) };
  const reason = redact(result.reason);
  const verdict = { judge: judge.name, rubric, pass: result.pass, reason };
  return result.pass
    ? { name, passed: true, message: `judge ${judge.name}: ${reason}`, judge: verdict }
    : { name, passed: false, message: `judge ${judge.name}: ${reason}`, judge: verdict, expected: rubric, actual: redact(reply) };
}

function assertionRun(run: ScenarioRun): AssertionRun {
  const outcomes = run.results.map((r) => outcomeLabel(r.outcome));
  return {
    scenario: run.scenario.name,
    outcome: outcomes[outcomes.length - 1],
    outcomes,
    replies: run.results.map((r) => r.reply),
    history: renderMessages(project(run.log.events)),
    toolCalls: run.log.events
      .filter((e): e is Extract<LogEvent, { type: 'tool.started' }> => e.type === 'tool.started' && !e.opaque && e.payload.attempt === 1)
      .map((e) => e.payload.name),
    events: run.log.events,
  };
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}
