import { describe, expect, it } from 'vitest';
import { HOSTILE, sampleResults } from '../../test/report/sample-results.ts';
import { REPORT_SCRIPT } from './html-client.ts';
import { escapeHtml, renderHtml, scriptJson } from './html.ts';
import { printableLines } from './terminal-text.ts';

const embedded = (html: string): string => {
  const m = /<script type="application\/json" id="loopgate-results">([\s\S]*?)<\/script>/.exec(html);
  if (!m) throw new Error('no embedded results');
  return m[1]!;
};

describe('HTML report (static checks; html.browser.test.ts runs it in Chromium)', () => {
  const results = sampleResults();
  const html = renderHtml(results);

  it('embeds the results as JSON that reads back equal', () => {
    expect(JSON.parse(embedded(html))).toEqual(JSON.parse(JSON.stringify(results)));
  });

  it('cannot be broken out of by data: no tag, comment or entity from a string survives in the script', () => {
    const data = embedded(html);
    expect(data).not.toMatch(/[<>&]/);
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    expect(html).not.toContain('<script>alert(1)');
    expect(JSON.parse(scriptJson({ s: '</script><!-- \u2028 & >' }))).toEqual({ s: '</script><!-- \u2028 & >' });
    expect(scriptJson({ s: '\u2028' })).toBe('{"s":"\\u2028"}');
  });

  it('a reply holding `</script ` (any case, any space after it) cannot end the data element early', () => {
    const reply = '<!--<script> x </script  > </SCRIPT\t> </script/';
    const base = sampleResults();
    const [first, ...rest] = base.cases;
    const page = renderHtml({ ...base, cases: [{ ...first!, timeline: [{ at: 0, kind: 'outcome', label: 'replied', detail: reply }] }, ...rest] });
    // Only the page's own two script elements close: the data one and the code one.
    expect(page.match(/<\/script/gi)).toHaveLength(2);
    expect(page).not.toContain('<!--');
    expect(JSON.stringify(JSON.parse(embedded(page)))).toContain(JSON.stringify(reply).slice(1, -1));
  });

  it('is self-contained: nothing is loaded from anywhere', () => {
    const page = html.replace(embedded(html), '');
    expect(page).not.toMatch(/https?:\/\//);
    expect(page).not.toMatch(/\bsrc=/);
    for (const href of page.matchAll(/href="([^"]*)"/g)) expect(href[1]).toMatch(/^data:/);
    expect(page).not.toMatch(/@import|url\(/);
    expect(page).toContain(`Content-Security-Policy" content="default-src &#39;none&#39;;`);
  });

  it('shows control characters as the terminal does, bidi overrides included (the page script)', () => {
    const source = /\n  var CONTROL = [^\n]*\n  function visible\(text\) \{[\s\S]*?\n  \}\n/.exec(REPORT_SCRIPT)?.[0];
    expect(source).toBeDefined();
    const visible = new Function(`${source}\nreturn visible;`)() as (text: string) => string;
    const tricky = 'a\u202eevil\u2066b\u200fc\u2028d\u009be\u001bf\u061cg\nh\ti';
    expect(visible(tricky)).toBe(printableLines(tricky));
  });

  it('escapes the title', () => {
    const titled = renderHtml(results, { title: HOSTILE });
    expect(titled).toContain(`<title>${escapeHtml(HOSTILE)}</title>`);
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    expect(html).toContain('<title>loopgate report — FAILED (2 failed of 8)</title>');
  });

  it('ships a script that parses, builds with textContent only, and fits in its template literal', () => {
    expect(() => new Function(REPORT_SCRIPT)).not.toThrow();
    expect(REPORT_SCRIPT).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/);
    expect(REPORT_SCRIPT).not.toMatch(/`|\$\{/);
    expect(REPORT_SCRIPT).not.toMatch(/<\/script/i);
  });

  it('renders a run with no cases', () => {
    const empty = renderHtml(sampleResults([]));
    expect(JSON.parse(embedded(empty)).cases).toEqual([]);
  });
});

describe("the HTML client's cost text", () => {
  // The client's own copy of costText (report/cost/format-cost.ts), run as the page runs it.
  const source = REPORT_SCRIPT.slice(REPORT_SCRIPT.indexOf('  var SIGN'), REPORT_SCRIPT.indexOf('  function stepName'));
  const costText = new Function(`${source}\nreturn costText;`)() as (cost: object) => string;

  it('names calls with a token count ≥ 2^53 − 1 beside the priced amount, or alone as unknown', () => {
    expect(costText({ amount: 0.0042, currency: 'USD', unpricedCalls: 0, uncountedCalls: 1 })).toBe(
      '$0.0042 + 1 call with a token count ≥ 2^53 − 1 (cost unknown)',
    );
    expect(costText({ amount: 0, currency: 'USD', unpricedCalls: 2, unpricedModels: ['x'], uncountedCalls: 3 })).toBe(
      'unknown: 2 unpriced calls (no price for x) + 3 calls with a token count ≥ 2^53 − 1',
    );
    expect(costText({ amount: 0.5, currency: 'USD', unpricedCalls: 0 })).toBe('$0.5');
  });
});
