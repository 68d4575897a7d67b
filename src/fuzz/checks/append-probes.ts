/**
 * Invariant 2 probed on the run's own final state: on a copy of its log, the one
 * append entry point must refuse a payload that is not plain JSON data, a
 * position that does not exist (a second result for a call, a result for no
 * call, a close with no open turn, returning a message that is not taken), and an
 * append from inside an append's listener — leaving the log unchanged. Every
 * stored event must be frozen all the way down, and seqs gapless.
 */
import { EventLog, LogAppendError, type EventPayload, type EventType, type LogEvent } from '../../kernel/index.ts';
import type { ScenarioRun } from '../../harness/second-host.ts';
import { viewOf } from './log-view.ts';

export function appendProbes(run: ScenarioRun): string | undefined {
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
    const thawed = firstThawed(events[i]!.payload, 'payload');
    if (thawed) return `event seq ${i} (${events[i]!.type}): ${thawed} is not frozen`;
  }
  const copy = new EventLog({ now: () => 0 }, events);
  const refuse = (what: string, append: () => void): string | undefined => {
    const before = copy.length;
    try {
      append();
    } catch (error) {
      if (!(error instanceof LogAppendError)) return `${what}: the append threw ${(error as Error)?.name} instead of LogAppendError`;
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
    refuse('sources that do not exist', () => copy.append('cancel.requested', { by: 'user', reason: 'x' }, { sources: [copy.length + 5] })),
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
    pendingReturned(copy, refuse, append),
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

function pendingReturned(copy: EventLog, refuse: Refuse, append: Append): string | undefined {
  const pending = copy.positions.pending()[0];
  if (!pending) return undefined;
  return refuse(`returning message ${pending.id}, which is not taken`, () => append('inbox.returned', { turn: 0, ids: [pending.id], reason: 'probe' }));
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

function firstThawed(value: unknown, path: string): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  if (!Object.isFrozen(value)) return path;
  for (const [k, v] of Object.entries(value)) {
    const thawed = firstThawed(v, `${path}.${k}`);
    if (thawed) return thawed;
  }
  return undefined;
}
