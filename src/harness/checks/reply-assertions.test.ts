/**
 * Reply assertions can fail — each kind, for the reasons a user would meet —
 * and a bad one is refused when its file loads, naming the file, the line and
 * the field. What a judge is sent, and what a check quotes, holds no secret.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ScriptedModelClient } from '../../../providers/fake/scripted.ts';
import { reply, transportError } from '../../../providers/fake/results.ts';
import type { ModelRequest } from '../../kernel/index.ts';
import { checkReplyAssertionNames } from '../scenario/check-reply-assertions.ts';
import { loadScenarioFile, parseScenario } from '../scenario/load.ts';
import { runScenario } from '../second-host.ts';
import type { JudgeSpec, ReplyAssertionContext, ReplyPredicate } from './reply-assertion-types.ts';
import { checkReplyAssertions } from './reply-assertions.ts';

const dir = mkdtempSync(join(tmpdir(), 'loopgate-assert-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A one-turn scenario whose model replies `text`, with `assert` lines under expect. */
function scenarioText(text: string, assert: string, extra = ''): string {
  return `name: reply assertions\n${extra}provider:\n  script:\n    - reply: ${JSON.stringify(text)}\ninbox:\n  - say: hi\nexpect:\n  outcome: replied\n  assert:\n${assert}`;
}

async function check(text: string, assert: string, context?: Partial<ReplyAssertionContext>, extra = '') {
  const scenario = parseScenario(scenarioText(text, assert, extra), 'test.yaml');
  const run = await runScenario(scenario, { seed: 1 });
  return checkReplyAssertions(run, scenario.expect.assert, { predicates: new Map(), judges: new Map(), ...context });
}

describe('each assertion kind fails when the reply does not hold', () => {
  it('matches: the pattern is not found (and passes when it is)', async () => {
    const [failed] = await check('Refund of 12 EUR done.', "    - matches: 'refund of \\d+ USD'\n      flags: i\n");
    expect(failed).toMatchObject({
      name: 'assert[0] matches',
      passed: false,
      message: 'the reply does not match /refund of \\d+ USD/i',
      actual: 'Refund of 12 EUR done.',
    });
    const [passed] = await check('Refund of 12 USD done.', "    - matches: 'refund of \\d+ USD'\n      flags: i\n");
    expect(passed!.passed).toBe(true);
  });

  it('matches: a pattern that backtracks without end is a failed check naming it, in bounded time', async () => {
    const started = performance.now();
    const [timedOut] = await check(`${'a'.repeat(40)}!`, "    - matches: '^(a+)+$'\n");
    expect(timedOut).toMatchObject({
      name: 'assert[0] matches',
      passed: false,
      message: expect.stringMatching(/^the pattern \/\^\(a\+\)\+\$\/ did not finish matching the reply within \d+ ms/),
    });
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('json: the reply is not JSON, or JSON the schema rejects (every problem named)', async () => {
    const schema = '    - json: { type: object, required: [status], additionalProperties: false, properties: { status: { enum: [ok] } } }\n';
    const [notJson] = await check('status: ok', schema);
    expect(notJson).toMatchObject({ passed: false, message: expect.stringMatching(/^the reply is not JSON: /) });
    const [invalid] = await check('{"status": "late", "extra": 1}', schema);
    expect(invalid!.passed).toBe(false);
    expect(invalid!.message).toBe(
      'the reply is JSON but not valid against the schema: (the whole reply): must NOT have additional properties ("extra"); /status: must be equal to one of the allowed values',
    );
    const [valid] = await check('{"status": "ok"}', schema);
    expect(valid!.passed).toBe(true);
  });

  it('assertion: the predicate says why, returns false, throws, or returns something else', async () => {
    const predicates = new Map<string, ReplyPredicate>([
      ['says-why', (r, run) => (r.includes('order') ? true : `no order in the reply (outcome ${run.outcome}, ${run.history.length} messages)`)],
      ['just-false', () => false],
      [
        'throws',
        () => {
          throw new Error('boom');
        },
      ],
      ['odd', () => 42 as unknown as boolean],
      ['async-ok', async (_r, run) => run.outcomes.length === 1],
    ]);
    const checks = await check(
      'hello',
      '    - assertion: says-why\n    - assertion: just-false\n    - assertion: throws\n    - assertion: odd\n    - assertion: async-ok\n',
      { predicates },
    );
    expect(checks.map((c) => [c.name, c.passed, c.message])).toEqual([
      ['assert[0] assertion says-why', false, 'no order in the reply (outcome replied, 2 messages)'],
      ['assert[1] assertion just-false', false, 'just-false returned false'],
      ['assert[2] assertion throws', false, 'the predicate threw: boom'],
      ['assert[3] assertion odd', false, 'odd returned number 42; a predicate returns true, or a string saying why it fails'],
      ['assert[4] assertion async-ok', true, 'async-ok holds'],
    ]);
  });

  it("rubric: the judge's verdict decides, and its reason is kept with the check", async () => {
    const checks = await check(
      'Your refund is done.',
      '    - rubric: The reply apologizes.\n      judge: { script: [{ pass: false, reason: There is no apology. }] }\n',
    );
    expect(checks[0]).toMatchObject({
      name: 'assert[0] rubric',
      passed: false,
      message: 'judge scripted: There is no apology.',
      judge: { judge: 'scripted', rubric: 'The reply apologizes.', pass: false, reason: 'There is no apology.' },
      expected: 'The reply apologizes.',
      actual: 'Your refund is done.',
    });
  });

  it('rubric: a judge that answers without a verdict, or whose call fails, does not pass the reply', async () => {
    const [garbled] = await check('ok', "    - rubric: Anything.\n      judge: { script: [{ reply: 'Looks fine to me!' }] }\n");
    expect(garbled).toMatchObject({
      passed: false,
      message: 'judge scripted could not grade: the judge\'s answer is not a verdict {"pass": boolean, "reason": string}: "Looks fine to me!"',
    });
    const down: JudgeSpec = new ScriptedModelClient([transportError('overloaded')], { name: 'down' });
    const [failed] = await check('ok', '    - rubric: Anything.\n', { judges: new Map([['down', down]]) });
    expect(failed).toMatchObject({ passed: false, message: "judge down could not grade: the judge's call failed: overloaded: overloaded" });
  });

  it('a turn without a reply fails every assertion, saying so', async () => {
    const scenario = parseScenario(
      'name: no reply\nprovider:\n  script:\n    - refusal: no\ninbox:\n  - say: hi\nexpect:\n  assert:\n    - matches: x\n',
      'test.yaml',
    );
    const run = await runScenario(scenario, { seed: 1 });
    const [c] = await checkReplyAssertions(run, scenario.expect.assert);
    expect(c).toMatchObject({ passed: false, message: 'the last turn has no reply to check', actual: 'failed{refusal}' });
  });
});

describe('what a judge is sent, and what a check quotes, holds no secret', () => {
  it('redacts the rubric, the conversation and the reply before the judge sees them, and the reason it gives', async () => {
    const secret = 'sk-live-0123456789abcdef';
    const seen: ModelRequest[] = [];
    const judge = new ScriptedModelClient(
      [
        (request) => {
          seen.push(request);
          return reply(JSON.stringify({ pass: false, reason: `The reply leaks ${secret}.` }));
        },
      ],
      { name: 'grader' },
    );
    const checks = await check(
      `Your key is ${secret}`,
      `    - rubric: Never repeat ${secret}.\n`,
      { judges: new Map([['grader', judge]]) },
      `secrets: [${secret}]\n`,
    );
    expect(seen).toHaveLength(1);
    expect(JSON.stringify(seen[0])).not.toContain(secret);
    expect(JSON.stringify(seen[0])).toContain('[REDACTED]');
    expect(checks[0]!.passed).toBe(false);
    expect(JSON.stringify(checks)).not.toContain(secret);
  });
});

describe('a bad assertion is a file error naming the file, the line and the field, before anything runs', () => {
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('a regular expression that does not compile', () => {
    expect(() => parseScenario(scenarioText('x', "    - matches: '(unclosed'\n"), 'bad-regex.yaml')).toThrow(
      /^bad-regex\.yaml:10:\d+: expect\.assert\[0\]\.matches: not a regular expression: Invalid regular expression: \/\(unclosed\/: Unterminated group$/m,
    );
    expect(() => parseScenario(scenarioText('x', "    - matches: 'a'\n      flags: g\n"), 'bad-flags.yaml')).toThrow(
      /bad-flags\.yaml:11:\d+: expect\.assert\[0\]\.flags: regular expression flags/,
    );
  });

  it('a JSON Schema that is not one (an unknown keyword, a bad pattern)', () => {
    expect(() => parseScenario(scenarioText('x', '    - json: { type: object, requird: [a] }\n'), 'bad-schema.yaml')).toThrow(
      /bad-schema\.yaml:10:\d+: expect\.assert\[0\]\.json: not a usable JSON Schema: strict mode: unknown keyword: "requird"/,
    );
    expect(() => parseScenario(scenarioText('x', "    - json: { type: string, pattern: '([' }\n"), 'bad-pattern.yaml')).toThrow(
      /bad-pattern\.yaml:10:\d+: expect\.assert\[0\]\.json: not a usable JSON Schema/,
    );
  });

  it('an assertion with two kinds, or none', () => {
    expect(() => parseScenario(scenarioText('x', '    - { matches: a, rubric: b }\n'), 'two.yaml')).toThrow(
      /two\.yaml:10:\d+: expect\.assert\[0\]: an assertion needs exactly one of matches, json, assertion, rubric \(got matches, rubric\)/,
    );
  });

  it('an unknown predicate, an unknown judge, a rubric with no judge, a provider judge outside a live scenario', () => {
    const context: ReplyAssertionContext = {
      predicates: new Map([['has-order', () => true]]),
      judges: new Map<string, JudgeSpec>([
        ['strict', new ScriptedModelClient([], { name: 'strict' })],
        ['claude', { provider: 'anthropic', model: 'claude-sonnet-4-5' }],
      ]),
    };
    const path = file(
      'names.yaml',
      scenarioText(
        'x',
        '    - assertion: has-ordre\n    - rubric: Polite.\n      judge: lenient\n    - rubric: Polite.\n    - rubric: Polite.\n      judge: claude\n',
      ),
    );
    const loaded = loadScenarioFile(path, dir);
    let message = '';
    try {
      checkReplyAssertionNames([loaded], context);
    } catch (error) {
      message = (error as Error).message;
    }
    const lines = message.split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/names\.yaml:10:\d+: expect\.assert\[0\]\.assertion: no assertion "has-ordre" in the config; defined: has-order$/);
    expect(lines[1]).toMatch(/names\.yaml:12:\d+: expect\.assert\[1\]\.judge: no judge "lenient" in the config; defined: strict, claude$/);
    expect(lines[2]).toMatch(
      /names\.yaml:13:\d+: expect\.assert\[2\]\.rubric: no judge: name one with judge: \(strict, claude\), or set defaultJudge in the config$/,
    );
    expect(lines[3]).toMatch(
      /names\.yaml:15:\d+: expect\.assert\[3\]\.judge: judge claude calls anthropic \(claude-sonnet-4-5\), so it grades only live scenarios/,
    );
  });
});
