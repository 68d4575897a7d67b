/**
 * Read-only views of a run's log shared by the checks: its turns, its model
 * requests with their results and error handling, the inbox replayed. Computed
 * once per run (the checks run on every fuzz case, so they must stay cheap).
 */
import { isOutcome, outcomeLabel, type AnyEvent, type LogEvent, type Outcome } from '../../../kernel/index.ts';
import type { ScenarioRun } from '../../second-host.ts';

type Event<T extends LogEvent['type']> = Extract<LogEvent, { type: T }>;

export interface TurnView {
  readonly turn: number;
  readonly openedSeq: number;
  readonly closedSeq: number | undefined;
  readonly outcome: Outcome | undefined;
  /** Closed by crash recovery (a process died with the turn open), not by a loop. */
  readonly recovered: boolean;
  /** Every known event from `turn.opened` to `turn.closed`, inclusive. */
  readonly events: readonly LogEvent[];
}

export interface RequestView {
  /** 0-based, in the order the requests were sent (aligned with `run.requests`). */
  readonly index: number;
  readonly event: Event<'model.request'>;
  readonly result: Event<'model.result'> | undefined;
  readonly handled: Event<'model.error_handled'> | undefined;
}

export interface LogView {
  readonly known: readonly LogEvent[];
  readonly turns: readonly TurnView[];
  readonly requests: readonly RequestView[];
  /** Requests of each turn, in order. */
  requestsOf(turn: number): readonly RequestView[];
}

const views = new WeakMap<ScenarioRun, LogView>();

export function viewOf(run: ScenarioRun): LogView {
  let view = views.get(run);
  if (!view) {
    view = buildView(run);
    views.set(run, view);
  }
  return view;
}

function buildView(run: ScenarioRun): LogView {
  const known: LogEvent[] = [];
  for (const e of run.log.events) if (!e.opaque) known.push(e as LogEvent);
  const turns: { turn: number; openedSeq: number; closedSeq: number | undefined; outcome: Outcome | undefined; recovered: boolean; events: LogEvent[] }[] = [];
  let open: (typeof turns)[number] | undefined;
  const requests: {
    index: number;
    event: Event<'model.request'>;
    result: Event<'model.result'> | undefined;
    handled: Event<'model.error_handled'> | undefined;
  }[] = [];
  const byAttempt = new Map<string, (typeof requests)[number]>();
  const key = (p: { turn: number; step: number; attempt: number }) => `${p.turn}/${p.step}/${p.attempt}`;
  for (const e of known) {
    if (e.type === 'turn.opened') {
      open = { turn: e.payload.turn, openedSeq: e.seq, closedSeq: undefined, outcome: undefined, recovered: false, events: [] };
      turns.push(open);
    }
    open?.events.push(e);
    switch (e.type) {
      case 'turn.closed':
        if (open && open.turn === e.payload.turn) {
          open.closedSeq = e.seq;
          open.outcome = e.payload.outcome as Outcome;
          open.recovered = e.payload.recovered === true;
        }
        open = undefined;
        break;
      case 'model.request': {
        const r = { index: requests.length, event: e, result: undefined, handled: undefined };
        requests.push(r);
        byAttempt.set(key(e.payload), r);
        break;
      }
      case 'model.result': {
        const r = byAttempt.get(key(e.payload));
        if (r && !r.result) r.result = e;
        break;
      }
      case 'model.error_handled': {
        const r = byAttempt.get(key(e.payload));
        if (r && !r.handled) r.handled = e;
        break;
      }
      default:
        break;
    }
  }
  const perTurn = new Map<number, RequestView[]>();
  for (const r of requests) {
    const list = perTurn.get(r.event.payload.turn) ?? [];
    list.push(r);
    perTurn.set(r.event.payload.turn, list);
  }
  return { known, turns, requests, requestsOf: (turn) => perTurn.get(turn) ?? [] };
}

/** Each inbox message as it was posted — its text and source — by id (opaque events passed over). */
export function postedMessages(events: readonly AnyEvent[]): Map<string, { readonly text: string; readonly source: string }> {
  const posted = new Map<string, { readonly text: string; readonly source: string }>();
  for (const e of events) if (e.type === 'inbox.received' && !('opaque' in e)) posted.set(e.payload.id, { text: e.payload.text, source: e.payload.source });
  return posted;
}

export function label(outcome: Outcome | undefined): string {
  return outcome === undefined ? '(open)' : isOutcome(outcome) ? outcomeLabel(outcome) : JSON.stringify(outcome);
}

/** JSON equality for plain data (what the log and the requests hold). */
export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
