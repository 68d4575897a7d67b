/**
 * A scenario's expectations, each checked and reported on its own: the outcome,
 * the persisted history, the trace's shape, and what the tools did.
 */
import { isOutcome, outcomeLabel, project, requestSeqs, type LogEvent, type Outcome } from '../../kernel/index.ts';
import type { CheckResult } from '../../report/results.ts';
import { renderMessages, spanShape } from '../render.ts';
import { INBOX_ACTIONS, TRIGGER_KEYS, type Expectation, type TurnExpectation } from '../scenario/schema.ts';
import type { ScenarioRun } from '../second-host.ts';
import { equalCheck, matchLines } from './lines.ts';

const events = <T extends LogEvent['type']>(run: ScenarioRun, type: T) =>
  run.log.events.filter((e): e is Extract<LogEvent, { type: T }> => e.type === type && !e.opaque);

/**
 * Every turn's outcome, in order: what the loop returned for it, or — for a turn a
 * crash left open — what recovery logged (`interrupted`).
 */
export function turnOutcomes(run: ScenarioRun): string[] {
  const returned = new Map(run.results.map((r) => [r.turn, outcomeLabel(r.outcome)]));
  const out: string[] = [];
  for (const e of events(run, 'turn.closed')) {
    const label = returned.get(e.payload.turn) ?? (isOutcome(e.payload.outcome) ? outcomeLabel(e.payload.outcome) : JSON.stringify(e.payload.outcome));
    out.push(label);
  }
  // A turn that returned but whose close the log lacks (it cannot: invariant 4 says so) still shows.
  for (const r of run.results) if (!events(run, 'turn.closed').some((e) => e.payload.turn === r.turn)) out.push(outcomeLabel(r.outcome));
  return out;
}

/**
 * A failed outcome check says why each differing turn ended as it did, in the
 * loop's own words: a failure's detail, what the error chain logged for a turn
 * that ended `conversation_full` (a compaction that did not shrink the history),
 * a rejection's reason. Without it that reason was only in the report's timeline.
 */
function withWhy(run: ScenarioRun, check: CheckResult, turnIndexes: readonly number[]): CheckResult {
  if (check.passed) return check;
  const closes = events(run, 'turn.closed');
  const reasons: string[] = [];
  for (const i of turnIndexes) {
    const close = closes[i];
    if (close === undefined) continue;
    const turn = close.payload.turn;
    const outcome = run.results.find((r) => r.turn === turn)?.outcome ?? (isOutcome(close.payload.outcome) ? close.payload.outcome : undefined);
    const why = outcome === undefined ? undefined : whyEnded(run, turn, outcome);
    if (why) reasons.push(`turn ${turn} ended ${outcomeLabel(outcome!)}: ${why}`);
  }
  return reasons.length === 0 ? check : { ...check, message: `${check.message}; ${reasons.join('; ')}` };
}

const WHY_SHOWN = 240;

function whyEnded(run: ScenarioRun, turn: number, outcome: Outcome): string | undefined {
  let why: string | undefined;
  if (outcome.kind === 'failed') why = outcome.detail;
  else if (outcome.kind === 'rejected') why = outcome.reason;
  else if (outcome.kind === 'conversation_full') {
    const handled = events(run, 'model.error_handled').filter((e) => e.payload.turn === turn && e.payload.action === 'fail');
    why = handled[handled.length - 1]?.payload.detail;
  }
  if (!why?.trim()) return undefined;
  // One line, as every check message is (a failure's detail may hold a stack's line breaks).
  why = why.replace(/\s*\n\s*/g, ' ').trim();
  return why.length > WHY_SHOWN ? `${why.slice(0, WHY_SHOWN)}…` : why;
}

/**
 * Injects the log received after its last model request, which no request carried: they wait in the inbox (an inject
 * never wakes the loop). Said beside a failed `lastRequest`, which a late inject looks like otherwise (outside probe 62).
 */
function pendingInjects(run: ScenarioRun): string | undefined {
  const logged = run.log.events;
  let lastRequest = -1;
  for (const e of logged) if (e.type === 'model.request') lastRequest = e.seq;
  const late = logged.flatMap((e) =>
    e.type === 'inbox.received' && e.seq > lastRequest && (e.payload as { intent?: string }).intent === 'inject'
      ? [JSON.stringify((e.payload as { text?: string }).text ?? '')]
      : [],
  );
  if (late.length === 0) return undefined;
  return `${late.length === 1 ? 'an inject' : `${late.length} injects`} received after the last request (${late.join(', ')}) wait${late.length === 1 ? 's' : ''} in the inbox: an inject never wakes the loop, the next message takes it`;
}

export function checkExpectations(run: ScenarioRun, expect: Expectation): CheckResult[] {
  const out: CheckResult[] = [...triggersCheck(run), ...storeFaultsCheck(run)];
  const outcomes = turnOutcomes(run);
  const last = run.results[run.results.length - 1];

  if (expect.outcome !== undefined)
    out.push(withWhy(run, equalCheck('outcome', expect.outcome, outcomes[outcomes.length - 1] ?? '(no turn ran)'), [outcomes.length - 1]));
  if (expect.outcomes !== undefined) {
    const differing = outcomes.flatMap((got, i) => (got !== expect.outcomes![i] ? [i] : []));
    out.push(withWhy(run, equalCheck('outcomes', expect.outcomes, outcomes), differing));
  }
  if (expect.reply !== undefined) out.push(replyCheck('reply', expect.reply, last?.reply));
  if (expect.history) out.push(...matchLines('history', renderMessages(project(run.log.events)), expect.history));
  if (expect.lastRequest) {
    const request = run.requests[run.requests.length - 1];
    const hint = pendingInjects(run);
    out.push(
      ...matchLines('last request', request ? renderMessages(request.messages) : [], expect.lastRequest).map((c) =>
        c.passed || hint === undefined ? c : { ...c, message: `${c.message}; ${hint}` },
      ),
    );
  }
  // What the model received, not what the log says was assembled.
  if (expect.system) out.push(...matchLines('system prompt', systemLines(run.requests[run.requests.length - 1]), expect.system));
  if (expect.toolCalls) {
    const started = events(run, 'tool.started')
      .filter((e) => e.payload.attempt === 1)
      .map((e) => e.payload.name);
    out.push(equalCheck('tool calls', expect.toolCalls, started));
  }
  if (expect.executions) {
    for (const [tool, count] of Object.entries(expect.executions)) {
      const ran = run.executions.get(tool) ?? 0;
      out.push(
        ran === count
          ? { name: 'executions', passed: true, message: `${tool} ran ${count} time(s)` }
          : { name: 'executions', passed: false, message: `${tool}: expected ${count} run(s), got ${ran}`, expected: count, actual: ran },
      );
    }
  }
  if (expect.toolResults) out.push(toolResultsCheck('tool results', events(run, 'tool.result'), expect.toolResults));
  if (expect.policy) {
    const wanted = expect.policy;
    const decisions = events(run, 'policy.decision');
    const view = (names: (i: number, key: 'by' | 'rule') => boolean) =>
      decisions.map((e, i) => ({
        tool: e.payload.tool,
        decision: e.payload.decision,
        ...(names(i, 'by') ? { by: e.payload.by } : {}),
        ...(names(i, 'rule') ? { rule: e.payload.rule } : {}),
      }));
    // Compared on what each expected entry names; told on what any of them names: a decision past the expected ones,
    // shown without its `by`, read as if no approver had decided it (outside probe 55, LOW-1).
    const check = equalCheck(
      'policy',
      wanted,
      view((i, key) => wanted[i]?.[key] !== undefined),
    );
    const told = view((_, key) => wanted.some((p) => p[key] !== undefined));
    out.push(check.passed ? check : { ...check, message: `expected ${JSON.stringify(wanted)}, got ${JSON.stringify(told)}`, actual: told });
  }
  if (expect.trace) {
    const trace = run.traces[run.traces.length - 1];
    out.push(...matchLines('trace', trace ? spanShape(trace) : [], expect.trace));
  }
  if (expect.requests !== undefined) out.push(equalCheck('requests', expect.requests, run.requests.length, `${run.requests.length} model requests`));
  if (expect.models !== undefined) {
    // The client from the log, the model from what was actually sent.
    const sent = events(run, 'model.request').map((e, i) => `${e.payload.client}: ${run.requests[i]?.model ?? '(not sent)'}`);
    out.push(equalCheck('models', expect.models, sent));
  }
  if (expect.usage)
    out.push(
      ...usageChecks(expect.usage, {
        steps: run.results.reduce((n, r) => n + r.steps, 0),
        input: run.results.reduce((n, r) => n + r.usage.inputTokens, 0),
        output: run.results.reduce((n, r) => n + r.usage.outputTokens, 0),
        calls: run.results.reduce((n, r) => n + r.toolCalls, 0),
      }),
    );
  if (expect.inbox) {
    if (expect.inbox.pending !== undefined)
      out.push(equalCheck('inbox', expect.inbox.pending, run.log.positions.pending().length, `${expect.inbox.pending} pending`));
    if (expect.inbox.returned !== undefined) {
      const returned = events(run, 'inbox.returned').reduce((n, e) => n + e.payload.ids.length, 0);
      out.push(equalCheck('inbox', expect.inbox.returned, returned, `${returned} returned to the inbox`));
    }
  }
  if (expect.clock !== undefined) out.push(equalCheck('clock', expect.clock, run.virtualMs, `virtual time ${run.virtualMs} ms`));
  if (expect.responses) out.push(responsesCheck(run, expect.responses));
  for (const [turn, want] of Object.entries(expect.turns ?? {})) out.push(...turnChecks(run, Number(turn), want));
  if (expect.events) {
    for (const [type, count] of Object.entries(expect.events)) {
      out.push(equalCheck('events', count, run.log.events.filter((e) => e.type === type).length, `${count} ${type}`));
    }
  }
  return out;
}

/** The production host's answer to each message, as much of it as the expectation names. */
function responsesCheck(run: ScenarioRun, expected: NonNullable<Expectation['responses']>): CheckResult {
  if (!run.posts) return { name: 'responses', passed: false, message: 'responses are the production host’s answers: this case ran through the loop' };
  const actual = run.posts.map((p, i) => {
    const want = expected[i];
    const e = p.envelope;
    return {
      status: e?.status ?? 'none',
      ...(want?.delivery !== undefined ? { delivery: e ? (e.delivery ?? 'none') : '(no answer)' } : {}),
      ...(want?.turn !== undefined ? { turn: e?.turns[e.turns.length - 1]?.turn ?? '(none)' } : {}),
      ...(want?.error !== undefined ? { error: e?.error?.includes(want.error) ? want.error : (e?.error ?? '(no error)') } : {}),
      ...(want?.inDoubt !== undefined ? { inDoubt: (e?.turns ?? []).flatMap((t) => (t.inDoubt ?? []).map((c) => c.call)) } : {}),
      ...(want?.done !== undefined ? { done: (e?.turns ?? []).flatMap((t) => (t.done ?? []).map((c) => c.call)) } : {}),
      ...(want?.retryAfterSeconds !== undefined ? { retryAfterSeconds: e?.retryAfterSeconds ?? 'none' } : {}),
    };
  });
  return equalCheck('responses', expected, actual);
}

type ToolResultEvent = Extract<LogEvent, { type: 'tool.result' }>;

/** Tool results in log order, each compared on the fields the expectation names. */
function toolResultsCheck(name: string, results: readonly ToolResultEvent[], expected: NonNullable<Expectation['toolResults']>): CheckResult {
  const trimmed = results.map((e, i) => {
    const want = expected[i];
    return {
      ...(want?.call !== undefined ? { call: e.payload.callId } : {}),
      ...(want?.tool !== undefined ? { tool: e.payload.name } : {}),
      status: e.payload.status,
      ...(want?.code !== undefined ? { code: e.payload.error?.error_code } : {}),
      // The text holds the words asked for: shown as asked when it does, else as it is.
      ...(want?.message !== undefined
        ? { message: e.payload.error?.error_message.includes(want.message) ? want.message : (e.payload.error?.error_message ?? null) }
        : {}),
      // What a reader of the stored history gets, beside the text the model read.
      ...(want?.output !== undefined ? { output: e.payload.output === undefined ? '(none)' : JSON.stringify(e.payload.output) } : {}),
    };
  });
  const check = equalCheck(name, expected, trimmed);
  if (check.passed) return check;
  // Shown when it differs: every result with its call, tool and status, and each field any expected entry asks about —
  // not only those the entry at its index asks about (a result out of place keeps its code; an extra one its call).
  const asked = new Set(expected.flatMap((want) => Object.keys(want)));
  const shown = results.map((e) => ({
    call: e.payload.callId,
    tool: e.payload.name,
    status: e.payload.status,
    ...(asked.has('code') || e.payload.error !== undefined ? { code: e.payload.error?.error_code ?? null } : {}),
    ...(asked.has('message') ? { message: e.payload.error?.error_message ?? null } : {}),
    ...(asked.has('output') ? { output: e.payload.output === undefined ? '(none)' : JSON.stringify(e.payload.output) } : {}),
  }));
  return { ...check, message: `expected ${JSON.stringify(expected)}, got ${JSON.stringify(shown)}`, actual: shown };
}

/**
 * What one turn of the final log did, as `turns.N` reads it: `undefined` when the turn never ran. Its outcome (the
 * loop's result, else what its close recorded, `(open)` with neither), the shape of its trace (`undefined` when no
 * loop traced it — crash recovery closed it), its model requests, and the last one's messages and system prompt.
 * Shared by the checks and `--update`, so an updated file passes.
 */
export function turnActuals(run: ScenarioRun, turn: number) {
  if (!events(run, 'turn.opened').some((e) => e.payload.turn === turn)) return undefined;
  const closed = events(run, 'turn.closed').find((e) => e.payload.turn === turn);
  const result = run.results.find((r) => r.turn === turn);
  const outcome = result?.outcome ?? (closed && isOutcome(closed.payload.outcome) ? closed.payload.outcome : undefined);
  const trace = run.traces.find((t) => t.spans.find((s) => s.kind === 'turn')?.attributes['turn'] === turn);
  const seqs = requestSeqs(run.log.events);
  const indexes = seqs.flatMap((seq, i) => ((run.log.events[seq] as Extract<LogEvent, { type: 'model.request' }>).payload.turn === turn ? [i] : []));
  const request = run.requests[indexes[indexes.length - 1] ?? -1];
  return {
    closed,
    result,
    outcome,
    outcomeLabel: outcome ? outcomeLabel(outcome) : '(open)',
    trace: trace ? spanShape(trace) : undefined,
    requests: indexes.length,
    lastRequest: request ? renderMessages(request.messages) : [],
    system: systemLines(request),
  };
}

/** One turn of the final log, by its number: its outcome, reply, trace, requests and tool results. */
function turnChecks(run: ScenarioRun, turn: number, want: TurnExpectation): CheckResult[] {
  const name = `turn ${turn}`;
  const actual = turnActuals(run, turn);
  if (actual === undefined)
    return [
      {
        name,
        passed: false,
        message: `turn ${turn} never ran (the log has turns ${
          events(run, 'turn.opened')
            .map((e) => e.payload.turn)
            .join(', ') || 'none'
        })`,
      },
    ];
  const { closed, result, outcome } = actual;
  const out: CheckResult[] = [];
  if (want.outcome !== undefined) out.push(equalCheck(`${name} outcome`, want.outcome, actual.outcomeLabel));
  if (want.detail !== undefined) {
    const detail = outcome?.kind === 'failed' ? outcome.detail : outcome?.kind === 'rejected' ? outcome.reason : undefined;
    out.push(equalCheck(`${name} detail`, want.detail, detail?.includes(want.detail) ? want.detail : (detail ?? '(no detail)')));
  }
  if (want.reply !== undefined) out.push(replyCheck(`${name} reply`, want.reply, result?.reply));
  if (want.trace) {
    if (actual.trace) out.push(...matchLines(`${name} trace`, actual.trace, want.trace));
    else
      out.push({
        name: `${name} trace`,
        passed: false,
        message: closed?.payload.recovered ? 'no trace: crash recovery closed this turn, no loop did' : 'no trace for this turn',
      });
  }
  if (want.requests !== undefined) out.push(equalCheck(`${name} requests`, want.requests, actual.requests, `${actual.requests} model requests`));
  if (want.lastRequest) out.push(...matchLines(`${name} last request`, actual.lastRequest, want.lastRequest));
  if (want.system) out.push(...matchLines(`${name} system prompt`, actual.system, want.system));
  if (want.toolResults)
    out.push(
      toolResultsCheck(
        `${name} tool results`,
        events(run, 'tool.result').filter((e) => e.payload.turn === turn),
        want.toolResults,
      ),
    );
  return out;
}

/** The system prompt a request carried, one line per line of it (fragments are joined by a blank line); none without a request. */
export function systemLines(request: { readonly system: string } | undefined): string[] {
  return request ? request.system.split('\n') : [];
}

function replyCheck(name: string, want: NonNullable<Expectation['reply']>, reply: string | undefined): CheckResult {
  const text = reply ?? '(no reply)';
  if (typeof want === 'string') return equalCheck(name, want, text);
  return text.includes(want.contains)
    ? { name, passed: true, message: `contains ${JSON.stringify(want.contains)}` }
    : { name, passed: false, message: `the reply does not contain ${JSON.stringify(want.contains)}`, expected: want.contains, actual: text };
}

/**
 * `store.corruptSnapshotOnCrash` garbled a snapshot that was read back: with no
 * snapshot stored before the crash (the production host writes one every few
 * events), or none read after it, the case does not test what it says.
 */
function storeFaultsCheck(run: ScenarioRun): CheckResult[] {
  return [...appendsNeverMade(run), ...snapshotNeverGarbled(run)];
}

/**
 * A fault at an append the case never made (`failAppends: [999999]`) injects nothing: the case passes testing
 * nothing it says, as a trigger that never fires would (outside probe 64, F11).
 */
function appendsNeverMade(run: ScenarioRun): CheckResult[] {
  const store = run.scenario.store;
  if (!store) return [];
  const made = run.storeWrites.attempts;
  const missed = [
    ...store.failAppends.filter((n) => n > made).map((n) => `store.failAppends: append ${n} never happened`),
    ...(store.slowAppends ?? []).filter((s) => s.append > made).map((s) => `store.slowAppends: append ${s.append} never happened`),
    ...(store.tornAppends ?? []).filter((t) => t.append > made).map((t) => `store.tornAppends: append ${t.append} never happened`),
  ];
  if (missed.length === 0) return [];
  return [{ name: 'store', passed: false, message: `${missed.join('; ')} (the case made ${made} appends): the case tests nothing there` }];
}

function snapshotNeverGarbled(run: ScenarioRun): CheckResult[] {
  if (run.scenario.store?.corruptSnapshotOnCrash === undefined || run.storeWrites.garbledSnapshotsRead > 0) return [];
  return [
    {
      name: 'store',
      passed: false,
      message:
        'store.corruptSnapshotOnCrash: no snapshot was read back garbled (none was stored before the crash, none held the field named, or no host reopened the conversation after it): the case tests nothing',
    },
  ];
}

/**
 * Every inbox entry with a trigger fired: an entry whose trigger never happened
 * (the case ended first — a typo in `request: 7`, a tool that never starts) did
 * nothing, and the scenario checks a case it did not mean. `ifReached: true`
 * says the entry may not fire. So does an entry whose occasion never came: a
 * reopen with no crash, a disconnect of a message not posted, an undo with no
 * compaction in force (the rest of the inbox is played all the same).
 */
export function triggersCheck(run: { readonly unfired: ScenarioRun['unfired'] }): CheckResult[] {
  const missed = run.unfired.filter((u) => u.entry.at?.ifReached !== true && u.mayNotHappen !== true);
  if (missed.length === 0) return [];
  const describe = ({ index, entry, skipped, why }: ScenarioRun['unfired'][number]) => {
    const action = INBOX_ACTIONS.find((k) => entry[k] !== undefined) ?? 'entry';
    if (entry.disconnect !== undefined && skipped) {
      const n = entry.disconnect;
      return `inbox[${index}]: disconnect ${n} never happened (message ${n} was not posted yet: a message with a trigger is posted when it fires)`;
    }
    if (entry.loseLock && skipped)
      return `inbox[${index}]: loseLock found no host holding the conversation lock, so nothing was lost (give it a trigger inside a turn)`;
    if (entry.undoCompaction && skipped)
      return `inbox[${index}]: undoCompaction found no compaction in force, so it undid nothing (did the compaction before it shrink the conversation?)`;
    if (!entry.at) return `inbox[${index}]: ${action} never happened (${why ?? 'what it follows never did'})`;
    const key = TRIGGER_KEYS.find((k) => entry.at![k] !== undefined)!;
    // A toolStart's attempt is part of its trigger: `{toolStart: X}` alone would read as if X never started (probe 65, F2).
    const attempt = key === 'toolStart' && entry.at.attempt !== undefined ? `, attempt: ${entry.at.attempt}` : '';
    return `inbox[${index}]: ${action} at {${key}: ${String(entry.at[key])}${attempt}} never happened (the case ended first; ifReached: true if it may not)`;
  };
  return [{ name: 'triggers', passed: false, message: missed.map(describe).join('; ') }];
}

/** `usage`'s bounds on a run's counts (loopgate's, or a peer's as it reported them): one check per bound given. */
export function usageChecks(
  usage: NonNullable<Expectation['usage']>,
  counts: { readonly steps: number; readonly input: number; readonly output: number; readonly calls: number },
): CheckResult[] {
  const out: CheckResult[] = [];
  const bound = (name: string, max: number | undefined, actual: number) => {
    if (max === undefined) return;
    out.push(
      actual <= max
        ? { name: 'usage', passed: true, message: `${name} ${actual} ≤ ${max}` }
        : { name: 'usage', passed: false, message: `${name} ${actual} exceeds ${max}`, expected: `≤ ${max}`, actual },
    );
  };
  bound('steps', usage.maxSteps, counts.steps);
  bound('input tokens', usage.maxInputTokens, counts.input);
  bound('output tokens', usage.maxOutputTokens, counts.output);
  bound('tool calls', usage.maxToolCalls, counts.calls);
  return out;
}
