/**
 * A failing case's reports show the request of its failing step as the model saw
 * it — system prompt, tools, messages as short lines, redacted: the console, the
 * Markdown summary, JUnit and results.json; the HTML report under every model call
 * of the timeline (collapsed) and, open, for the failing step (its script run here
 * on a DOM stand-in; html.browser.test.ts runs it in Chromium). A secret the run
 * handled is in none of them, not even where a check quotes the reply.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { supportAgent } from '../../scenarios/example-agent/agent.ts';
import { runCases } from '../../src/harness/runner.ts';
import { scenarioCase } from '../../src/harness/scenario-case.ts';
import { loadScenarioFile } from '../../src/harness/scenario/load.ts';
import { contextFromOptions } from '../../src/harness/scenario-file.ts';
import { renderConsole } from '../../src/report/console.ts';
import { REPORT_SCRIPT } from '../../src/report/html-client.ts';
import { scriptJson } from '../../src/report/html.ts';
import { parseResultsJson, renderResultsJson } from '../../src/report/json.ts';
import { renderJunit } from '../../src/report/junit.ts';
import { renderMarkdown } from '../../src/report/markdown.ts';
import { RESULTS_SCHEMA, summarize, type CaseResult, type RunResults } from '../../src/report/results.ts';
import { runReportScript } from './fake-dom.ts';

const SECRET = 'vault-pin-5521-0098';
const dir = mkdtempSync(join(tmpdir(), 'loopgate-failing-request-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SCENARIO = `
name: The reply promises a delivery date it cannot know
agent: support
secrets: [${SECRET}]
provider:
  script:
    - tool_use: [{ id: look, name: lookup_order, args: { order_id: ORD-1001 } }]
    - reply: "ORD-1001 has shipped; it arrives tomorrow (ref ${SECRET})."
inbox:
  - say: "Where is ORD-1001? My PIN is ${SECRET}."
expect:
  outcome: replied
  reply: ORD-1001 has shipped.
`;

/** The lines the second request must show: what the model saw when it wrote the wrong reply. */
const SEEN = [
  /^model: \S+ · max tokens \d+$/,
  /^system: You are the after-sales support agent of a small online shop\. .+/,
  /^tools: lookup_order, add_note, issue_refund, notify_customer$/,
  /^user: Where is ORD-1001\? My PIN is \[REDACTED\]\.$/,
  /^assistant: call lookup_order#look \{"order_id":"ORD-1001"\}$/,
  /^user: result#look ok: \{"id":"ORD-1001",.*\}$/,
];

let results: RunResults;
let failed: CaseResult;
beforeAll(async () => {
  const file = join(dir, 'promises-delivery.yaml');
  writeFileSync(file, SCENARIO);
  const context = contextFromOptions({ agents: { support: supportAgent }, root: dir });
  const [result] = await runCases([scenarioCase(loadScenarioFile(file, dir), context)], { seed: 1, concurrency: 1 });
  failed = result!;
  const now = new Date(0).toISOString();
  results = {
    schema: RESULTS_SCHEMA,
    tool: { name: 'loopgate', version: 'test' },
    startedAt: now,
    finishedAt: now,
    durationMs: 1,
    seed: 1,
    summary: summarize([failed]),
    cases: [failed],
  };
});

const linesIn = (text: string) => text.split('\n').map((l) => l.trim());
const showsSeen = (text: string) => {
  for (const line of SEEN)
    expect(
      linesIn(text).some((l) => line.test(l)),
      `${line} in\n${text}`,
    ).toBe(true);
  expect(text).not.toContain(SECRET);
};

describe('the request the model saw, in every report of a failing case', () => {
  it('the case failed on its reply, and recorded both requests, redacted', () => {
    expect(failed.status).toBe('failed');
    // The reply is wrong, and quotes the secret: the loop redacts it before anything stores or returns it, and the checks quote it redacted.
    expect(failed.checks.filter((c) => !c.passed).map((c) => c.name)).toEqual(['reply']);
    expect(failed.checks[1]).toMatchObject({ name: 'reply', actual: 'ORD-1001 has shipped; it arrives tomorrow (ref [REDACTED]).' });
    expect(failed.requests!.map((r) => [r.turn, r.step, r.attempt])).toEqual([
      [0, 1, 1],
      [0, 2, 1],
    ]);
    const [first, second] = failed.requests!;
    expect(first!.lines).toHaveLength(4); // model, system, tools, the user's message
    showsSeen(second!.lines.join('\n'));
    expect(second!.lines).toHaveLength(SEEN.length);
    // The timeline's model calls point at their requests.
    expect(failed.timeline!.filter((e) => e.kind === 'model_call').map((e) => e.request)).toEqual([0, 1]);
  });

  it('results.json keeps them (and reads back)', () => {
    const text = renderResultsJson(results);
    expect(text).not.toContain(SECRET);
    const requests = parseResultsJson(text, 'results.json').cases[0]!.requests!;
    expect(requests).toEqual(failed.requests);
    showsSeen(requests[1]!.lines.join('\n'));
  });

  it('the console shows the failing step', () => {
    const text = renderConsole(results, { width: 200 });
    expect(text).toContain('what the model saw at the failing step:');
    expect(text).toContain(`${failed.id} — turn 0, step 2:`);
    showsSeen(text);
  });

  it('the Markdown summary and JUnit show the failing step', () => {
    const md = renderMarkdown(results);
    expect(md).toContain('what the model saw at the failing step (turn 0, step 2):');
    showsSeen(md.replace(/\\([\\`*_[\]|~#!])/g, '$1'));
    const xml = renderJunit(results);
    expect(xml).toContain('what the model saw at the failing step (turn 0, step 2):');
    const failure = /<failure[^>]*>([\s\S]*?)<\/failure>/.exec(xml)![1]!;
    showsSeen(
      failure
        .replace(/&quot;/g, '"')
        .replace(/&gt;/g, '>')
        .replace(/&lt;/g, '<')
        .replace(/&amp;/g, '&'),
    );
  });

  it('the HTML report: under every model call (collapsed), and the failing step open', () => {
    const page = runReportScript(REPORT_SCRIPT, scriptJson(results));
    expect(page.body.getAttribute('data-ready')).toBe('true');
    const card = page.byId('cases').find('details', 'case')[0]!;
    expect(card.getAttribute('data-id')).toBe(failed.id);
    const failing = card.find('details', 'failing-request');
    expect(failing).toHaveLength(1);
    expect(failing[0]!.getAttribute('open')).toBe('');
    expect(failing[0]!.find('summary')[0]!.textContent).toBe(`turn 0, step 2 · ${SEEN.length} lines`);
    showsSeen(failing[0]!.find('pre')[0]!.textContent);

    const calls = card.find('li', 'k-model_call');
    expect(calls).toHaveLength(2);
    const seen = calls.map((row) => row.find('details', 'tl-request')[0]!);
    expect(seen.map((d) => d.getAttribute('open'))).toEqual([null, null]); // collapsed
    expect(seen.map((d) => d.find('summary')[0]!.textContent)).toEqual(['what the model saw (turn 0, step 1)', 'what the model saw (turn 0, step 2)']);
    expect(seen[0]!.find('pre')[0]!.textContent.split('\n')).toEqual(failed.requests![0]!.lines);
    showsSeen(seen[1]!.find('pre')[0]!.textContent);
  });
});
