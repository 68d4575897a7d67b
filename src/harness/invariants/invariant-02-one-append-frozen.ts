/**
 * Invariant 2: one append entry point; bad payloads, bad positions and
 * re-entrant appends refused; stored events frozen — and the store holds
 * exactly what was appended.
 *
 * Probed on the run's own final state: on a copy of its log, the one
 * append entry point must refuse a payload that is not plain JSON data, a
 * position that does not exist (a second result for a call, a result for no
 * call, a close with no open turn, returning a message that is not taken, a
 * second call with one id), and an
 * append from inside an append's listener — leaving the log unchanged. Every
 * stored event must be frozen plain JSON data all the way down (no symbol, Date,
 * undefined or NaN a copy let through), and seqs gapless.
 *
 * The store holds exactly the log, record for record (a shorter prefix only
 * after a refused write). The records are compared with the events rather than
 * each decoded through the catalogue's schemas — the log validated each payload
 * when it was appended, so what is left to find is a store that loses, reorders
 * or alters records — and only the last one is decoded, so the check stays cheap
 * enough to run on every fuzz case.
 *
 * Positions are checked on read too: the run's last stored record, read back
 * with `sources` that do not precede it (a negative seq, its own seq) must be
 * refused, and with sources that do (seq 0, the seq before it) read as written.
 */
import {
  decodeRecord,
  EventLog,
  LogAppendError,
  LogReadError,
  toRecord,
  type EventPayload,
  type EventRecord,
  type EventType,
  type LogEvent,
} from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, firstViolation, loopgateOnly } from './invariant.ts';
import { viewOf } from './support/log-view.ts';

export const oneAppendFrozen = defineInvariant({
  id: 'invariant-02-one-append-frozen',
  title: 'one validated append; bad payloads, positions and re-entrant appends refused; stored events frozen; the store holds the log',
  invariant: 2,
  appliesTo: loopgateOnly('no event log with one append entry point: a peer keeps none'),
  check: (run) =>
    firstViolation(
      () => appendProbes(run),
      () => storeEqualsLog(run),
    ),
});

function appendProbes(run: ScenarioRun): string | undefined {
  // The probes throw on purpose, several per run: stack traces would cost more than the probes.
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return probe(run);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

function probe(run: ScenarioRun): string | undefined {
  const events = run.log.events;
  for (let i = 0; i < events.length; i++) {
    if (events[i]!.seq !== i) return `event ${i} has seq ${events[i]!.seq}: seqs must be gapless from 0`;
    if (!Object.isFrozen(events[i])) return `event seq ${i} (${events[i]!.type}) is not frozen`;
    const thawed = firstNotPlainFrozen(events[i]!.payload, 'payload');
    if (thawed) return `event seq ${i} (${events[i]!.type}): ${thawed}`;
  }
  const copy = new EventLog({ now: () => 0 }, events);
  /** `says`: what the refusal must say of the field (a refusal that names nothing leaves the team guessing). */
  const refuse = (what: string, append: () => void, says?: { readonly field: string; readonly reason: RegExp }): string | undefined => {
    const before = copy.length;
    try {
      append();
    } catch (error) {
      if (!(error instanceof LogAppendError)) return `${what}: the append threw ${(error as Error)?.name} instead of LogAppendError`;
      if (says && (error.field !== says.field || !says.reason.test(error.reason)))
        return `${what}: refused as ${JSON.stringify(`${error.field}: ${error.reason}`)}, not naming ${says.field} (${says.reason})`;
      return copy.length === before ? undefined : `${what}: refused, but the log grew`;
    }
    return `${what} was accepted`;
  };
  const append = <T extends EventType>(type: T, payload: unknown) => copy.append(type, payload as EventPayload<T>);
  const view = viewOf(run);
  const problems = [
    refuse('a payload holding a function', () => append('cancel.requested', { by: 'user', reason: 'x', extra: () => 1 })),
    refuse('a payload holding NaN', () => append('cancel.requested', { by: 'user', reason: Number.NaN })),
    refuse('a result for a call that was never made', () =>
      append('tool.result', { turn: 0, step: 0, callId: 'fuzz-no-such-call', name: 'x', status: 'ok', content: '', durationMs: 0, attempts: 0 }),
    ),
    refuse('sources that do not exist', () => copy.append('cancel.requested', { by: 'user', reason: 'x' }, { sources: [copy.length + 5] }), {
      field: 'cancel.requested.sources[0]',
      reason: new RegExp(`^seq ${copy.length + 5} does not exist \\(log has ${copy.length} events\\)$`),
    }),
    copy.positions.openTurn === undefined
      ? refuse('a close with no open turn', () =>
          append('turn.closed', {
            turn: copy.positions.nextTurn,
            outcome: { kind: 'replied' },
            steps: 0,
            usage: { inputTokens: 0, outputTokens: 0 },
            toolCalls: 0,
          }),
        )
      : undefined,
    secondResult(view.known, refuse, append),
    ...positionProbes(view.known, refuse, append),
    pendingReturned(copy, refuse, append),
    reusedCallId(copy, view.known, refuse, append),
    closeOfAnotherTurn(copy, refuse, append),
    reentrant(copy),
  ];
  return problems.find((p) => p !== undefined);
}

type Refuse = (what: string, append: () => void) => string | undefined;
type Append = <T extends EventType>(type: T, payload: unknown) => unknown;

function secondResult(known: readonly LogEvent[], refuse: Refuse, append: Append): string | undefined {
  const result = known.find((e): e is Extract<LogEvent, { type: 'tool.result' }> => e.type === 'tool.result');
  if (!result) return undefined;
  return refuse(`a second result for call ${result.payload.callId}`, () => append('tool.result', { ...result.payload }));
}

/**
 * Bad positions made from the run's own records, each refused by a position
 * rule alone (no open-turn rule would refuse it too): a second receipt of an
 * inbox message, a start or a policy decision for a call that was never made, a
 * start for a call that has its result, a replaced range that is empty, a
 * restore of a replacement already restored.
 */
function positionProbes(known: readonly LogEvent[], refuse: Refuse, append: Append): (string | undefined)[] {
  const first = <T extends LogEvent['type']>(type: T, where: (e: Extract<LogEvent, { type: T }>) => boolean = () => true) =>
    known.find((e): e is Extract<LogEvent, { type: T }> => e.type === type && where(e as Extract<LogEvent, { type: T }>));
  const out: (string | undefined)[] = [];
  const received = first('inbox.received');
  if (received) out.push(refuse(`a second receipt of inbox message ${received.payload.id}`, () => append('inbox.received', { ...received.payload })));
  const results = new Set(known.flatMap((e) => (e.type === 'tool.result' ? [e.payload.callId] : [])));
  const started = first('tool.started', (e) => results.has(e.payload.callId));
  if (started) {
    out.push(refuse('a start for a call that was never made', () => append('tool.started', { ...started.payload, callId: 'fuzz-no-such-call' })));
    out.push(refuse(`a start for call ${started.payload.callId}, which has its result`, () => append('tool.started', { ...started.payload })));
  }
  const decision = first('policy.decision');
  if (decision)
    out.push(refuse('a policy decision for a call that was never made', () => append('policy.decision', { ...decision.payload, callId: 'fuzz-no-such-call' })));
  const replaced = first('projection.replaced', (e) => e.payload.to > e.payload.from);
  if (replaced)
    out.push(
      refuse('an empty replaced range', () => append('projection.replaced', { ...replaced.payload, from: replaced.payload.to, to: replaced.payload.from })),
    );
  const restored = first('projection.restored');
  if (restored) out.push(refuse(`restoring replacement ${restored.payload.replacement} twice`, () => append('projection.restored', { ...restored.payload })));
  return out;
}

function pendingReturned(copy: EventLog, refuse: Refuse, append: Append): string | undefined {
  const pending = copy.positions.pending()[0];
  if (!pending) return undefined;
  return refuse(`returning message ${pending.id}, which is not taken`, () => append('inbox.returned', { turn: 0, ids: [pending.id], reason: 'probe' }));
}

/**
 * An assistant message making a call under the id of a call already made (the
 * loop gives a call whose id the model repeated a fresh one, `repeatOf`): one
 * id for two calls would pair a result with either. Appended in the open turn,
 * or in one opened for it, so that only the id rule can refuse it.
 */
function reusedCallId(copy: EventLog, known: readonly LogEvent[], refuse: Refuse, append: Append): string | undefined {
  let call: Extract<Extract<LogEvent, { type: 'assistant.message' }>['payload']['content'][number], { type: 'tool_call' }> | undefined;
  for (const e of known) {
    if (e.type !== 'assistant.message') continue;
    call = e.payload.content.find((b) => b.type === 'tool_call');
    if (call) break;
  }
  if (!call) return undefined;
  let turn = copy.positions.openTurn;
  if (turn === undefined) {
    turn = copy.positions.nextTurn;
    append('turn.opened', { turn, trigger: 'probe' });
  }
  const made = call;
  return refuse(`a second call with id ${made.id}`, () => append('assistant.message', { turn, step: 0, content: [made] }));
}

/**
 * A close naming a turn other than the open one (one opened for it if none is): the open turn would stay open
 * with its close stored under a turn that never opened.
 */
function closeOfAnotherTurn(copy: EventLog, refuse: Refuse, append: Append): string | undefined {
  let turn = copy.positions.openTurn;
  if (turn === undefined) {
    turn = copy.positions.nextTurn;
    append('turn.opened', { turn, trigger: 'probe' });
  }
  const open = turn;
  return refuse(`closing turn ${open + 1} while turn ${open} is open`, () =>
    append('turn.closed', { turn: open + 1, outcome: { kind: 'replied' }, steps: 0, usage: { inputTokens: 0, outputTokens: 0 }, toolCalls: 0 }),
  );
}

function reentrant(copy: EventLog): string | undefined {
  let inner: unknown = 'not attempted';
  const unsubscribe = copy.subscribe(() => {
    try {
      copy.append('cancel.requested', { by: 'user', reason: 'inner' });
      inner = undefined;
    } catch (error) {
      inner = error;
    }
  });
  try {
    copy.append('cancel.requested', { by: 'user', reason: 'outer' });
  } finally {
    unsubscribe();
  }
  if (inner === undefined) return 'an append from inside an append listener was accepted';
  if (!(inner instanceof LogAppendError)) return `a re-entrant append threw ${String(inner)} instead of LogAppendError`;
  return undefined;
}

/**
 * The first place in a stored payload that is not frozen plain JSON data: a
 * thawed object, or a value JSON would change or drop (a symbol, a function,
 * undefined, a non-finite number, a Date or any other class instance, a hole).
 */
function firstNotPlainFrozen(value: unknown, path: string): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : `${path} is ${String(value)}, not JSON data`;
    case 'object':
      break;
    default:
      return `${path} is ${typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`}, not JSON data`;
  }
  if (value === null) return undefined;
  if (!Object.isFrozen(value)) return `${path} is not frozen`;
  const proto = Object.getPrototypeOf(value);
  if (Array.isArray(value)) {
    if (proto !== Array.prototype || Object.keys(value).length !== value.length) return `${path} is an array with holes or extra keys, not JSON data`;
  } else if (proto !== Object.prototype && proto !== null) return `${path} is a ${proto?.constructor?.name ?? 'class'} instance, not JSON data`;
  for (const [k, v] of Object.entries(value)) {
    const thawed = firstNotPlainFrozen(v, Array.isArray(value) ? `${path}[${k}]` : `${path}.${k}`);
    if (thawed) return thawed;
  }
  return undefined;
}

function storeEqualsLog(run: ScenarioRun): string | undefined {
  const stored = run.store.peek(run.conversation);
  const events = run.log.events;
  if (stored.length > events.length) return `the store holds ${stored.length} events, the log ${events.length}`;
  for (let i = 0; i < stored.length; i++) {
    if (stored[i]!.seq !== i) return `the store's record ${i} has seq ${stored[i]!.seq}: records must be gapless from 0, as the log is`;
    if (JSON.stringify(stored[i]) !== JSON.stringify(toRecord(events[i]!))) return `stored record seq ${i} (${stored[i]!.type}) differs from the log's event`;
  }
  if (stored.length > 0) {
    try {
      decodeRecord(stored[stored.length - 1]!, 'store', stored.length - 1);
    } catch (error) {
      return `the last stored record does not decode: ${(error as Error).message}`;
    }
    const sources = readSourcesProbe(stored[stored.length - 1]!);
    if (sources) return sources;
  }
  const persistenceFailed = run.results.some((r) => r.outcome.kind === 'failed' && r.outcome.reason === 'persistence');
  // The host's own last write (of a message posted after the last turn) may be the one that failed: no turn could report it
  // (or the store refused it for following a failed one in flight: write-behind).
  const last = run.storeWrites.attempts;
  const lastWriteFailed = last > 0 && (run.storeWrites.failed.includes(last) || run.storeWrites.refusedBehind.includes(last));
  if (!persistenceFailed && !lastWriteFailed && stored.length !== events.length) return `${events.length - stored.length} event(s) never reached the store`;
  return undefined;
}

/** `record` read back with sources that do not precede it (refused) and with sources that do (read, sources as written). */
function readSourcesProbe(record: EventRecord): string | undefined {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0; // the refusals throw on purpose
  try {
    const what = (sources: readonly number[]) => `stored record seq ${record.seq} (${record.type}) read back with sources [${sources.join(', ')}]`;
    for (const sources of [[-1], [record.seq]]) {
      try {
        decodeRecord({ ...record, sources }, 'sources probe', record.seq);
        return `${what(sources)}, which do not precede it, was accepted`;
      } catch (error) {
        if (!(error instanceof LogReadError)) return `${what(sources)}: decoding threw ${(error as Error)?.name} instead of LogReadError`;
      }
    }
    if (record.seq === 0) return undefined;
    for (const sources of [[0], [0, record.seq - 1]]) {
      try {
        const read = decodeRecord({ ...record, sources }, 'sources probe', record.seq);
        if (JSON.stringify(read.sources) !== JSON.stringify(sources)) return `${what(sources)} was read with sources ${JSON.stringify(read.sources)}`;
      } catch (error) {
        return `${what(sources)}, which precede it, was refused: ${(error as Error).message}`;
      }
    }
    return undefined;
  } finally {
    Error.stackTraceLimit = limit;
  }
}
