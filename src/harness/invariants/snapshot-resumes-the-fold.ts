/**
 * A conversation reopened from a snapshot of its derived state is the
 * conversation read whole (DESIGN.md, Storage: "reopening reads a snapshot and
 * the tail"). For each run, snapshots are taken of prefixes of its own log —
 * just before each compaction or restore (so the tail changes the replace
 * generation the snapshot was folded under), and at the middle — written as
 * JSON and read back as the host does, and the log resumed from each with the
 * rest as its tail must:
 *
 * - project to the naive reference projection of the whole log
 *   (support/reference-projection.ts, no kernel projection code);
 * - hold the position index a log folded from seq 0 holds (open turn, calls,
 *   inbox, compactions in force);
 * - refuse a prefix the store reads back wrongly (a record short, a record
 *   repeated in place of the next) instead of reading it as the log's history;
 * - refuse to be resumed over a prefix of another length (one event longer or
 *   shorter), though the event it was taken after is still there;
 * - refuse a snapshot whose inbox rows are malformed (a source that is not a
 *   string, a negative seq, a taken flag that is not a boolean), or whose
 *   projection is (its messages ending inside a call, the call's arguments
 *   missing; an open turn whose number is not an integer): a snapshot may cost
 *   a slower open, never a wrong history.
 *
 * Besides the points above, a snapshot is taken just after the first assistant
 * message that calls a tool: its projection ends in that call, with its turn open.
 */
import { ScriptedModelClient } from '../../../providers/fake/scripted.ts';
import {
  AgentLoop,
  EventLog,
  loopDeps,
  ProjectionCache,
  resumeFromSnapshot,
  SnapshotMismatch,
  snapshotOf,
  type AnyEvent,
  type LogPrefix,
  type LoopSnapshot,
  type Message,
} from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { referenceProjection } from './support/reference-projection.ts';
import { firstDifference, sameData } from './support/same-data.ts';

export const snapshotResumesTheFold = defineInvariant({
  id: 'snapshot-resumes-the-fold',
  title: 'a log resumed from a snapshot of any prefix reads, indexes and projects as the whole log; a damaged snapshot or prefix is refused',
  appliesTo: loopgateOnly('no derived state to snapshot: a peer keeps no event log'),
  check: (run) => snapshotsResume(run),
});

/** Compaction points probed per run, besides the middle. */
const MAX_GENERATION_POINTS = 2;

const CLOCK = { now: () => 0 };

function snapshotsResume(run: ScenarioRun): string | undefined {
  const events = run.log.events;
  if (events.length < 2) return undefined;
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0; // the damaged reads throw on purpose
  try {
    const reference = referenceProjection(events);
    const wholeIndex = JSON.stringify(new EventLog(CLOCK, events).positions.state());
    for (const upTo of snapshotPoints(events)) {
      const snapshot = snapshotAt(events, upTo);
      const problem =
        resumesWhole(events, snapshot, reference, wholeIndex) ??
        damagedPrefixRefused(events, snapshot) ??
        otherPrefixRefused(events, snapshot) ??
        malformedInboxRefused(events, snapshot) ??
        malformedProjectionRefused(events, snapshot);
      if (problem) return problem;
    }
    return undefined;
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Seqs to snapshot before: each compaction or restore (a few), and the middle of the log. */
function snapshotPoints(events: readonly AnyEvent[]): number[] {
  const points = new Set<number>();
  for (const event of events) {
    if (points.size >= MAX_GENERATION_POINTS) break;
    if (!event.opaque && event.seq > 0 && (event.type === 'projection.replaced' || event.type === 'projection.restored')) points.add(event.seq);
  }
  points.add(Math.floor(events.length / 2));
  const call = events.find(
    (e) => !e.opaque && e.type === 'assistant.message' && (e.payload as { content?: { type?: unknown }[] }).content?.some((b) => b.type === 'tool_call'),
  );
  if (call) points.add(call.seq + 1);
  return [...points];
}

/** The derived state of a loop over the log's first `upTo` events, as the host stores it (JSON) and reads it back. */
function snapshotAt(events: readonly AnyEvent[], upTo: number): LoopSnapshot {
  const prefix = new EventLog(CLOCK, events.slice(0, upTo));
  const loop = new AgentLoop(loopDeps({ log: prefix, model: new ScriptedModelClient([], { name: 'snapshot' }) }));
  return JSON.parse(JSON.stringify(snapshotOf(loop, prefix))) as LoopSnapshot;
}

function prefixOf(events: readonly AnyEvent[], upTo: number, load: LogPrefix['load'] = (from, to) => events.slice(from, to)): LogPrefix {
  return { upTo, last: events[upTo - 1], load };
}

function resumesWhole(events: readonly AnyEvent[], snapshot: LoopSnapshot, reference: readonly Message[], wholeIndex: string): string | undefined {
  const where = `resumed from a snapshot at seq ${snapshot.upTo} (of ${events.length})`;
  let log: EventLog;
  try {
    log = resumeFromSnapshot(CLOCK, snapshot, prefixOf(events, snapshot.upTo), events.slice(snapshot.upTo));
  } catch (error) {
    return `${where}: the snapshot was refused: ${(error as Error).message}`;
  }
  const projected = new ProjectionCache(log).current();
  if (!sameData(projected, reference))
    return `${where}: the projection differs from the reference projection of the whole log: ${firstDifference(projected, reference)}`;
  const index = JSON.stringify(log.positions.state());
  if (index !== wholeIndex) return `${where}: the position index differs from the one folded from seq 0: ${firstKeyDifference(index, wholeIndex)}`;
  if (!sameData(log.events, events)) return `${where}: the log reads back other events than the ones stored`;
  return undefined;
}

/** A store that reads part of the prefix back wrongly: the resumed log must refuse it, not read it as its history. */
function damagedPrefixRefused(events: readonly AnyEvent[], snapshot: LoopSnapshot): string | undefined {
  const damages: [string, number, LogPrefix['load']][] = [
    ['one record short', 1, (from, to) => events.slice(from, to - 1)],
    [
      'with a record repeated in place of the next',
      2,
      (from, to) => (to - from < 2 ? events.slice(from, to) : [...events.slice(from, to - 1), events[to - 2]!]),
    ],
  ];
  for (const [what, least, load] of damages) {
    if (snapshot.upTo < least) continue;
    let read: readonly AnyEvent[];
    try {
      const log = resumeFromSnapshot(CLOCK, snapshot, prefixOf(events, snapshot.upTo, load), events.slice(snapshot.upTo));
      read = log.events;
    } catch {
      continue; // refused: as it must be
    }
    if (!sameData(read, events))
      return `resumed from a snapshot at seq ${snapshot.upTo}, a store reading the prefix back ${what} was read as the log's history (${read.length} events, ${events.length} stored)`;
  }
  return undefined;
}

/**
 * A snapshot handed with the prefix of another length (one event longer or shorter,
 * the tail from there) must be refused (SnapshotMismatch): its folds stand after
 * another event than the prefix's last, even where the event it was taken after
 * matches (as it does for a prefix one longer).
 */
function otherPrefixRefused(events: readonly AnyEvent[], snapshot: LoopSnapshot): string | undefined {
  for (const upTo of [snapshot.upTo + 1, snapshot.upTo - 1]) {
    if (upTo < 1 || upTo > events.length) continue;
    try {
      resumeFromSnapshot(CLOCK, snapshot, prefixOf(events, upTo), events.slice(upTo));
    } catch (error) {
      if (error instanceof SnapshotMismatch) continue;
      return `a snapshot at seq ${snapshot.upTo} handed the prefix of ${upTo} events: resuming threw ${(error as Error)?.name} instead of SnapshotMismatch`;
    }
    return `a snapshot at seq ${snapshot.upTo} handed the prefix of ${upTo} events was restored instead of refused`;
  }
  return undefined;
}

/** A snapshot with a malformed inbox row must be refused (SnapshotMismatch), so the host reads the log whole. */
function malformedInboxRefused(events: readonly AnyEvent[], snapshot: LoopSnapshot): string | undefined {
  const rows = snapshot.positions.inbox;
  if (rows.length === 0) return undefined;
  const damages: [string, number, unknown][] = [
    ['a source that is not a string', 3, 7],
    ['a negative seq', 4, -1],
    ['a taken flag that is not a boolean', 5, 'yes'],
  ];
  for (const [what, column, value] of damages) {
    const row: unknown[] = [...rows[0]!];
    row[column] = value;
    const damaged = { ...snapshot, positions: { ...snapshot.positions, inbox: [row, ...rows.slice(1)] } } as unknown as LoopSnapshot;
    try {
      resumeFromSnapshot(CLOCK, damaged, prefixOf(events, snapshot.upTo), events.slice(snapshot.upTo));
    } catch (error) {
      if (error instanceof SnapshotMismatch) continue;
      return `a snapshot at seq ${snapshot.upTo} whose inbox row has ${what}: resuming threw ${(error as Error)?.name} instead of SnapshotMismatch`;
    }
    return `a snapshot at seq ${snapshot.upTo} whose inbox row has ${what} was restored instead of refused`;
  }
  return undefined;
}

/**
 * A snapshot whose projection is malformed must be refused (SnapshotMismatch), so the
 * host reads the log whole: its message stream cut inside its last call (the name
 * there, the arguments not), and an open turn numbered with text. Each only where the
 * snapshot has it: a last message ending in a call, an open turn.
 */
function malformedProjectionRefused(events: readonly AnyEvent[], snapshot: LoopSnapshot): string | undefined {
  const projection = snapshot.projection;
  const damages: [string, LoopSnapshot['projection']][] = [];
  const argsAt = lastCallArguments(projection.messages);
  if (argsAt !== undefined)
    damages.push(['its messages ending inside a call, the arguments missing', { ...projection, messages: projection.messages.slice(0, argsAt) }]);
  if (projection.turn)
    damages.push(['an open turn numbered with text', { ...projection, turn: { ...projection.turn, turn: String(projection.turn.turn) as unknown as number } }]);
  for (const [what, damaged] of damages) {
    try {
      resumeFromSnapshot(CLOCK, { ...snapshot, projection: damaged }, prefixOf(events, snapshot.upTo), events.slice(snapshot.upTo));
    } catch (error) {
      if (error instanceof SnapshotMismatch) continue;
      return `a snapshot at seq ${snapshot.upTo} with ${what}: resuming threw ${(error as Error)?.name} instead of SnapshotMismatch`;
    }
    return `a snapshot at seq ${snapshot.upTo} with ${what} was restored instead of refused`;
  }
  return undefined;
}

/**
 * Where the arguments of the stream's last block are, when that block is a call in the
 * compact form ([0, id, name, arguments]) ending the last message, an assistant one:
 * a message is its head ((blocks << 1) | 1 for an assistant) and its blocks, each a
 * text, a compact call or result (0 and three values), or a block object.
 */
function lastCallArguments(stream: readonly unknown[]): number | undefined {
  let last: number | undefined;
  let i = 0;
  while (i < stream.length) {
    const head = stream[i++];
    if (typeof head !== 'number') return undefined;
    last = undefined;
    for (let k = 0; k < head >>> 1; k++) {
      if (stream[i] === 0) {
        last = (head & 1) === 1 && k === (head >>> 1) - 1 ? i + 3 : undefined;
        i += 4;
      } else i++;
    }
  }
  return last !== undefined && last === stream.length - 1 ? last : undefined;
}

function firstKeyDifference(actual: string, expected: string): string {
  const a = JSON.parse(actual) as Record<string, unknown>;
  const e = JSON.parse(expected) as Record<string, unknown>;
  const key = Object.keys(e).find((k) => JSON.stringify(a[k]) !== JSON.stringify(e[k]));
  return key === undefined ? 'they differ' : `${key} is ${JSON.stringify(a[key])}, folded from 0 ${JSON.stringify(e[key])}`;
}
