/**
 * The HTML report's script, inlined so the file works offline. It reads the
 * results embedded as JSON and builds the page with DOM calls only (textContent,
 * never innerHTML), so no string from the data is ever parsed as markup.
 * Plain JavaScript in a string (the report runs in a browser, not through the
 * TypeScript build); it must not contain backticks or "${" (it lives in a
 * template literal). html.test.ts parses it and html.browser.test.ts runs it.
 */
export const REPORT_SCRIPT = String.raw`
(function () {
  'use strict';
  var source = document.getElementById('loopgate-results');
  var results = JSON.parse(source ? source.textContent : 'null');
  if (!results || !Array.isArray(results.cases)) throw new Error('loopgate report: no results embedded');

  var KINDS = ['table', 'contract', 'scenario', 'fuzz'];
  var MARK = { passed: '\u2713', failed: '\u2717', skipped: '\u25cb' };
  var RANK = { failed: 0, skipped: 1, passed: 2 };
  var KIND_LABEL = { inbox: 'inbox', turn: 'turn', step: 'step', model_call: 'model call', model_result: 'model result', retry: 'retry',
    tool_call: 'tool call', tool_result: 'tool result', policy: 'policy', compaction: 'compaction', cancel: 'cancel', fault: 'fault', outcome: 'outcome' };

  // Control characters from case data (ESC, BEL, C1, and the bidi overrides that reorder what is shown) are shown
  // as \xNN / \uNNNN, as on the terminal (terminal-text.ts), instead of acting; line breaks and tabs stay.
  var CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
  function visible(text) {
    return String(text).replace(CONTROL, function (c) {
      var h = c.charCodeAt(0).toString(16);
      return h.length <= 2 ? '\\x' + (h.length < 2 ? '0' : '') + h : '\\u' + ('000' + h).slice(-4);
    });
  }
  function el(tag, attrs) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (key) {
        var value = attrs[key];
        if (value === undefined || value === null || value === false) return;
        if (key === 'class') node.className = value;
        else if (key === 'text') node.textContent = visible(value);
        else node.setAttribute(key, value === true ? '' : String(value));
      });
    }
    for (var i = 2; i < arguments.length; i++) add(node, arguments[i]);
    return node;
  }
  function add(node, child) {
    if (child === undefined || child === null || child === false) return;
    if (Array.isArray(child)) { child.forEach(function (c) { add(node, c); }); return; }
    node.append(child instanceof Node ? child : document.createTextNode(visible(child)));
  }
  function duration(ms) {
    if (typeof ms !== 'number' || !isFinite(ms) || ms < 0) return '?';
    if (ms < 1000) return Math.round(ms) + ' ms';
    if (ms < 60000) return (ms / 1000).toFixed(2) + ' s';
    var s = Math.round((ms % 60000) / 1000);
    return Math.floor(ms / 60000) + ' min ' + (s < 10 ? '0' : '') + s + ' s';
  }
  function at(ms) { return '+' + (ms / 1000).toFixed(3) + ' s'; }
  function show(value) {
    if (typeof value === 'string') return value;
    if (value === undefined) return 'undefined';
    try { return JSON.stringify(value, null, 2); } catch (e) { return String(value); }
  }
  function failingChecks(c) { return (c.checks || []).filter(function (check) { return !check.passed; }); }
  function failureText(c) {
    if (c.failure) return c.failure;
    var first = failingChecks(c)[0];
    return first ? first.name + ': ' + first.message : 'failed';
  }
  // Money as the reports show it: a currency sign where one is known, three significant digits below one unit.
  var SIGN = { USD: '$', EUR: '\u20ac', GBP: '\u00a3', JPY: '\u00a5' };
  function money(amount, currency) {
    var abs = Math.abs(amount);
    var digits = abs === 0 ? '0' : abs >= 1 ? abs.toFixed(2) : String(Number(abs.toPrecision(3)));
    if (digits.indexOf('e') >= 0) digits = abs.toFixed(12).replace(/0+$/, '');
    var text = (amount < 0 ? '-' : '') + (SIGN[currency] || '') + digits;
    return SIGN[currency] ? text : text + ' ' + currency;
  }
  // A cost that leaves calls unpriced, or with a token count ≥ 2^53 − 1, says so: never a plain number.
  function costText(cost) {
    var m = money(cost.amount, cost.currency);
    var uncounted = cost.uncountedCalls || 0;
    if (!cost.unpricedCalls && !uncounted) return m;
    var parts = [];
    if (cost.unpricedCalls) {
      var models = cost.unpricedModels && cost.unpricedModels.length ? ' (no price for ' + cost.unpricedModels.join(', ') + ')' : '';
      parts.push(cost.unpricedCalls + ' unpriced call' + (cost.unpricedCalls === 1 ? '' : 's') + models);
    }
    if (uncounted) parts.push(uncounted + ' call' + (uncounted === 1 ? '' : 's') + ' with a token count \u2265 2^53 \u2212 1');
    if (cost.amount === 0) return 'unknown: ' + parts.join(' + ');
    return m + ' + ' + parts.join(' + ') + (uncounted ? ' (cost unknown)' : '');
  }
  function stepName(r) { return 'turn ' + r.turn + ', step ' + r.step + (r.attempt > 1 ? ' (attempt ' + r.attempt + ')' : ''); }
  function byReading(a, b) { return (RANK[a.status] - RANK[b.status]) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0); }

  // ---- header ---------------------------------------------------------------
  var summary = results.summary;
  var regressions = results.regressions || [];
  // As the exit code: a peer loop judged against its pinned verdicts passes when it fails exactly as pinned.
  // A run that checked nothing (every case skipped) did not pass.
  var ok = summary.passed + summary.failed > 0 && (results.verdicts ? results.verdicts.differences.length === 0 : summary.failed === 0) && regressions.length === 0;
  var header = document.getElementById('top');
  var meta = [results.startedAt, duration(results.durationMs), 'seed ' + results.seed, 'loopgate ' + results.tool.version];
  if (results.shard) meta.push('shard ' + results.shard.index + '/' + results.shard.total);
  if (results.fuzz)
    meta.push(
      'fuzzed agent ' +
        results.fuzz.agent +
        ': ' +
        (results.fuzz.tools.length ? results.fuzz.tools.join(', ') + ' (and the scripted probe)' : 'no tools of its own (only the scripted probe)') +
        (results.fuzz.withoutArgs && results.fuzz.withoutArgs.length ? '; ' + results.fuzz.withoutArgs.join(', ') + ' got only {} and a string that is not JSON (no fuzz.args, and an input schema nothing can be drawn from)' : '') +
        (results.fuzz.notFuzzed ? " — in loopgate's own loop: the config's loop " + results.fuzz.notFuzzed + ' is not fuzzed (loopgate run gates it)' : ''),
    );
  if (summary.cost) meta.push('cost ' + costText(summary.cost) + ' over ' + summary.cost.cases + ' case' + (summary.cost.cases === 1 ? '' : 's'));
  add(header, [
    el('h1', null, 'loopgate report', el('span', { class: 'verdict ' + (ok ? 'passed' : 'failed'), id: 'verdict', text: ok ? 'PASSED' : 'FAILED' })),
    el('p', { class: 'meta' }, summary.total + ' cases: ' + summary.passed + ' passed, ' + summary.failed + ' failed, ' + summary.skipped + ' skipped' +
      (regressions.length ? ', ' + regressions.length + ' regression' + (regressions.length === 1 ? '' : 's') : '') + ' \u00b7 ' + meta.join(' \u00b7 ')),
    el('div', { class: 'totals' }, KINDS.filter(function (k) { return summary.byKind[k] && summary.byKind[k].total > 0; }).map(function (k) {
      var s = summary.byKind[k];
      return el('span', { class: 'total', 'data-kind': k }, el('b', { text: k }),
        el('span', { class: 'n-pass', text: s.passed + ' passed' }),
        s.failed ? [', ', el('span', { class: 'n-fail', text: s.failed + ' failed' })] : null,
        s.skipped ? [', ', el('span', { class: 'n-skip', text: s.skipped + ' skipped' })] : null);
    })),
  ]);

  if (regressions.length) {
    var section = document.getElementById('regressions');
    section.hidden = false;
    add(section, [
      el('h2', { text: 'Regressions against the baseline (' + regressions.length + ')' }),
      el('table', null, el('tbody', null, regressions.map(function (r) {
        return el('tr', null, el('td', { class: 'mono', text: r.id }), el('td', { text: r.kind }), el('td', { text: r.message }));
      }))),
    ]);
  }

  // ---- controls ---------------------------------------------------------------
  var state = { status: 'all', kind: 'all', query: '' };
  var controls = document.getElementById('controls');
  function segment(name, options) {
    return el('div', { class: 'seg', role: 'group', 'data-filter': name }, options.map(function (o) {
      var button = el('button', { type: 'button', 'data-value': o.value, 'aria-pressed': String(state[name] === o.value), text: o.label });
      button.addEventListener('click', function () {
        state[name] = o.value;
        Array.prototype.forEach.call(button.parentNode.children, function (b) { b.setAttribute('aria-pressed', String(b === button)); });
        apply();
      });
      return button;
    }));
  }
  var kindsPresent = KINDS.filter(function (k) { return results.cases.some(function (c) { return c.kind === k; }); });
  var search = el('input', { type: 'search', id: 'search', placeholder: 'Search cases ( / )', 'aria-label': 'Search cases', autocomplete: 'off' });
  search.addEventListener('input', function () { state.query = search.value.trim().toLowerCase(); apply(); });
  var expandAll = el('button', { type: 'button', class: 'link', id: 'expand-all', text: 'expand all' });
  var collapseAll = el('button', { type: 'button', class: 'link', id: 'collapse-all', text: 'collapse all' });
  add(controls, [
    segment('status', [
      { value: 'all', label: 'All ' + summary.total },
      { value: 'failed', label: 'Failed ' + summary.failed },
      { value: 'passed', label: 'Passed ' + summary.passed },
      { value: 'skipped', label: 'Skipped ' + summary.skipped },
    ]),
    segment('kind', [{ value: 'all', label: 'All kinds' }].concat(kindsPresent.map(function (k) { return { value: k, label: k }; }))),
    search,
    el('span', { id: 'shown' }),
    expandAll, collapseAll,
  ]);
  document.addEventListener('keydown', function (event) {
    if (event.key === '/' && document.activeElement !== search) { event.preventDefault(); search.focus(); }
  });

  // ---- cases ------------------------------------------------------------------
  var list = document.getElementById('cases');
  var cards = results.cases.slice().sort(byReading).map(function (c) {
    var why = c.status === 'failed' ? failureText(c) : c.status === 'skipped' ? (c.skipReason || 'skipped') : null;
    var times = duration(c.durationMs) + (typeof c.virtualMs === 'number' ? ' \u00b7 ' + duration(c.virtualMs) + ' virtual' : '');
    var card = el('details', { class: 'case st-' + c.status, 'data-id': c.id, 'data-kind': c.kind, 'data-status': c.status },
      el('summary', null,
        el('span', { class: 'mark', 'aria-label': c.status, text: MARK[c.status] || '?' }),
        el('span', { class: 'badge', text: c.kind }),
        el('span', { class: 'case-id', text: c.id }),
        c.outcome ? el('span', { class: 'outcome', text: c.outcome }) : null,
        el('span', { class: 'time', text: times }),
        why ? el('span', { class: 'case-why', text: why }) : null));
    var haystack = [c.id, c.title, c.outcome, c.failure, c.skipReason, c.file].concat(c.tags || [])
      .concat((c.checks || []).map(function (k) { return k.name + ' ' + k.message; }))
      .filter(Boolean).join('\n').toLowerCase();
    var rendered = false;
    function render() {
      if (rendered) return;
      rendered = true;
      card.append(body(c));
    }
    card.addEventListener('toggle', function () { if (card.open) render(); });
    if (c.status === 'failed') { card.open = true; render(); }
    list.append(card);
    return { card: card, c: c, haystack: haystack, render: render };
  });
  expandAll.addEventListener('click', function () { cards.forEach(function (x) { if (!x.card.hidden) { x.render(); x.card.open = true; } }); });
  collapseAll.addEventListener('click', function () { cards.forEach(function (x) { x.card.open = false; }); });

  function body(c) {
    var m = c.metrics;
    var facts = [];
    if (c.file) facts.push(['file', c.file]);
    if (m) facts.push(['turns', m.turns], ['steps', m.steps], ['tool calls', m.toolCalls], ['model requests', m.modelRequests], ['tokens', m.inputTokens + ' in / ' + m.outputTokens + ' out']);
    if (m && m.cost) {
      facts.push(['cost', costText(m.cost)]);
      if (m.cost.turns && m.cost.turns.length > 1) facts.push(['cost per turn', m.cost.turns.map(function (t) {
        return 'turn ' + t.turn + ' ' + costText({ amount: t.amount, currency: m.cost.currency, unpricedCalls: t.unpricedCalls, uncountedCalls: t.uncountedCalls });
      }).join(', ')]);
    }
    if (c.repeats) facts.push(['repeats', c.repeats.passed + ' of ' + c.repeats.runs + ' passed (threshold ' + Math.round(c.repeats.threshold * 100) + '%)']);
    if (c.tags && c.tags.length) facts.push(['tags', c.tags.join(', ')]);
    return el('div', { class: 'case-body' },
      el('div', { class: 'case-title', text: c.title }),
      facts.length ? el('div', { class: 'facts' }, facts.map(function (f) { return el('span', null, f[0] + ': ', el('b', { text: String(f[1]) })); })) : null,
      c.status === 'skipped' ? el('div', { class: 'skip-reason', text: 'Skipped: ' + (c.skipReason || 'no reason given') }) : null,
      checks(c),
      failingRequest(c),
      c.timeline && c.timeline.length ? timeline(c) : null);
  }

  // What the model saw at the step where a failed case ended: its last request, open.
  function failingRequest(c) {
    var requests = c.requests || [];
    if (c.status !== 'failed' || !requests.length) return null;
    var r = requests[requests.length - 1];
    return [el('h3', { text: 'What the model saw at the failing step' }),
      el('details', { class: 'request failing-request', open: true, 'data-seq': r.seq },
        el('summary', { text: stepName(r) + ' \u00b7 ' + r.lines.length + ' lines' }),
        el('pre', { text: r.lines.join('\n') }))];
  }

  function checks(c) {
    if (!c.checks || !c.checks.length) return null;
    var firstFailing = c.checks.findIndex(function (k) { return !k.passed; });
    return [el('h3', { text: 'Checks' }), el('ul', { class: 'checks' }, c.checks.map(function (check, i) {
      var failing = !check.passed;
      var hasExpected = Object.prototype.hasOwnProperty.call(check, 'expected');
      var hasActual = Object.prototype.hasOwnProperty.call(check, 'actual');
      return el('li', { class: 'check ' + (failing ? 'failing' : 'ok') + (i === firstFailing ? ' first-failure' : ''), 'data-check': check.name, 'data-failing-check': failing ? 'true' : null },
        el('span', { class: 'mark', text: failing ? MARK.failed : MARK.passed }),
        el('span', { class: 'check-name', text: check.name }),
        el('span', { class: 'check-message', text: check.message }),
        check.judge ? el('div', { class: 'judge-reason', 'data-judge': check.judge.judge },
          el('span', { class: 'judge-verdict ' + (check.judge.pass ? 'ok' : 'failing'), text: (check.judge.pass ? 'pass' : 'fail') + ' \u00b7 judge ' + check.judge.judge }),
          el('span', { class: 'judge-rubric', text: 'rubric: ' + check.judge.rubric }),
          el('span', { class: 'judge-text', text: 'reason: ' + check.judge.reason })) : null,
        failing && (hasExpected || hasActual) ? el('div', { class: 'expected-actual' },
          el('div', { class: 'expected' }, el('h4', { text: 'expected' }), el('pre', { text: hasExpected ? show(check.expected) : '(not recorded)' })),
          el('div', { class: 'actual' }, el('h4', { text: 'actual' }), el('pre', { text: hasActual ? show(check.actual) : '(not recorded)' }))) : null);
    }))];
  }

  function timeline(c) {
    var entries = c.timeline;
    var span = typeof c.virtualMs === 'number' ? c.virtualMs : 0;
    entries.forEach(function (e) { span = Math.max(span, e.at + (e.durationMs || 0)); });
    function pct(ms) { return span > 0 ? Math.min(100, (ms / span) * 100) : 0; }
    var rows = [el('li', { class: 'tl axis', 'aria-hidden': 'true' },
      el('span', { text: 'time' }), el('span', { text: 'where' }), el('span', { text: 'what' }), el('span', null),
      el('span', { class: 'tl-track' }, el('span', { text: '0' }), el('span', { text: duration(span / 2) }), el('span', { text: duration(span) })),
      el('span', { class: 'tl-dur', text: 'took' }))];
    entries.forEach(function (e) {
      var where = e.turn !== undefined ? 'T' + e.turn + (e.step !== undefined ? '\u00b7S' + e.step : '') : '';
      var bar = el('span', { class: 'tl-bar' + (typeof e.durationMs === 'number' ? '' : ' point') });
      bar.style.left = pct(e.at) + '%';
      if (typeof e.durationMs === 'number') bar.style.width = Math.max(0, pct(e.at + e.durationMs) - pct(e.at)) + '%';
      var data = e.data !== undefined ? el('details', { class: 'tl-data' },
        el('summary', { text: e.data && typeof e.data === 'object' && !Array.isArray(e.data) ? Object.keys(e.data).join(', ') || 'data' : 'data' }),
        el('pre', { text: show(e.data) })) : null;
      // Every model call: what the model saw (collapsed).
      var request = typeof e.request === 'number' && c.requests ? c.requests[e.request] : null;
      var saw = request ? el('details', { class: 'tl-request', 'data-seq': request.seq },
        el('summary', { text: 'what the model saw (' + stepName(request) + ')' }),
        el('pre', { text: request.lines.join('\n') })) : null;
      rows.push(el('li', { class: 'tl k-' + e.kind + (e.status ? ' s-' + e.status : ''), 'data-kind': e.kind },
        el('span', { class: 'tl-at', text: at(e.at) }),
        el('span', { class: 'tl-where', text: where }),
        el('span', { class: 'tl-kind', text: KIND_LABEL[e.kind] || e.kind }),
        el('span', { class: 'tl-label' }, e.label, e.status ? el('span', { class: 'tl-status', text: e.status }) : null,
          e.detail ? el('span', { class: 'tl-detail', text: e.detail }) : null),
        el('span', { class: 'tl-track' }, bar),
        el('span', { class: 'tl-dur', text: typeof e.durationMs === 'number' ? duration(e.durationMs) : '' }),
        data, saw));
    });
    return [el('h3', { text: 'Timeline (virtual time)' }), el('ol', { class: 'timeline' }, rows)];
  }

  // ---- filtering --------------------------------------------------------------
  var shown = document.getElementById('shown');
  var empty = document.getElementById('empty');
  function apply() {
    var count = 0;
    cards.forEach(function (x) {
      var visible = (state.status === 'all' || x.c.status === state.status) &&
        (state.kind === 'all' || x.c.kind === state.kind) &&
        (!state.query || x.haystack.indexOf(state.query) >= 0);
      x.card.hidden = !visible;
      if (visible) count++;
    });
    shown.textContent = count + ' of ' + cards.length + ' cases';
    empty.hidden = count > 0;
  }
  apply();
  document.body.setAttribute('data-ready', 'true');
})();
`;
