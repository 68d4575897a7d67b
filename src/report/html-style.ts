/** The HTML report's stylesheet, inlined so the file works offline. */
export const REPORT_CSS = String.raw`
:root {
  --bg: #f7f7f8; --card: #fff; --fg: #1d1f23; --muted: #6a6f78; --line: #dfe1e5;
  --pass: #1a7f37; --pass-bg: #dafbe1; --fail: #cf222e; --fail-bg: #ffebe9; --skip: #9a6700; --skip-bg: #fff8c5;
  --fault: #bc4c00; --fault-bg: #fff1e5; --accent: #0969da; --bar: #8fb8f0; --code-bg: #f2f3f5;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --card: #161b22; --fg: #e6edf3; --muted: #8d96a0; --line: #30363d;
    --pass: #3fb950; --pass-bg: #12261e; --fail: #f85149; --fail-bg: #2d1214; --skip: #d29922; --skip-bg: #272115;
    --fault: #f0883e; --fault-bg: #2b1a0e; --accent: #4493f8; --bar: #2f5f9e; --code-bg: #0b0f14;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
pre { margin: 0; padding: 8px 10px; background: var(--code-bg); border-radius: 6px; overflow: auto; max-height: 360px; white-space: pre-wrap; word-break: break-word; }
.page { max-width: 1280px; margin: 0 auto; padding: 16px 20px 60px; }
header.top h1 { font-size: 20px; margin: 0 0 4px; display: flex; gap: 10px; align-items: center; }
.verdict { font-size: 13px; padding: 2px 10px; border-radius: 999px; font-weight: 600; }
.verdict.passed { background: var(--pass-bg); color: var(--pass); }
.verdict.failed { background: var(--fail-bg); color: var(--fail); }
.meta { color: var(--muted); margin: 0 0 12px; }
.totals { display: flex; flex-wrap: wrap; gap: 8px; margin-bottom: 12px; }
.total { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 6px 12px; }
.total b { text-transform: capitalize; margin-right: 6px; }
.n-pass { color: var(--pass); } .n-fail { color: var(--fail); font-weight: 600; } .n-skip { color: var(--skip); }
section.regressions { background: var(--fail-bg); border: 1px solid var(--fail); border-radius: 8px; padding: 8px 12px; margin-bottom: 12px; }
section.regressions h2 { font-size: 15px; margin: 0 0 6px; color: var(--fail); }
section.regressions table { border-collapse: collapse; width: 100%; }
section.regressions td { padding: 3px 8px 3px 0; vertical-align: top; }
.controls { position: sticky; top: 0; z-index: 2; display: flex; flex-wrap: wrap; gap: 8px 14px; align-items: center; padding: 10px 0; background: var(--bg); border-bottom: 1px solid var(--line); margin-bottom: 12px; }
.seg { display: inline-flex; border: 1px solid var(--line); border-radius: 8px; overflow: hidden; }
.seg button { border: 0; border-right: 1px solid var(--line); background: var(--card); color: var(--fg); padding: 5px 10px; cursor: pointer; font: inherit; }
.seg button:last-child { border-right: 0; }
.seg button[aria-pressed="true"] { background: var(--accent); color: #fff; }
.controls input[type="search"] { flex: 1 1 220px; min-width: 180px; padding: 6px 10px; border: 1px solid var(--line); border-radius: 8px; background: var(--card); color: var(--fg); font: inherit; }
.controls .link { border: 0; background: none; color: var(--accent); cursor: pointer; font: inherit; padding: 0; }
#shown { color: var(--muted); }
#empty { color: var(--muted); padding: 20px; text-align: center; }
details.case { background: var(--card); border: 1px solid var(--line); border-left: 4px solid var(--line); border-radius: 8px; margin-bottom: 8px; }
details.case.st-failed { border-left-color: var(--fail); }
details.case.st-passed { border-left-color: var(--pass); }
details.case.st-skipped { border-left-color: var(--skip); }
details.case > summary { cursor: pointer; padding: 8px 12px; list-style: none; display: flex; flex-wrap: wrap; gap: 4px 10px; align-items: baseline; }
details.case > summary::-webkit-details-marker { display: none; }
details.case > summary::before { content: "▸"; color: var(--muted); width: 1em; }
details.case[open] > summary::before { content: "▾"; }
.mark { font-weight: 700; }
.st-failed .mark { color: var(--fail); } .st-passed .mark { color: var(--pass); } .st-skipped .mark { color: var(--skip); }
.badge { font-size: 11px; text-transform: uppercase; letter-spacing: .04em; padding: 1px 6px; border-radius: 4px; border: 1px solid var(--line); color: var(--muted); }
.case-id { font-weight: 600; word-break: break-all; }
.outcome { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12.5px; padding: 0 6px; border-radius: 4px; background: var(--code-bg); }
.time { color: var(--muted); margin-left: auto; white-space: nowrap; }
.case-why { flex-basis: 100%; padding-left: 1.6em; color: var(--fail); word-break: break-word; }
.st-skipped .case-why { color: var(--skip); }
.case-body { padding: 4px 16px 14px 16px; border-top: 1px solid var(--line); }
.case-body h3 { font-size: 13px; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); margin: 14px 0 6px; }
.facts { display: flex; flex-wrap: wrap; gap: 4px 16px; color: var(--muted); margin: 8px 0 0; }
.facts b { color: var(--fg); font-weight: 600; }
ul.checks { list-style: none; margin: 0; padding: 0; }
li.check { padding: 4px 8px; border-radius: 6px; margin-bottom: 4px; }
li.check .check-name { font-weight: 600; margin: 0 6px; }
li.check.ok .mark { color: var(--pass); }
li.check.failing { background: var(--fail-bg); border: 1px solid var(--fail); padding: 8px 10px; }
li.check.failing .mark, li.check.failing .check-name { color: var(--fail); }
li.check.first-failure { box-shadow: 0 0 0 2px var(--fail); }
.judge-reason { display: flex; flex-direction: column; gap: 2px; margin: 4px 0 2px 22px; padding: 6px 10px; border-left: 3px solid var(--muted, #888); font-size: 13px; }
.judge-reason .judge-verdict { font-weight: 600; }
.judge-reason .judge-verdict.ok { color: var(--pass); }
.judge-reason .judge-verdict.failing { color: var(--fail); }
.judge-reason .judge-rubric { opacity: 0.8; }
.expected-actual { display: grid; grid-template-columns: 1fr 1fr; gap: 8px; margin-top: 8px; }
.expected-actual h4 { margin: 0 0 4px; font-size: 12px; color: var(--muted); text-transform: uppercase; }
@media (max-width: 800px) { .expected-actual { grid-template-columns: 1fr; } }
ol.timeline { list-style: none; margin: 0; padding: 0; border: 1px solid var(--line); border-radius: 6px; overflow: hidden; }
.tl { display: grid; grid-template-columns: 6.5em 4.5em 7.5em minmax(0, 1fr) minmax(120px, 32%) 5.5em; gap: 8px; align-items: center; padding: 3px 8px; border-bottom: 1px solid var(--line); }
.tl:last-child { border-bottom: 0; }
.tl.axis { color: var(--muted); font-size: 12px; background: var(--code-bg); }
.tl.axis .tl-track { display: flex; justify-content: space-between; }
.tl-at, .tl-dur, .tl-where { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; color: var(--muted); white-space: nowrap; }
.tl-dur { text-align: right; }
.tl-kind { font-size: 11px; text-transform: uppercase; letter-spacing: .03em; color: var(--muted); white-space: nowrap; }
.tl-label { word-break: break-word; }
.tl-detail { display: block; color: var(--muted); font-size: 12.5px; }
.tl-track { position: relative; height: 14px; background: linear-gradient(to right, var(--line) 1px, transparent 1px) 0 0 / 25% 100%; border-radius: 3px; }
.tl-bar { position: absolute; top: 2px; height: 10px; min-width: 3px; border-radius: 3px; background: var(--bar); }
.tl-bar.point { width: 8px !important; height: 8px; top: 3px; margin-left: -4px; border-radius: 50%; background: var(--muted); }
.tl.k-turn, .tl.k-step { background: var(--code-bg); }
.tl.k-turn .tl-label { font-weight: 600; }
.tl.k-fault { background: var(--fault-bg); }
.tl.k-fault .tl-kind, .tl.k-fault .tl-label { color: var(--fault); font-weight: 600; }
.tl.k-fault .tl-bar { background: var(--fault); }
.tl.k-retry .tl-bar { background: repeating-linear-gradient(45deg, var(--fault), var(--fault) 4px, transparent 4px, transparent 8px); border: 1px solid var(--fault); }
.tl.k-tool_call .tl-bar { background: #a371f7; }
.tl.k-outcome { font-weight: 600; }
.tl.s-error .tl-bar, .tl.s-undetermined .tl-bar { background: var(--fail); }
.tl.s-unknown .tl-bar, .tl.s-cancelled .tl-bar { background: var(--skip); }
.tl.k-outcome.s-ok { background: var(--pass-bg); } .tl.k-outcome.s-error, .tl.k-outcome.s-undetermined { background: var(--fail-bg); }
.tl.k-outcome.s-cancelled, .tl.k-outcome.s-unknown { background: var(--skip-bg); }
.tl-status { font-size: 11px; margin-left: 6px; padding: 0 5px; border-radius: 4px; border: 1px solid currentColor; }
.s-error .tl-status, .s-undetermined .tl-status { color: var(--fail); } .s-ok .tl-status { color: var(--pass); } .s-unknown .tl-status, .s-cancelled .tl-status { color: var(--skip); }
.tl-data, .tl-request { grid-column: 4 / -1; }
.tl-data > summary, .tl-request > summary, .request > summary { cursor: pointer; color: var(--accent); font-size: 12px; }
.tl-data pre, .tl-request pre, .request pre { margin-top: 4px; }
.skip-reason { background: var(--skip-bg); color: var(--skip); padding: 6px 10px; border-radius: 6px; margin-top: 8px; }
`;
