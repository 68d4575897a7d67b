/**
 * The case's store: one in-memory store (what survives a crash), reached by each
 * process of the case — the loop, or each production host the case starts —
 * through its own connection. The world injects the scenario's write faults on
 * the way in:
 *
 * - `store.failAppends`: which batch appends (1-based, counted over the whole
 *   case) fail, storing nothing;
 * - `store.failWriteAheads`: which write-aheads (1-based, counted over the whole
 *   case) fail — the append holding the n-th `tool.started` of a STATEFUL or
 *   CRITICAL call (the record the loop waits for before it runs the call),
 *   storing nothing;
 * - `store.failReceipts`: which receipts (1-based, counted over the whole case)
 *   fail — the append holding the n-th client message's `inbox.received` (a
 *   message posted while a turn runs: its write, not the turn's), storing
 *   nothing;
 * - `store.slowAppends`: which appends are in flight for a while (virtual time)
 *   before they land or fail, so a cancel or a message can arrive meanwhile;
 * - `store.tornAppends`: which appends are torn — the first `keep` records of the
 *   batch land, then the write fails (a store that breaks the atomic-batch rule);
 * - a crash severs the dead process's connection: it writes nothing more (a write
 *   already handed to the store may still land, as on a real disk);
 * - `store.loseOnCrash`: records (by seq) the crash loses, as a disk that drops a
 *   page: every process reading the conversation afterwards gets it with a gap
 *   there (a store breaking its gapless rule), which must be refused, not read
 *   as a shorter history (the last record stored is never lost: that would
 *   leave no gap, only a store that looks as if the crash came earlier);
 * - `store.corruptOnCrash`: records (by seq) the crash garbles, as a torn page
 *   or bit rot: read back afterwards, each has its type and seq but a payload
 *   that is not what that type holds — which must be refused, not decoded into
 *   a history.
 *
 * - `store.corruptSnapshotOnCrash`: the crash garbles the conversation's stored
 *   snapshot — one character of its body changes, its JSON stays valid — as bit
 *   rot would: read back afterwards it no longer matches its digest, which the
 *   host must see (and read the conversation whole), not resume from. With
 *   `{ field }` the value at that dotted path of the snapshot (names, or array
 *   indexes) comes back of another type and the digest is made to match, as a
 *   snapshot written by other code (a migration tool, another version's writer)
 *   would read: the digest is no MAC, so the host must find the part malformed.
 *
 * Snapshots of derived state (the production host writes one with the events
 * every few events, see host-config.ts) go through with their batch: a failed or
 * torn append stores none.
 *
 * It counts every batch append asked for and which of them failed.
 */
import { createHash } from 'node:crypto';
import { WRITTEN, type EventRecord } from '../../kernel/index.ts';
import type { EventStore, Release, StoreAppendOptions, StoredSnapshot } from '../../stores/event-store.ts';
import { MemoryEventStore, type MemoryStoreFaults } from '../../stores/memory-store.ts';
import { SqliteCaseStore, type CaseStore } from './case-store.ts';
import type { Scenario } from '../scenario/schema.ts';
import type { FaultLog } from './fault-log.ts';

export interface StoreWrites {
  readonly attempts: number;
  /** Which attempts (1-based) failed (torn ones included). */
  readonly failed: readonly number[];
  /** Which attempts (1-based) were torn: part of the batch stored, then failed. */
  readonly torn: readonly number[];
  /**
   * Which attempts (1-based) the store itself refused after an injected failure: a
   * batch handed over behind a failed one fails its seq check (docs/storage.md). A
   * refusal with no injected failure before it is a bug, and is not listed.
   */
  readonly refusedBehind: readonly number[];
  /** Snapshots read back garbled (`store.corruptSnapshotOnCrash`), over every conversation. */
  readonly garbledSnapshotsRead: number;
}

/** A process's connection to the case's store. */
export interface ProcessStore extends EventStore {
  /** The process died: from now on every call through this connection fails. */
  sever(): void;
  /** The store lets go of every lock this connection holds, telling each holder (`Release.lost`); the process lives on. False when it held none. */
  loseLocks(): boolean;
}

/** Where the case's store keeps what it holds (case-store.ts). */
export interface WorldStoreOptions {
  /** `make` builds the store in place of the in-memory one (a test seam); the world's faults are injected around it. */
  readonly make?: (hooks: MemoryStoreFaults) => MemoryEventStore;
  /** Keep it in a SQLite file (one production host) instead of memory. */
  readonly sqlite?: boolean;
  /** Holds the virtual clock while a write is in flight (a SQLite write commits on a later turn of the event loop). */
  readonly track?: <T>(work: Promise<T>) => Promise<T>;
  /** Waits this much virtual time (for `store.slowAppends`). */
  readonly sleep?: (ms: number) => Promise<void>;
}

export class WorldStore {
  /** What is stored: survives every crash of the case. */
  readonly store: CaseStore;
  readonly #track: (<T>(work: Promise<T>) => Promise<T>) | undefined;
  readonly #faults: FaultLog;
  readonly #failAppends: ReadonlySet<number>;
  /** Append (1-based) → the virtual time it is in flight. */
  readonly #slowAppends: ReadonlyMap<number, number>;
  readonly #sleep: ((ms: number) => Promise<void>) | undefined;
  readonly #failWriteAheads: ReadonlySet<number>;
  /** Start records of STATEFUL or CRITICAL calls handed to the store so far (each counted once, in the first batch holding it). */
  #writeAheads = 0;
  readonly #writeAheadsSeen = new Set<string>();
  readonly #failReceipts: ReadonlySet<number>;
  /** Client messages' `inbox.received` records handed to the store so far (each counted once, by seq and id). */
  #receipts = 0;
  readonly #receiptsSeen = new Set<string>();
  readonly #tornAppends: ReadonlyMap<number, number>;
  readonly #loseOnCrash: ReadonlySet<number>;
  /** Seq → the field garbled (a dotted path), or undefined for the whole payload. */
  readonly #corruptOnCrash: ReadonlyMap<number, string | undefined>;
  /** Seqs lost to a crash so far: reads leave them out. */
  readonly #lost = new Set<number>();
  /** Seqs a crash garbled so far: reads return them with a payload of the wrong shape. */
  readonly #garbled = new Set<number>();
  /** Conversations written to. */
  readonly #written = new Set<string>();
  /** Per conversation, how many records the store held at the crash that garbles its snapshot: a snapshot up to there comes back garbled. */
  readonly #snapshotGarbledUpTo = new Map<string, number>();
  /** Garbled snapshots read back: conversation → the `upTo` of each. */
  readonly #garbledSnapshotsRead = new Map<string, Set<number>>();
  readonly #corruptSnapshotOnCrash: boolean;
  /** With `corruptSnapshotOnCrash: { field }`: the dotted path whose value comes back of another type, the digest matching. */
  readonly #snapshotField: string | undefined;
  /** Per conversation, the virtual time each record (by seq) was stored by a write that succeeded whole. */
  readonly #storedAt = new Map<string, number[]>();
  #attempts = 0;
  readonly #failed: number[] = [];
  readonly #torn: number[] = [];
  readonly #refusedBehind: number[] = [];

  constructor(spec: Scenario['store'], faults: FaultLog, options: WorldStoreOptions = {}) {
    this.#faults = faults;
    this.#failAppends = new Set(spec?.failAppends ?? []);
    this.#slowAppends = new Map((spec?.slowAppends ?? []).map((a) => [a.append, a.ms]));
    this.#sleep = options.sleep;
    this.#failWriteAheads = new Set(spec?.failWriteAheads ?? []);
    this.#failReceipts = new Set(spec?.failReceipts ?? []);
    this.#tornAppends = new Map((spec?.tornAppends ?? []).map((t) => [t.append, t.keep]));
    this.#loseOnCrash = new Set(spec?.loseOnCrash ?? []);
    this.#corruptOnCrash = new Map((spec?.corruptOnCrash ?? []).map((c) => (typeof c === 'number' ? [c, undefined] : [c.seq, c.field])));
    const snapshotDamage = spec?.corruptSnapshotOnCrash;
    this.#corruptSnapshotOnCrash = snapshotDamage !== undefined;
    this.#snapshotField = typeof snapshotDamage === 'object' ? snapshotDamage.field : undefined;
    this.store = options.make ? options.make({}) : options.sqlite ? new SqliteCaseStore() : new MemoryEventStore();
    this.#track = options.sqlite && !options.make ? options.track : undefined;
  }

  /**
   * The virtual time the record `seq` of `conversationId` was stored, by a write
   * that succeeded whole; undefined for one a torn write left (its writer was told
   * the write failed) or none stored.
   */
  storedAt(conversationId: string, seq: number): number | undefined {
    return this.#storedAt.get(conversationId)?.[seq];
  }

  /**
   * The case is over: what the store holds, in memory, for the invariants to read
   * (a SQLite file is read back whole, every conversation, then removed).
   */
  async finish(): Promise<MemoryEventStore> {
    const store = this.store;
    if (!(store instanceof SqliteCaseStore)) return store as MemoryEventStore;
    const copy = new MemoryEventStore();
    const listed = await store.listConversations();
    for (const conversation of new Set(listed)) {
      const times = listed.filter((c) => c === conversation).length;
      if (times === 1) continue;
      await store.freeze(copy); // the file closed and removed all the same
      throw new Error(`the store listed conversation "${conversation}" ${times} times: listConversations must name each conversation once`);
    }
    for (const conversation of listed) {
      const records = store.readRangeSync(conversation, 0, store.count(conversation));
      // The latest snapshot goes with the batch it ends, as it was stored.
      const snapshot = await store.readSnapshot(conversation);
      const upTo = snapshot && snapshot.upTo <= records.length ? snapshot.upTo : 0;
      if (upTo > 0) await copy.append(conversation, records.slice(0, upTo), { snapshot: snapshot! });
      if (records.length > upTo) await copy.append(conversation, records.slice(upTo));
    }
    await store.freeze(copy);
    return copy;
  }

  /** The `upTo` of every garbled snapshot of `conversationId` read back so far (a host that resumed from one failed the case). */
  garbledSnapshotsRead(conversationId: string): ReadonlySet<number> {
    return this.#garbledSnapshotsRead.get(conversationId) ?? new Set();
  }

  writes(): StoreWrites {
    let garbledSnapshotsRead = 0;
    for (const read of this.#garbledSnapshotsRead.values()) garbledSnapshotsRead += read.size;
    return { attempts: this.#attempts, failed: [...this.#failed], torn: [...this.#torn], refusedBehind: [...this.#refusedBehind], garbledSnapshotsRead };
  }

  /** A new connection for a process. */
  connect(): ProcessStore {
    const world = this;
    const inner = this.store;
    let severed = false;
    /** Locks this connection holds, each with what tells its holder it was lost: a dead process holds none. */
    const held = new Map<Release, AbortController>();
    const alive = () => {
      if (severed) throw new Error('the process is gone: its connection to the store died with it');
    };
    return {
      get describe() {
        return inner.describe;
      },
      sever: () => {
        if (!severed) world.#crashed();
        severed = true;
        for (const release of held.keys()) void release().catch(() => undefined);
        held.clear();
      },
      loseLocks: () => {
        const lost = [...held];
        held.clear();
        for (const [release, controller] of lost) {
          // The holder is told first, then the lock goes to whoever waits: the best a real store can do (PostgreSQL lets
          // go as the connection drops, and tells the holder's driver at once; another host's grant may come as soon).
          controller.abort(new Error('the store let go of the conversation lock: its connection dropped'));
          void release().catch(() => undefined);
        }
        return lost.length > 0;
      },
      // A write the store does at once answers `WRITTEN`, as the memory store does, so the loop takes the path
      // it takes on a deploy's memory store (it goes on without waiting a turn); any other write as always.
      append: (conversationId: string, records: readonly EventRecord[], options?: StoreAppendOptions): Promise<void> => {
        if (!severed) {
          const done = world.#appendAtOnce(conversationId, records, options);
          if (done !== undefined) return done;
        }
        return (async () => {
          alive();
          await world.#append(conversationId, records, options);
        })();
      },
      read: async (conversationId: string, fromSeq?: number) => {
        alive();
        return world.#asRead(await inner.read(conversationId, fromSeq));
      },
      readSnapshot: async (conversationId: string) => {
        alive();
        return world.#asReadSnapshot(conversationId, await inner.readSnapshot(conversationId));
      },
      readRangeSync: (conversationId: string, from: number, to: number) => {
        alive();
        return world.#asRead(inner.readRangeSync(conversationId, from, to));
      },
      listConversations: async () => {
        alive();
        return inner.listConversations();
      },
      lock: async (conversationId: string, signal?: AbortSignal): Promise<Release> => {
        alive();
        const release = await inner.lock(conversationId, signal);
        if (severed) {
          await release();
          throw new Error('the process is gone: its connection to the store died with it');
        }
        const lost = new AbortController();
        held.set(release, lost);
        return Object.assign(
          async () => {
            if (!held.delete(release)) return; // released already (or with the process, or lost)
            await release();
          },
          { lost: lost.signal },
        );
      },
      // One in-memory store in one process: nothing to claim (no claimWriter). The store outlives every connection.
      close: async () => undefined,
    };
  }

  /** A process died: the records the scenario loses or garbles in a crash go, if the store holds them. */
  #crashed(): void {
    const stored = Math.max(0, ...[...this.#written].map((c) => this.store.count(c)));
    // A lost record leaves a gap: the last one stored is not lost (without it the store would only look as if the crash
    // came one write earlier, which no reader can tell, and which is no damage).
    for (const seq of this.#loseOnCrash) {
      if (this.#lost.has(seq) || seq >= stored - 1) continue;
      this.#lost.add(seq);
      this.#faults.record(`store loses record ${seq} in the crash`);
    }
    if (this.#corruptSnapshotOnCrash)
      for (const conversation of this.#written)
        if (!this.#snapshotGarbledUpTo.has(conversation)) this.#snapshotGarbledUpTo.set(conversation, this.store.count(conversation));
    for (const [seq, field] of this.#corruptOnCrash) {
      if (this.#garbled.has(seq) || seq >= stored) continue;
      this.#garbled.add(seq);
      this.#faults.record(`store garbles record ${seq}${field === undefined ? '' : `'s ${field}`} in the crash`);
    }
  }

  /** A stored snapshot as a process reads it back: garbled when a crash garbled it (one written since is read as it is). */
  #asReadSnapshot(conversationId: string, stored: StoredSnapshot | undefined): StoredSnapshot | undefined {
    const upTo = this.#snapshotGarbledUpTo.get(conversationId);
    if (stored === undefined || upTo === undefined || stored.upTo > upTo) return stored;
    const field = this.#snapshotField;
    const body = field === undefined ? garbledBody(stored.body) : retypedBody(stored.body, field);
    // A snapshot without the field comes back as it is: not garbled (and a case none of whose snapshots had it tests nothing).
    if (body === undefined) return stored;
    let read = this.#garbledSnapshotsRead.get(conversationId);
    if (!read) this.#garbledSnapshotsRead.set(conversationId, (read = new Set()));
    if (!read.has(stored.upTo))
      this.#faults.record(
        field === undefined
          ? `the stored snapshot (up to event ${stored.upTo}) comes back garbled: one character of its body changed`
          : `the stored snapshot (up to event ${stored.upTo}) comes back with ${field} of another type, its digest matching`,
      );
    read.add(stored.upTo);
    return field === undefined ? { ...stored, body } : { ...stored, body, digest: createHash('sha256').update(body).digest('hex') };
  }

  /** Records as a process reads them back: without the lost ones, the garbled ones with a payload of the wrong shape. */
  #asRead(records: readonly EventRecord[]): EventRecord[] {
    const out = this.#lost.size === 0 ? [...records] : records.filter((r) => !this.#lost.has(r.seq));
    if (this.#garbled.size === 0) return out;
    return out.map((r) => (this.#garbled.has(r.seq) ? garbled(r, this.#corruptOnCrash.get(r.seq)) : r));
  }

  /** The write-ahead number this batch must fail on, if it holds a start record the scenario refuses (new ones counted). */
  #refusedWriteAhead(records: readonly EventRecord[]): number | undefined {
    let refused: number | undefined;
    for (const record of records) {
      // A batch handed over again (a retried write) holds the same records: counted once, by seq and call.
      const key = `${record.seq}/${(record.payload as { callId?: unknown }).callId}`;
      if (!isWriteAhead(record) || this.#writeAheadsSeen.has(key)) continue;
      this.#writeAheadsSeen.add(key);
      this.#writeAheads++;
      if (this.#failWriteAheads.has(this.#writeAheads)) refused ??= this.#writeAheads;
    }
    return refused;
  }

  /** The receipt number this batch must fail on, if it holds a client message's receipt the scenario refuses (new ones counted). */
  #refusedReceipt(records: readonly EventRecord[]): number | undefined {
    let refused: number | undefined;
    for (const record of records) {
      const payload = record.payload as { id?: unknown; source?: unknown } | null;
      if (record.type !== 'inbox.received' || payload?.source !== 'user') continue;
      const key = `${record.seq}/${String(payload.id)}`;
      if (this.#receiptsSeen.has(key)) continue;
      this.#receiptsSeen.add(key);
      this.#receipts++;
      if (this.#failReceipts.has(this.#receipts)) refused ??= this.#receipts;
    }
    return refused;
  }

  /** Writes handed to the store that have not settled yet. */
  readonly #writing = new Set<Promise<void>>();

  /** A write in flight: the virtual clock waits for it, as it does for a write to memory, which is done at once. */
  #inFlight(work: Promise<void>): Promise<void> {
    this.#writing.add(work);
    const settled = () => this.#writing.delete(work);
    work.then(settled, settled);
    return this.#track ? this.#track(work) : work;
  }

  /**
   * Every write handed to the store has settled. A dead process's write that was
   * handed over lands (or fails) before a new process reads the store, as with
   * memory, where it is done at once: a SQLite file commits it a turn of the event
   * loop later.
   */
  async drained(): Promise<void> {
    while (this.#writing.size > 0) await Promise.allSettled([...this.#writing]);
  }

  /**
   * A write with no fault of the scenario to inject, to a store that is done with
   * it before it returns (memory): stored now, answering `WRITTEN`. Undefined when
   * the write must take `#append`'s way (a fault, a slow write, a SQLite file):
   * nothing counted, nothing handed over. A refusal of the store itself is
   * awaited as `#append` awaits it.
   */
  #appendAtOnce(conversationId: string, records: readonly EventRecord[], options?: StoreAppendOptions): Promise<void> | undefined {
    const attempt = this.#attempts + 1;
    if (this.#track !== undefined || this.#failWriteAheads.size > 0 || this.#failReceipts.size > 0 || this.#ahead.has(conversationId)) return undefined;
    if (this.#failAppends.has(attempt) || this.#slowAppends.has(attempt) || this.#tornAppends.has(attempt)) return undefined;
    this.#attempts = attempt;
    this.#written.add(conversationId);
    const appended = this.store.append(conversationId, records, options);
    if (appended === WRITTEN) {
      this.#stored(conversationId, records);
      return WRITTEN;
    }
    return (async () => {
      await this.#settle(attempt, appended, conversationId, records);
    })();
  }

  async #settle(attempt: number, appended: Promise<void>, conversationId: string, records: readonly EventRecord[]): Promise<void> {
    try {
      await this.#inFlight(appended);
      this.#stored(conversationId, records);
    } catch (error) {
      if (this.#failed.length > 0) this.#refusedBehind.push(attempt);
      throw error;
    }
  }

  /** When each record of a write that succeeded whole was stored (virtual time). */
  #stored(conversationId: string, records: readonly EventRecord[]): void {
    let times = this.#storedAt.get(conversationId);
    if (!times) this.#storedAt.set(conversationId, (times = []));
    const now = this.#faults.now();
    for (const record of records) times[record.seq] = now;
  }

  async #append(conversationId: string, records: readonly EventRecord[], options?: StoreAppendOptions): Promise<void> {
    const attempt = ++this.#attempts;
    this.#written.add(conversationId);
    const slow = this.#slowAppends.get(attempt);
    // A store applies a conversation's batches in the order they were handed over (docs/storage.md): a write behind
    // a slow one waits for it to land or fail, as it would in a store's queue — it never overtakes it.
    const ahead = this.#ahead.get(conversationId);
    let landed: (() => void) | undefined;
    if (ahead !== undefined || (slow !== undefined && this.#sleep)) {
      const gate = Promise.withResolvers<void>();
      landed = gate.resolve;
      this.#ahead.set(conversationId, gate.promise);
      void gate.promise.then(() => {
        if (this.#ahead.get(conversationId) === gate.promise) this.#ahead.delete(conversationId);
      });
    }
    try {
      if (ahead !== undefined) await ahead;
      if (slow !== undefined && this.#sleep) {
        this.#faults.record(`store append ${attempt} in flight for ${slow} ms`);
        await this.#sleep(slow); // on its way to the store: not yet handed over
      }
      if (this.#failAppends.has(attempt)) {
        this.#faults.record(`store append ${attempt} fails`);
        this.#failed.push(attempt);
        throw new Error(`injected store failure on append ${attempt}`);
      }
      const writeAhead = this.#failWriteAheads.size > 0 ? this.#refusedWriteAhead(records) : undefined;
      if (writeAhead !== undefined) {
        this.#faults.record(`store append ${attempt} fails (write-ahead ${writeAhead})`);
        this.#failed.push(attempt);
        throw new Error(`injected store failure on append ${attempt}: write-ahead ${writeAhead}`);
      }
      const receipt = this.#failReceipts.size > 0 ? this.#refusedReceipt(records) : undefined;
      if (receipt !== undefined) {
        this.#faults.record(`store append ${attempt} fails (receipt ${receipt})`);
        this.#failed.push(attempt);
        throw new Error(`injected store failure on append ${attempt}: receipt ${receipt}`);
      }
      const keep = this.#tornAppends.get(attempt);
      if (keep !== undefined && keep < records.length) {
        this.#faults.record(`store append ${attempt} torn: ${keep} of ${records.length} record(s) stored`);
        this.#failed.push(attempt);
        this.#torn.push(attempt);
        if (keep > 0) await this.#inFlight(this.store.append(conversationId, records.slice(0, keep)));
        throw new Error(`injected torn write on append ${attempt}: ${keep} of ${records.length} record(s) stored, then the write failed`);
      }
      await this.#settle(attempt, this.store.append(conversationId, records, options), conversationId, records);
    } finally {
      landed?.();
    }
  }

  /** Per conversation, when the last write that waits (a slow one, or one behind it) has landed or failed. */
  readonly #ahead = new Map<string, Promise<void>>();
}

/** A call's start record the loop must store before it runs the call. */
function isWriteAhead(record: EventRecord): boolean {
  if (record.type !== 'tool.started') return false;
  const level = (record.payload as { sideEffect?: unknown } | null)?.sideEffect;
  return level === 'STATEFUL' || level === 'CRITICAL';
}

/**
 * A record as a crash garbled it: the whole payload of the wrong shape, or one
 * number deep inside it turned to text (the rest intact, as a torn field leaves
 * it). A field that is not a number in that record fails the case: the scenario
 * would not test what it says.
 */
function garbled(record: EventRecord, field: string | undefined): EventRecord {
  if (field === undefined) return { ...record, payload: { turn: 'garbled', torn: true } };
  const payload = structuredClone(record.payload) as Record<string, unknown>;
  const keys = field.split('.');
  let holder: Record<string, unknown> = payload;
  for (const key of keys.slice(0, -1)) {
    const next = holder[key];
    if (next === null || typeof next !== 'object') throw new Error(`store.corruptOnCrash: record ${record.seq} (${record.type}) has no field ${field}`);
    holder = next as Record<string, unknown>;
  }
  const last = keys[keys.length - 1]!;
  const value = holder[last];
  if (typeof value !== 'number') throw new Error(`store.corruptOnCrash: record ${record.seq} (${record.type}) has no number at ${field}`);
  holder[last] = String(value);
  return { ...record, payload };
}

/**
 * A snapshot's body with one character changed, its JSON still valid: the first
 * letter of the first string among its projection's messages — a message the
 * model would be sent — turned to another letter. A body without one (no
 * message yet) gets a space before its last brace: still JSON, another body.
 */
/** The snapshot body with the value at `field` (a dotted path of names and array indexes) of another type; undefined when it has no such value. */
function retypedBody(body: string, field: string): string | undefined {
  let snapshot: unknown;
  try {
    snapshot = JSON.parse(body);
  } catch {
    return undefined;
  }
  const path = field.split('.');
  let parent: unknown = snapshot;
  for (const key of path.slice(0, -1)) {
    if (typeof parent !== 'object' || parent === null || !Object.hasOwn(parent, key)) return undefined;
    parent = (parent as Record<string, unknown>)[key];
  }
  const last = path[path.length - 1]!;
  if (typeof parent !== 'object' || parent === null || !Object.hasOwn(parent, last)) return undefined;
  const value = (parent as Record<string, unknown>)[last];
  // A string becomes its length, a number its text, anything else text.
  (parent as Record<string, unknown>)[last] = typeof value === 'string' ? value.length : typeof value === 'number' ? String(value) : JSON.stringify(value);
  return JSON.stringify(snapshot);
}

function garbledBody(body: string): string {
  const messages = body.indexOf('"messages":[', body.indexOf('"projection"'));
  const text = messages < 0 ? -1 : body.indexOf('"', messages + '"messages":['.length);
  if (text >= 0)
    for (let i = text + 1; i < body.length && body[i] !== '"'; i++) {
      const c = body[i]!;
      if (/[A-Za-z]/.test(c)) return `${body.slice(0, i)}${c === 'Q' ? 'Z' : 'Q'}${body.slice(i + 1)}`;
    }
  return `${body.slice(0, -1)} }`;
}
