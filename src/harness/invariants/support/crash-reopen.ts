/**
 * A real crash at event k: the batches the store had committed are written to a
 * SQLite file in the same batches, the store is closed and reopened (what a
 * restarted process does), the records decoded, the conversation recovered and
 * flushed, and then the loop resumes on it — a new message, answered — before
 * the file is reopened once more and must read back exactly the log.
 *
 * The resumed loop's first two writes carry a snapshot of its derived state,
 * as the production host's writes do (the second replaces the first): the file
 * reopened must then resume from the last one — not refuse it — and the events
 * after it.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { ScriptedModelClient } from '../../../../providers/fake/scripted.ts';
import { reply } from '../../../../providers/fake/results.ts';
import {
  AgentLoop,
  checkToolPairing,
  decodeRecords,
  isLoopWritten,
  type AnyEvent,
  type LogEvent,
  loopDeps,
  outcomeLabel,
  recomputeRequest,
  requestSeqs,
  snapshotOf,
  type EventLog,
} from '../../../kernel/index.ts';
import { ConversationWriter } from '../../../host/conversation-writer.ts';
import { encodeSnapshot, openLog } from '../../../host/snapshots.ts';
import { SqliteEventStore } from '../../../stores/sqlite-store.ts';
import { VirtualClock } from '../../virtual-clock.ts';
import type { ScenarioRun } from '../../second-host.ts';
import { durableAt, recoverAndCheck, sideEffectOf } from './recover-and-check.ts';
import { postedMessages, sameJson } from './log-view.ts';

/** Where this process's scratch directories go: on tmpfs where there is one (the crash property opens many small databases), named for the process. */
export function scratchPrefix(): string {
  return join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), `loopgate-fuzz-crash-${process.pid}-`);
}

/** A directory of its own for one check; removed, files and all, when the check ends. */
function scratch(): string {
  return mkdtempSync(scratchPrefix());
}

const CONVERSATION = 'case';

export async function crashReopenResume(run: ScenarioRun, crashAt: number): Promise<string | undefined> {
  const k = crashAt % (run.log.length + 1);
  const durable = durableAt(run, k);
  const where = `a crash before event ${k} (${durable} event(s) committed), reopened from SQLite`;
  const records = run.store.peek(run.conversation).slice(0, durable);
  const directory = scratch();
  const path = join(directory, 'crash.db');
  let snapshotUpTo: number | undefined;
  let snapshots = 0;
  let resumed: EventLog | undefined;
  try {
    // The batches exactly as they were committed.
    const first = new SqliteEventStore(path);
    let from = 0;
    for (const boundary of [...new Set([...run.durableBefore, durable])].sort((a, b) => a - b)) {
      if (boundary <= from || boundary > durable) continue;
      await first.append(CONVERSATION, records.slice(from, boundary));
      from = boundary;
    }
    await first.close();
    const hole = await holeRefused(path, join(directory, 'hole.db'), durable, where);
    if (hole) return hole;

    const reopened = new SqliteEventStore(path);
    try {
      const read = await reopened.read(CONVERSATION);
      if (!sameJson(read, records)) return `${where}: the records read back differ from the ones committed`;
      const { problem, log } = recoverAndCheck(decodeRecords(read, where), where, sideEffectOf(run));
      if (problem) return problem;
      let loop: AgentLoop | undefined;
      const writer = new ConversationWriter(reopened, CONVERSATION, log, {
        snapshots: {
          every: 1,
          from: 0,
          // Two snapshots, with the first two writes the resumed loop makes (the second replaces the first; the rest
          // of the log is its tail): a snapshot with every write costs the gate seconds.
          take: () => {
            if (!loop || snapshots >= 2) return undefined; // recovery's own write: no loop yet
            snapshots++;
            const snapshot = encodeSnapshot(snapshotOf(loop, log));
            snapshotUpTo = snapshot.upTo;
            return snapshot;
          },
        },
      });
      // Every write awaited (a barrier), as before: write-behind costs each case real waits for the store.
      const persist = () => writer.persist('barrier');
      await persist();

      // Resume: the next message is answered on the recovered history — by a model
      // client of its own (a retry-after the run's client gave is in the log and
      // still holds for that client), on a clock that goes on from the log's last time.
      const clock = new VirtualClock(log.events[log.length - 1]?.at ?? 0);
      const model = new ScriptedModelClient([], { name: 'resumed', clock, onExhausted: () => reply('Picking up where we left off.') });
      let ids = 0;
      loop = new AgentLoop(
        loopDeps({
          log,
          model,
          agent: { system: 'You resume after a crash.', secrets: run.secrets },
          clock,
          persist,
          newId: () => `resume-${++ids}`,
        }),
      );
      loop.send('I am back: where were we?');
      // Real time only matters for a hang: a loaded machine (SQLite, two workers) can pause a second.
      const results = await clock.run(loop.drain(), { realWaitLimitMs: 10_000 });
      // A turn that took only messages saying nothing (as posted: empty or whitespace) has nothing to answer.
      const notAnswered = results.find((r) => r.outcome.kind !== 'replied' && !(r.outcome.kind === 'nothing_to_do' && tookOnlyBlanks(log.events, r.turn)));
      if (notAnswered) return `${where}: after recovery, turn ${notAnswered.turn} ended ${outcomeLabel(notAnswered.outcome)} instead of being answered`;
      if (loop.hasWork()) return `${where}: after recovery and a new message, waking messages are still waiting`;
      const seqs = requestSeqs(log.events);
      for (let i = 0; i < model.requests.length; i++) {
        const sent = model.requests[i]!;
        const pairing = checkToolPairing(sent.messages);
        if (pairing) return `${where}: resumed request ${i + 1}, message ${pairing.messageIndex}: ${pairing.problem}`;
        if (!sameJson(recomputeRequest(log.events, seqs[seqs.length - model.requests.length + i]!).messages, sent.messages))
          return `${where}: resumed request ${i + 1} cannot be recomputed from the log`;
      }
      const final = await reopened.read(CONVERSATION);
      if (final.length !== log.length) return `${where}: after resuming, the store holds ${final.length} events and the log ${log.length}`;
      decodeRecords(final, where);
      resumed = log;
    } finally {
      await reopened.close();
    }
    if (!resumed || snapshotUpTo === undefined) return undefined;
    const again = new SqliteEventStore(path);
    try {
      const opened = await openLog(again, CONVERSATION, { now: () => 0 });
      if (opened.rejected !== undefined) return `${where}: the snapshot stored at ${snapshotUpTo} was refused when the file was reopened: ${opened.rejected}`;
      if (opened.restoredFrom !== snapshotUpTo)
        return `${where}: the file reopened from ${opened.restoredFrom === undefined ? 'no snapshot' : `the snapshot at ${opened.restoredFrom}`}, but the last one written was at ${snapshotUpTo}`;
      // What a restored log holds is snapshot-resumes-the-fold's to judge (through the production host); here, that SQLite gave it back.
      if (opened.log.length !== resumed.length) return `${where}: resumed from its snapshot, the log holds ${opened.log.length} events, not ${resumed.length}`;
      return undefined;
    } finally {
      await again.close();
    }
  } catch (error) {
    return `${where}: ${(error as Error).stack ?? String(error)}`;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/**
 * The same file with one middle row deleted behind the store's back (a lost page,
 * a hand edit): reading it must refuse, naming the missing seq — never renumber
 * the rows after the hole into a history that looks whole.
 */
async function holeRefused(path: string, copy: string, durable: number, where: string): Promise<string | undefined> {
  if (durable < 2) return undefined; // no middle row: a lost last row is a shorter log, which no read can tell
  const missing = Math.floor((durable - 1) / 2);
  copyFileSync(path, copy);
  const raw = new DatabaseSync(copy);
  try {
    raw.prepare('DELETE FROM events WHERE conversation = ? AND seq = ?').run(CONVERSATION, missing);
  } finally {
    raw.close();
  }
  const store = new SqliteEventStore(copy);
  try {
    const read = await store.read(CONVERSATION);
    return `${where}: with stored row ${missing} deleted from the file, the store read ${read.length} records instead of refusing the gap`;
  } catch (error) {
    const message = (error as Error).message;
    if (!message.includes(`seq ${missing}`) || !message.includes('missing'))
      return `${where}: with stored row ${missing} deleted from the file, the read failed without naming the missing seq: ${message}`;
    return undefined;
  } finally {
    await store.close();
  }
}

/** Whether every message people sent that turn `turn` took was posted as empty or only whitespace (read from the inbox as received). */
function tookOnlyBlanks(events: readonly AnyEvent[], turn: number): boolean {
  const posted = postedMessages(events);
  const taken = events.filter(
    (e): e is Extract<LogEvent, { type: 'user.message' }> => e.type === 'user.message' && !('opaque' in e) && e.payload.turn === turn,
  );
  // The loop's own notices (what a failed turn already did) are context, not work: they never need an answer.
  const fromPeople = taken.filter((e) => !isLoopWritten(posted.get(e.payload.id)?.source ?? ''));
  return taken.length > 0 && fromPeople.every((e) => (posted.get(e.payload.id)?.text ?? 'unknown').trim() === '');
}
