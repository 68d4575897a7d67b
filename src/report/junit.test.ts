import { describe, expect, it } from 'vitest';
import { parseXml, type XmlElement } from './read-xml.ts';
import { HOSTILE, sampleCases, sampleResults, withUncountedCost } from '../../test/report/sample-results.ts';
import { renderJunit, xmlAttr, xmlText } from './junit.ts';
import { renderMarkdown } from './markdown.ts';

const all = (el: XmlElement, name: string): XmlElement[] => [...(el.name === name ? [el] : []), ...el.children.flatMap((c) => all(c, name))];
const testcase = (root: XmlElement, name: string) => all(root, 'testcase').find((t) => t.attributes.name === name)!;

describe('JUnit XML', () => {
  const root = parseXml(renderJunit(sampleResults()));

  it('is well-formed, with totals on <testsuites>', () => {
    expect(root.name).toBe('testsuites');
    expect(root.attributes).toMatchObject({ tests: '8', failures: '2', errors: '0', skipped: '1', time: '2.500' });
  });

  it('has a testsuite per kind present, counts matching its cases', () => {
    const suites = root.children.filter((c) => c.name === 'testsuite');
    expect(suites.map((s) => s.attributes.name)).toEqual(['table', 'contract', 'scenario', 'fuzz']);
    const scenario = suites[2]!;
    expect(scenario.attributes).toMatchObject({ tests: '3', failures: '1', skipped: '1' });
    expect(all(scenario, 'testcase')).toHaveLength(3);
    expect(all(scenario, 'property').map((p) => [p.attributes.name, p.attributes.value])).toContainEqual(['seed', '42']);
  });

  it('names each testcase by kind and id, with time in seconds', () => {
    expect(testcase(root, 'scenario:refunds/approval-granted').attributes).toEqual({
      classname: 'scenario',
      name: 'scenario:refunds/approval-granted',
      time: '0.021',
      file: 'scenarios/refunds/approval-granted.yaml',
    });
    expect(testcase(root, 'scenario:refunds/approval-granted').children).toEqual([]);
  });

  it('puts every failing check, with expected and actual, in <failure>', () => {
    const failed = testcase(root, 'table:cancel@TOOL_RUNNING');
    const failure = failed.children.find((c) => c.name === 'failure')!;
    expect(failure.attributes.message).toBe('invariant 6: tool pairing: tool call call_1 has no result in the next request');
    expect(failure.attributes.type).toBe('history');
    expect(failure.text).toContain('history: tool call call_1 has no result');
    expect(failure.text).toContain(
      'invariant 6: tool pairing: tool call call_1 has no result in the next request\n  expected: one result for call_1\n  actual:   none',
    );
    expect(failure.text).not.toContain('outcome: cancelled'); // passing checks stay out
    const out = failed.children.find((c) => c.name === 'system-out')!;
    expect(out.text).toContain('outcome: cancelled{user}');
    expect(out.text).toMatch(/\+0\.000 s {2}T1·S1 {3}tool_call {5}lookup_order \(300 ms\) \[cancelled\]/);
  });

  it('gives skipped cases their reason', () => {
    const skipped = testcase(root, 'scenario:live/refund-approval').children;
    expect(skipped).toEqual([{ name: 'skipped', attributes: { message: 'live scenario: ANTHROPIC_API_KEY is not set' }, children: [], text: '' }]);
  });

  it('escapes markup and keeps hostile text readable; control characters become visible', () => {
    const failure = testcase(root, 'scenario:refunds/rate-limited-then-timeout').children.find((c) => c.name === 'failure')!;
    const readable = HOSTILE.replace('\u0007', '\\x07').replace('\u001b', '\\x1b');
    expect(failure.attributes.message).toBe(`outcome: expected replied, got failed{max_steps} — ${readable}`);
    expect(failure.text).toContain(`tool-calls: issue_refund called with an unexpected note: ${readable}`);
  });

  it('turns regressions into failures of a baseline suite', () => {
    const regressed = parseXml(
      renderJunit({
        ...sampleResults(),
        regressions: [{ id: 'scenario:refunds/approval-granted', kind: 'status', message: 'passed in the baseline, failed now' }],
      }),
    );
    expect(regressed.attributes).toMatchObject({ tests: '9', failures: '3' });
    const suite = regressed.children.find((s) => s.attributes.name === 'baseline')!;
    expect(suite.children[0]!.attributes.name).toBe('scenario:refunds/approval-granted [status]');
    expect(suite.children[0]!.children[0]!.attributes.message).toBe('passed in the baseline, failed now');
  });

  it('escapes text and attributes, and replaces what XML cannot hold', () => {
    expect(xmlText('a < b && c > d')).toBe('a &lt; b &amp;&amp; c &gt; d');
    expect(xmlAttr(`"q" 'a'\nb\tc`)).toBe('&quot;q&quot; &apos;a&apos;&#10;b&#9;c');
    expect(xmlText('nul\u0000 ff\u000c ok\n\t')).toBe('nul\\x00 ff\\x0c ok\n\t');
    expect(xmlText('lone \ud800 pair 😀')).toBe('lone \\ud800 pair 😀'); // shown as its escape, as on a terminal
    for (const text of ['\u0000\u0001\u001f', '\ud83d', 'x\uffffy', HOSTILE]) {
      expect(() => parseXml(`<a b="${xmlAttr(text)}">${xmlText(text)}</a>`)).not.toThrow();
    }
  });

  it('shows bidi and other format controls visibly, in ids and text, as the console and Markdown do', () => {
    const tricky = 'a\u202eevil\u2066b\u200fc\u2028d\u009be\u001bf\u061cg';
    const shown = 'a\\u202eevil\\u2066b\\u200fc\\u2028d\\x9be\\x1bf\\u061cg';
    expect(xmlText(tricky)).toBe(shown);
    expect(xmlAttr(tricky)).toBe(shown);
    const [first, ...rest] = sampleCases();
    const xml = renderJunit(sampleResults([{ ...first!, id: `scenario:${tricky}`, title: tricky }, ...rest]));
    expect(xml).not.toMatch(/[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
    expect(all(parseXml(xml), 'testcase').map((t) => t.attributes.name)).toContain(`scenario:${shown}`);
    expect(renderMarkdown(sampleResults([{ ...first!, id: `scenario:${tricky}`, status: 'failed' }, ...rest]))).not.toMatch(
      /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/,
    );
  });

  it('is well-formed for an empty run, which checked nothing: one failure says so', () => {
    const empty = parseXml(renderJunit(sampleResults([])));
    expect(empty.attributes).toMatchObject({ tests: '1', failures: '1', skipped: '0' });
    const [suite] = empty.children;
    expect(suite?.attributes).toMatchObject({ name: 'loopgate', tests: '1', failures: '1' });
    expect(suite?.children[0]?.attributes).toMatchObject({ classname: 'loopgate', name: 'nothing was checked' });
  });

  it('(the strict parser these tests use rejects what is not well-formed)', () => {
    for (const bad of ['<a>x < y</a>', '<a>x & y</a>', '<a b="1" b="2"/>', '<a><b></a></b>', '<a>\u0007</a>', "<a b='1'/>", '<a/><b/>']) {
      expect(() => parseXml(bad), bad).toThrow();
    }
  });
});

/** A case whose cost has a call with a token count ≥ 2^53 − 1 beside a priced one. */
describe('JUnit cost properties', () => {
  it('name the calls with a token count ≥ 2^53 − 1 beside the priced amount, per case, per turn and for the suite', () => {
    const root = parseXml(renderJunit(withUncountedCost()));
    const props = (el: XmlElement) => Object.fromEntries(all(el, 'property').map((p) => [p.attributes.name, p.attributes.value]));
    const of = props(testcase(root, 'scenario:refunds/approval-granted'));
    expect(of).toMatchObject({
      cost: '$0.0042 + 1 call with a token count ≥ 2^53 − 1 (cost unknown)',
      'cost.amount': '0.0042',
      'cost.uncountedCalls': '1',
      'cost.turn.0': '$0.0042',
      'cost.turn.1': 'unknown: 1 call with a token count ≥ 2^53 − 1',
    });
    const suites = root.children.filter((c) => c.name === 'testsuite');
    expect(suites.map((s) => props(s).cost)).toContain('$0.0042 + 1 call with a token count ≥ 2^53 − 1 (cost unknown)');
  });
});
