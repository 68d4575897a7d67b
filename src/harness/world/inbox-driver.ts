/**
 * Plays the scenario's inbox script like the clients of a host would. Entries
 * without `at` run one after another, each once everything the earlier ones
 * started has settled; the others fire at their trigger — the n-th model request,
 * a tool's first start, a tool's first start record appended (before its body
 * runs), a virtual time, the log's event with a given seq, the
 * n-th streamed delta, the n-th approval request (while the approver has not
 * answered it), the n-th run of a checkpoint hook (before it answers).
 *
 * What an entry does is the target's: the loop driven directly (loop-target.ts),
 * a real production host (host-target.ts) — or another framework's loop behind
 * the same port (src/harness/loop-port/).
 */
import type { AnyEvent, Clock } from '../../kernel/index.ts';
import type { LoopUnderTest } from '../loop-port/port.ts';
import type { InboxEntry } from '../scenario/schema.ts';
import type { FaultLog } from './fault-log.ts';

export type { MessageIntent } from '../loop-port/port.ts';

/** What the driver talks to: the loop-under-test port (loopgate's loop, its production host, or a peer's loop). */
export type InboxTarget = Pick<LoopUnderTest, 'send' | 'cancel' | 'crash' | 'reopen' | 'settled' | 'undoCompaction' | 'shutdown' | 'disconnect' | 'loseLock'>;

type TriggerKey = 'request' | 'toolStart' | 'toolRecorded' | 'event' | 'delta' | 'approval' | 'checkpoint';

/** An inbox entry whose trigger never fired: the case ended first. */
export interface UnfiredEntry {
  /** Its index in the scenario's inbox. */
  readonly index: number;
  readonly entry: InboxEntry;
  /** Its trigger fired (or it had none), but what it follows never happened (see `#skipped`). */
  readonly skipped?: true;
  /** A reopen skipped because the crash it follows never fired, every such crash marked `ifReached`: it may not happen either. */
  readonly mayNotHappen?: true;
  /** Why a skipped entry was not performed, when it is not that what it follows never happened. */
  readonly why?: string;
}

export class InboxDriver {
  readonly #target: InboxTarget;
  readonly #clock: Clock;
  readonly #faults: FaultLog;
  readonly #triggered = new Map<string, InboxEntry[]>();
  readonly #timed: InboxEntry[] = [];
  readonly #untimed: InboxEntry[] = [];
  readonly #index = new Map<InboxEntry, number>();
  /**
   * Entries not performed because what they follow never happened: a reopen after a crash that never fired,
   * a disconnect of a message not posted yet, an undo with no compaction in force.
   */
  readonly #skipped: InboxEntry[] = [];
  /** Crashes taken off their trigger when their reopen was skipped (they never fired). */
  readonly #withdrawn: InboxEntry[] = [];
  /** Reopens skipped after crashes that may not fire (`ifReached`), which did not. */
  readonly #mayNotHappen = new Set<InboxEntry>();
  /** A crash fired and no reopen has replaced the process since: the next reopen does. */
  #down = false;
  /** Why entries were skipped, where it is not that what they follow never happened. */
  readonly #why = new Map<InboxEntry, string>();
  readonly #onError: (error: unknown) => void;

  /** `onError` hears what a triggered entry threw (a bug in the world or the host: the case reports it). */
  constructor(entries: readonly InboxEntry[], target: InboxTarget, clock: Clock, faults: FaultLog, onError: (error: unknown) => void) {
    this.#target = target;
    this.#clock = clock;
    this.#faults = faults;
    this.#onError = onError;
    entries.forEach((entry, index) => this.#index.set(entry, index));
    for (const entry of entries) {
      const at = entry.at;
      if (!at) this.#untimed.push(entry);
      else if (at.time !== undefined) this.#timed.push(entry);
      else {
        const key = (['request', 'toolStart', 'toolRecorded', 'event', 'delta', 'approval', 'checkpoint'] as const).find((k) => at[k] !== undefined)!;
        // `toolStart` with an `attempt`: that attempt of one of the tool's calls (a retry), not its first start.
        const id = key === 'toolStart' && at.attempt !== undefined ? triggerId(key, attemptOf(at.toolStart!, at.attempt)) : triggerId(key, at[key]!);
        const list = this.#triggered.get(id) ?? [];
        list.push(entry);
        this.#triggered.set(id, list);
      }
    }
  }

  /** The n-th model request (1-based) went out. */
  onRequest(n: number): void {
    this.#fire('request', n);
  }

  /** A tool's body started, as this attempt of its call: `at: { toolStart }` fires at the tool's first start, one with an `attempt` at that attempt's. */
  onToolStart(name: string, attempt: number): void {
    this.#fire('toolStart', name);
    this.#fire('toolStart', attemptOf(name, attempt));
  }

  /**
   * The log appended the event with this seq (fires once per seq, in whichever life
   * reaches it first). A crash happens right there, inside the append, so nothing
   * after it is written; a message or a cancel is posted just after the append
   * (the log refuses an append from inside another).
   */
  onEvent(seq: number, event?: AnyEvent): void {
    const entries = this.#take(triggerId('event', seq));
    // A start record: `at: { toolRecorded }` fires at the first of the tool's, like an event trigger (just after the
    // append); entries due at the same append are performed in inbox order.
    if (event && !event.opaque && event.type === 'tool.started') {
      entries.push(...this.#take(triggerId('toolRecorded', event.payload.name)));
      entries.sort((a, b) => this.#index.get(a)! - this.#index.get(b)!);
    }
    for (const entry of entries) {
      if (entry.crash) this.#performTriggered(entry);
      else queueMicrotask(() => this.#performTriggered(entry));
    }
  }

  /** The n-th streamed delta (1-based) arrived. */
  onDelta(n: number): void {
    this.#fire('delta', n);
  }

  /** The n-th approval request (1-based) was put to the approver, which has not answered it yet. */
  onApproval(n: number): void {
    this.#fire('approval', n);
  }

  /** The n-th run of a checkpoint hook (1-based) started, and has not answered yet. */
  onCheckpoint(n: number): void {
    this.#fire('checkpoint', n);
  }

  #fire(key: TriggerKey, value: string | number): void {
    for (const entry of this.#take(triggerId(key, value))) this.#performTriggered(entry);
  }

  /** Nobody awaits a triggered entry: what it throws goes to onError. */
  #performTriggered(entry: InboxEntry): void {
    this.#perform(entry).catch(this.#onError);
  }

  /** The entries waiting for a trigger, which then never fires again. */
  #take(id: string): InboxEntry[] {
    const entries = this.#triggered.get(id) ?? [];
    this.#triggered.delete(id);
    return entries;
  }

  /**
   * The triggered entries that never fired (their trigger never happened before
   * the case ended), and the entries skipped because of one: a `reopen` whose
   * crash never happened. In inbox order.
   */
  unfired(): UnfiredEntry[] {
    const waiting = [...this.#triggered.values()].flat().concat(this.#withdrawn);
    return [
      ...waiting.map((entry): UnfiredEntry => ({ index: this.#index.get(entry)!, entry })),
      ...this.#skipped.map(
        (entry): UnfiredEntry => ({
          index: this.#index.get(entry)!,
          entry,
          skipped: true,
          ...(this.#mayNotHappen.has(entry) ? { mayNotHappen: true } : {}),
          ...(this.#why.has(entry) ? { why: this.#why.get(entry)! } : {}),
        }),
      ),
    ].sort((a, b) => a.index - b.index);
  }

  /** Plays the script: untimed entries one at a time, each once everything before it settled; timed ones at their time. */
  async drive(): Promise<void> {
    const performed = new Set<InboxEntry>();
    const timers = this.#timed.map((entry) =>
      this.#clock.sleep(entry.at!.time!).then(async () => {
        await this.#perform(entry);
        performed.add(entry);
      }),
    );
    for (const entry of this.#untimed) {
      if (entry.reopen) {
        // A reopen replaces a crashed process: a crash at a time still to come is waited for;
        // with the crash still waiting for a trigger, there is no process to replace.
        const timed = this.#timed.findIndex((e) => e.crash && !performed.has(e));
        if (timed >= 0) {
          await timers[timed];
          await this.#target.settled();
        } else if (!this.#down && this.#crashWaiting()) {
          // Nothing replaces a process after this point, so the crash is withdrawn with its reopen: firing later, it
          // would leave the case's last process dead with no host to recover what it left (both are reported unfired).
          // (A process a crash already took down is replaced now, whatever later crash still waits: outside probe 38, F7.)
          this.#skipped.push(entry);
          if (this.#withdrawCrashes()) this.#mayNotHappen.add(entry);
          continue;
        } else if (!this.#down) {
          // Two crashes took down one process (the second found it down already): one reopen replaces it, and a
          // second has nothing to replace (outside probe 38, F2: the host's refusal was reported as the loop's throw).
          this.#skipped.push(entry);
          this.#why.set(entry, 'no process was down to replace: the crash before it found the process down already');
          continue;
        }
      }
      await this.#perform(entry);
      await this.#target.settled();
    }
    await Promise.all(timers);
    await this.#target.settled();
  }

  /** The crashes still waiting for a trigger, taken off it: they are reported as never fired. Whether each may not fire (`ifReached`). */
  #withdrawCrashes(): boolean {
    let optional = true;
    for (const [id, list] of this.#triggered) {
      const kept = list.filter((e) => !e.crash);
      const crashes = list.filter((e) => e.crash);
      this.#withdrawn.push(...crashes);
      if (crashes.some((e) => e.at?.ifReached !== true)) optional = false;
      if (kept.length > 0) this.#triggered.set(id, kept);
      else this.#triggered.delete(id);
    }
    return optional;
  }

  #crashWaiting(): boolean {
    for (const list of this.#triggered.values()) if (list.some((e) => e.crash)) return true;
    return false;
  }

  async #perform(entry: InboxEntry): Promise<void> {
    const target = this.#target;
    if (entry.gone) this.#faults.record(`the client of "${entry.say ?? entry.steer ?? entry.inject}" is gone before its post is read`);
    if (entry.say !== undefined) target.send(entry.say, 'follow_up', entry.via, entry.messageId, entry.gone);
    else if (entry.steer !== undefined) target.send(entry.steer, 'steer', entry.via, entry.messageId, entry.gone);
    else if (entry.inject !== undefined) target.send(entry.inject, 'inject', entry.via, entry.messageId, entry.gone);
    else if (entry.cancel !== undefined) {
      this.#faults.record(`cancel by ${entry.cancel}${entry.via !== undefined ? ` via host ${entry.via}` : ''}`);
      target.cancel(entry.cancel, entry.via);
    } else if (entry.crash) {
      if (this.#down) {
        this.#faults.record('a crash finds the process down already: it does nothing');
        return;
      }
      this.#faults.record('the process crashes');
      this.#down = true;
      target.crash();
    } else if (entry.reopen) {
      this.#faults.record('a new host reopens the store');
      this.#down = false;
      await target.reopen();
    } else if (entry.undoCompaction) {
      if (!target.undoCompaction) throw new Error('undoCompaction: this host cannot undo a compaction');
      if (await target.undoCompaction()) this.#faults.record('an operator undoes the last compaction');
      else this.#skipped.push(entry); // no compaction in force: nothing to undo (the case names it; the script goes on)
    } else if (entry.shutdown) {
      if (!target.shutdown) throw new Error('shutdown: this host cannot shut its loop down');
      this.#faults.record('the host shuts the loop down');
      target.shutdown();
    } else if (entry.loseLock) {
      if (!target.loseLock) throw new Error('loseLock: this host takes no conversation lock from the store');
      if (target.loseLock()) this.#faults.record("the store lets go of the host's conversation lock (its connection dropped); the host lives on");
      else this.#skipped.push(entry); // no host held the lock: nothing to lose
    } else if (entry.disconnect !== undefined) {
      if (!target.disconnect) throw new Error('disconnect: this host answers no requests');
      if (target.disconnect(entry.disconnect)) this.#faults.record(`the client of message ${entry.disconnect} goes away (its request is aborted)`);
      else this.#skipped.push(entry); // that message is not posted (yet): nobody to go away
    }
  }
}

function triggerId(key: TriggerKey, value: string | number): string {
  return `${key}:${value}`;
}

/** A tool's n-th attempt, as a `toolStart` trigger's value (a tool name holds no `#`). */
function attemptOf(tool: string, attempt: number): string {
  return `${tool}#${attempt}`;
}
