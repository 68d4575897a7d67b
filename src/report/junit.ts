/**
 * JUnit XML for CI test views (GitHub, GitLab, Jenkins): a testsuite per kind, a
 * testcase per case (classname = kind, name = id, time in seconds), failures
 * carrying every failing check with expected and actual, skips their reason.
 * Regressions against a baseline get a `baseline` suite so the view shows why
 * the gate failed. Every string is escaped; control characters — those XML 1.0
 * cannot hold, C1, and the bidi overrides that would reorder an id on screen —
 * are written as visible `\xNN` / `\uNNNN`, as on the terminal.
 */
import { CASE_KINDS, compareIds, failingChecks, failingRequest, failureText, oneLine, showValue, stepName, timelineLine } from './format.ts';
import { costText } from './cost/format-cost.ts';
import { nothingChecked, type CaseResult, type RunResults } from './results.ts';
import { printableLines } from './terminal-text.ts';

// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Controls (bidi overrides and C1 included) shown as the terminal and Markdown show them; then what XML cannot hold. */
export function junitText(text: string): string {
  return printableLines(text).replace(NOT_XML, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : code >= 0xd800 && code <= 0xdfff ? '\ufffd' : `\\u${code.toString(16)}`;
  });
}

/** Escapes text content. */
export function xmlText(text: string): string {
  return junitText(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Escapes an attribute value (quotes, and line breaks and tabs so parsers keep them). */
export function xmlAttr(text: string): string {
  return xmlText(text).replace(/"/g, '&quot;').replace(/'/g, '&apos;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}

const seconds = (ms: number) => (Math.max(0, ms) / 1000).toFixed(3);
const attrs = (pairs: Record<string, string | number | undefined>) =>
  Object.entries(pairs)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${xmlAttr(String(v))}"`)
    .join('');

export function renderJunit(results: RunResults): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const regressions = results.regressions ?? [];
  const { summary } = results;
  // A run that checked nothing failed: a test view counts it as one failure of its own (a `loopgate` suite).
  const nothing = nothingChecked(results) ? 1 : 0;
  out.push(
    `<testsuites${attrs({ name: 'loopgate', tests: summary.total + regressions.length + nothing, failures: summary.failed + regressions.length + nothing, errors: 0, skipped: summary.skipped, time: seconds(results.durationMs), timestamp: results.startedAt })}>`,
  );
  const properties = [
    ['loopgate.version', results.tool.version],
    ['seed', String(results.seed)],
    ...(results.shard ? [['shard', `${results.shard.index}/${results.shard.total}`]] : []),
    ...(results.fuzz
      ? [
          ['fuzz.agent', results.fuzz.agent],
          ['fuzz.tools', results.fuzz.tools.join(', ')],
          ...(results.fuzz.withoutArgs ? [['fuzz.withoutArgs', results.fuzz.withoutArgs.join(', ')]] : []),
          ...(results.fuzz.notFuzzed !== undefined ? [['fuzz.notFuzzed', results.fuzz.notFuzzed]] : []),
        ]
      : []),
    ...(summary.cost
      ? [
          ['cost', costText(summary.cost)],
          ['cost.amount', String(summary.cost.amount)],
          ['cost.currency', summary.cost.currency],
        ]
      : []),
  ]
    .map(([name, value]) => `      <property${attrs({ name, value })}/>`)
    .join('\n');

  for (const kind of CASE_KINDS) {
    const cases = results.cases.filter((c) => c.kind === kind).sort((a, b) => compareIds(a.id, b.id));
    if (cases.length === 0) continue;
    const k = summary.byKind[kind];
    const time = cases.reduce((sum, c) => sum + c.durationMs, 0);
    out.push(
      `  <testsuite${attrs({ name: kind, tests: k.total, failures: k.failed, errors: 0, skipped: k.skipped, time: seconds(time), timestamp: results.startedAt })}>`,
    );
    out.push(`    <properties>\n${properties}\n    </properties>`);
    for (const c of cases) out.push(testcase(c));
    out.push('  </testsuite>');
  }

  if (regressions.length > 0) {
    out.push(
      `  <testsuite${attrs({ name: 'baseline', tests: regressions.length, failures: regressions.length, errors: 0, skipped: 0, time: '0.000', timestamp: results.startedAt })}>`,
    );
    for (const r of regressions) {
      out.push(`    <testcase${attrs({ classname: 'baseline', name: `${r.id} [${r.kind}]`, time: '0.000' })}>`);
      out.push(`      <failure${attrs({ message: oneLine(r.message, 1000), type: `regression.${r.kind}` })}>${xmlText(r.message)}</failure>`);
      out.push('    </testcase>');
    }
    out.push('  </testsuite>');
  }
  if (nothing) {
    const message = `every case was skipped (${summary.skipped}): nothing was checked`;
    out.push(`  <testsuite${attrs({ name: 'loopgate', tests: 1, failures: 1, errors: 0, skipped: 0, time: '0.000', timestamp: results.startedAt })}>`);
    out.push(`    <testcase${attrs({ classname: 'loopgate', name: 'nothing was checked', time: '0.000' })}>`);
    out.push(`      <failure${attrs({ message, type: 'nothing-checked' })}>${xmlText(message)}</failure>`);
    out.push('    </testcase>');
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

/**
 * A case's own properties (read by Jenkins, GitLab and pytest-style viewers):
 * its cost, per turn, and each judge's verdict with its reason.
 */
function caseProperties(c: CaseResult): string {
  const pairs: [string, string][] = [];
  const cost = c.metrics?.cost;
  if (cost) {
    pairs.push(['cost', costText(cost)], ['cost.amount', String(cost.amount)], ['cost.currency', cost.currency]);
    if (cost.unpricedCalls > 0) pairs.push(['cost.unpricedCalls', String(cost.unpricedCalls)]);
    if (cost.uncountedCalls) pairs.push(['cost.uncountedCalls', String(cost.uncountedCalls)]);
    for (const t of cost.turns) pairs.push([`cost.turn.${t.turn}`, costText({ ...t, currency: cost.currency })]);
  }
  for (const check of c.checks) {
    if (!check.judge) continue;
    pairs.push([`judge.${check.name}`, `${check.judge.pass ? 'pass' : 'fail'} (judge ${check.judge.judge}): ${oneLine(check.judge.reason, 1000)}`]);
  }
  if (pairs.length === 0) return '';
  return `      <properties>\n${pairs.map(([name, value]) => `        <property${attrs({ name, value })}/>`).join('\n')}\n      </properties>\n`;
}

function testcase(c: CaseResult): string {
  const open = `    <testcase${attrs({ classname: c.kind, name: c.id, time: seconds(c.durationMs), file: c.file })}`;
  const properties = caseProperties(c);
  if (c.status === 'passed') return properties ? `${open}>\n${properties}    </testcase>` : `${open}/>`;
  if (c.status === 'skipped') return `${open}>\n${properties}      <skipped${attrs({ message: oneLine(c.skipReason ?? 'skipped', 1000) })}/>\n    </testcase>`;
  const failing = failingChecks(c);
  const request = failingRequest(c);
  const seen = request ? `\n\nwhat the model saw at the failing step (${stepName(request)}):\n${request.lines.map((l) => `  ${l}`).join('\n')}` : '';
  const body = (failing.length > 0 ? failing.map(checkText).join('\n\n') : failureText(c)) + seen;
  const lines = [
    `${open}>${properties ? `\n${properties.trimEnd()}` : ''}`,
    `      <failure${attrs({ message: oneLine(failureText(c), 1000), type: failing[0]?.name ?? 'failure' })}>${xmlText(body)}</failure>`,
  ];
  const out = [`title: ${c.title}`, `outcome: ${c.outcome ?? '(none)'}`, ...(c.timeline?.length ? ['timeline:', ...c.timeline.map(timelineLine)] : [])];
  lines.push(`      <system-out>${xmlText(out.join('\n'))}</system-out>`, '    </testcase>');
  return lines.join('\n');
}

function checkText(check: { name: string; message: string; expected?: unknown; actual?: unknown }): string {
  const lines = [`${check.name}: ${check.message}`];
  const indent = (text: string) => text.replace(/\n/g, '\n            ');
  if ('expected' in check) lines.push(`  expected: ${indent(showValue(check.expected, 2))}`);
  if ('actual' in check) lines.push(`  actual:   ${indent(showValue(check.actual, 2))}`);
  return lines.join('\n');
}
