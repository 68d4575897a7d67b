/**
 * A crash at any event loses nothing and recovers cleanly. For a crash just
 * before event k, the store holds what it had committed by then (the run records
 * it: `durableBefore`). Reopening that prefix and running crash recovery must give
 * a log with no open turn, every tool call answered (a started STATEFUL/CRITICAL
 * call as `unknown`: it may have run and must not run again), every message the
 * model never saw back in the inbox, a well-paired history, and recovery must be
 * idempotent and its events readable back from a store.
 */
import {
  checkToolPairing,
  decodeRecord,
  decodeRecords,
  EVENT_VERSIONS,
  EventLog,
  project,
  toRecord,
  type AnyEvent,
  type LogEvent,
  type SideEffect,
} from '../../../kernel/index.ts';
import { recoverConversation, type RecoveryReport } from '../../../host/recovery.ts';
import type { ScenarioRun } from '../../second-host.ts';
import { replayInbox } from './inbox-replay.ts';
import { noticeLine, sideEffectsOfUnrepliedTurns, tells } from './side-effects.ts';
import { closeCountsItsTurn } from '../invariant-04-turns-closed-once.ts';

/** The distinct store lengths a crash could leave, in order (at most `limit`, spread evenly, the last always kept). */
export function crashPoints(run: ScenarioRun, limit: number): number[] {
  const all = [...new Set([...run.durableBefore, run.store.count(run.conversation)])].filter((p) => p > 0).sort((a, b) => a - b);
  if (all.length <= limit) return all;
  if (limit <= 1) return [all[all.length - 1]!];
  return [...new Set(Array.from({ length: limit }, (_, i) => all[Math.round((i * (all.length - 1)) / (limit - 1))]!))];
}

/** The durable prefix a crash just before event `k` leaves (k past the end: after everything). */
export function durableAt(run: ScenarioRun, k: number): number {
  return k < run.durableBefore.length ? run.durableBefore[k]! : run.store.count(run.conversation);
}

/** The declared side-effect level of each tool of the run, as the production host's recovery looks it up. */
export function sideEffectOf(run: ScenarioRun): (tool: string) => SideEffect | undefined {
  return (tool) => run.sideEffectLevels.get(tool) as SideEffect | undefined;
}

/**
 * Recovers `prefix` (as reopened from the store) the way the production host
 * does and checks the result; the recovered log is returned for more checks. A
 * STATEFUL or CRITICAL call with no durable start provably never ran: recovery
 * must say NOT_RUN, not "may have taken effect" (the write-ahead rule).
 */
/** The report recovery returns (to the host and its caller) says exactly what it wrote: the calls it settled unknown or NOT_RUN, the messages it returned. */
function reportProblem(report: RecoveryReport, log: EventLog, from: number): string | undefined {
  const unknown: string[] = [];
  const notRun: string[] = [];
  const returned: string[] = [];
  for (const e of log.events.slice(from)) {
    if (e.opaque) continue;
    const event = e as LogEvent;
    if (event.type === 'tool.result') (event.payload.status === 'unknown' ? unknown : notRun).push(event.payload.callId);
    if (event.type === 'inbox.returned') returned.push(...event.payload.ids);
  }
  const same = (a: readonly string[], b: readonly string[]) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());
  if (!same(report.unknownCallIds, unknown) || !same(report.notRunCallIds, notRun) || !same(report.returnedIds, returned))
    return `recovery reported unknown ${JSON.stringify(report.unknownCallIds)}, not run ${JSON.stringify(report.notRunCallIds)}, returned ${JSON.stringify(report.returnedIds)}, but wrote unknown ${JSON.stringify(unknown)}, not run ${JSON.stringify(notRun)}, returned ${JSON.stringify(returned)}`;
  return undefined;
}

export function recoverAndCheck(
  prefix: readonly AnyEvent[],
  where: string,
  levelOf: (tool: string) => SideEffect | undefined = () => undefined,
): { problem: string | undefined; log: EventLog } {
  const log = new EventLog({ now: () => 0 }, prefix);
  const openBefore = log.positions.openTurn;
  const startedOpen = new Set<string>();
  const resultBefore = new Set<string>();
  for (const e of prefix) if (!e.opaque && e.type === 'tool.result') resultBefore.add((e as Extract<LogEvent, { type: 'tool.result' }>).payload.callId);
  for (const e of prefix) {
    if (!e.opaque && e.type === 'tool.started' && log.positions.call((e as Extract<LogEvent, { type: 'tool.started' }>).payload.callId)?.result === undefined) {
      startedOpen.add((e as Extract<LogEvent, { type: 'tool.started' }>).payload.callId);
    }
  }
  const fail = (problem: string) => ({ problem: `${where}: ${problem}`, log });
  let report;
  try {
    report = recoverConversation(log, { sideEffectOf: levelOf });
  } catch (error) {
    return fail(`recovery threw ${(error as Error).message}`);
  }
  if (log.positions.openTurn !== undefined) return fail(`turn ${log.positions.openTurn} is still open after recovery`);
  if (openBefore !== undefined && !report.recovered) return fail(`turn ${openBefore} was open but recovery did nothing`);
  const told = reportProblem(report, log, prefix.length);
  if (told) return fail(told);
  const known = log.events.filter((e): e is LogEvent => !e.opaque);
  for (const e of known) {
    if (e.type !== 'assistant.message') continue;
    for (const b of e.payload.content) {
      if (b.type !== 'tool_call') continue;
      const resultSeq = log.positions.call(b.id)?.result;
      if (resultSeq === undefined) return fail(`tool call ${b.id} has no result after recovery`);
      const result = log.at(resultSeq) as Extract<LogEvent, { type: 'tool.result' }>;
      if (startedOpen.has(b.id) && result.payload.status !== 'unknown')
        return fail(`call ${b.id} had started when the process died, but recovery closed it ${result.payload.status}: it may have run`);
      const level = levelOf(b.name);
      const neverStarted = !resultBefore.has(b.id) && !startedOpen.has(b.id);
      if (
        neverStarted &&
        (level === 'STATEFUL' || level === 'CRITICAL') &&
        (result.payload.status !== 'failed' || result.payload.error?.error_code !== 'NOT_RUN')
      )
        return fail(
          `${level} call ${b.id} (${b.name}) had no durable start when the process died, so it never ran, but recovery closed it ${result.payload.status}${result.payload.error ? ` (${result.payload.error.error_code})` : ''}: it must be NOT_RUN`,
        );
    }
  }
  const history = project(log.events);
  const pairing = checkToolPairing(history);
  if (pairing) return fail(`the recovered history, message ${pairing.messageIndex}: ${pairing.problem}`);
  if (report.recovered) {
    // Invariant 14 for the interrupted turn: what it ran is in the history the next turn reads, or a notice waits.
    const pending = log.positions.pending();
    for (const { effect } of sideEffectsOfUnrepliedTurns(known)) {
      if (effect.turn !== report.turn || tells(history, effect) || pending.some((m) => m.text.includes(noticeLine(effect)))) continue;
      return fail(`${noticeLine(effect)} started in the interrupted turn ${effect.turn}, but nothing the next turn reads tells the model`);
    }
  }
  const inbox = replayInbox(known);
  if (inbox.problem) return fail(inbox.problem);
  if (report.recovered) {
    // Messages taken after the interrupted turn's last assistant message never reached the model: they must be pending again.
    const turnStart = known.findIndex((e) => e.type === 'turn.opened' && e.payload.turn === report.turn);
    let lastAssistant = turnStart;
    for (let i = turnStart; i < known.length; i++) if (known[i]!.type === 'assistant.message') lastAssistant = i;
    for (const e of known.slice(lastAssistant + 1)) {
      if (e.type === 'user.message' && log.positions.inboxState(e.payload.id) !== 'pending')
        return fail(`message ${e.payload.id} was taken by the interrupted turn, never seen by the model, and is not back in the inbox`);
    }
    // Invariant 4 for the close recovery wrote: its usage, and a tool-call count between the calls that started and
    // the calls the model made (a retried call is one call).
    const turnEvents = known.slice(turnStart);
    const counted = closeCountsItsTurn(report.turn!, turnEvents.slice(0, turnEvents.findIndex((e) => e.type === 'turn.closed') + 1));
    if (counted) return fail(`recovery's close: ${counted}`);
    try {
      decodeRecords(log.readFrom(report.fromSeq!).map(toRecord), 'recovery', report.fromSeq!);
    } catch (error) {
      return fail(`what recovery wrote does not read back: ${(error as Error).message}`);
    }
  }
  if (recoverConversation(log, { sideEffectOf: levelOf }).recovered) return fail('recovery is not idempotent: a second run recovered again');
  return { problem: undefined, log };
}

/**
 * In memory, at up to `limit` crash points (the stored records equal the log's
 * prefix; the persisted-history check holds that). At the last point that leaves
 * a turn open with a model result in it, once more with that result written by a
 * newer writer (one version newer, marked ignorable, as a rolling deploy leaves
 * it): this reader keeps it opaque, so recovery must close the turn on the events
 * it knows — counting the opaque result's tokens would close it with usage its
 * known results never reported.
 */
export function crashRecoveryAtEveryEvent(run: ScenarioRun, limit = 24): string | undefined {
  let newer: readonly AnyEvent[] | undefined;
  for (const p of crashPoints(run, limit)) {
    const prefix = run.log.events.slice(0, p);
    const { problem } = recoverAndCheck(prefix, `a crash leaving ${p} stored event(s)`, sideEffectOf(run));
    if (problem) return problem;
    newer = withNewerOpenModelResult(prefix) ?? newer;
  }
  if (newer === undefined) return undefined;
  return recoverAndCheck(newer, `a crash leaving ${newer.length} stored event(s), the open turn's last model result from a newer writer`, sideEffectOf(run))
    .problem;
}

/** `prefix` with its open turn's last `model.result` read as one version newer and ignorable (opaque); undefined when no turn is open or it has none. */
function withNewerOpenModelResult(prefix: readonly AnyEvent[]): readonly AnyEvent[] | undefined {
  for (let i = prefix.length - 1; i >= 0; i--) {
    const e = prefix[i]!;
    if (e.opaque) continue;
    if (e.type === 'turn.closed') return undefined;
    if (e.type === 'turn.opened') return undefined;
    if (e.type !== 'model.result') continue;
    const record = { ...toRecord(e), v: EVENT_VERSIONS['model.result'] + 1, ignorable: true };
    return [...prefix.slice(0, i), decodeRecord(record, 'newer writer', e.seq), ...prefix.slice(i + 1)];
  }
  return undefined;
}
