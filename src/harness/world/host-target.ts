/**
 * The inbox script played against a real production host (src/host/host.ts) —
 * its conversation lock, recovery, flushing and response envelope — over the
 * case's store, virtual clock and provider fakes, serving the agent under test.
 * Each entry is a call a client would make: `handle(id, text, { intent })`,
 * `cancel(id, by)`.
 *
 * A process of the case is one `AgentHost` with its own connection to the store.
 * `crash` kills it: the host is halted and its connection severed, so it writes
 * nothing more (its locks die with it). `reopen` starts a new process over the
 * same store, serving the same agent — the tools' external state (a backend of
 * refunds) is the world and survives; only the process is new — and runs the
 * recovery sweep a host runs at start. The host is given the agent as a factory
 * and must build it for the case's conversation each time it opens it (the case
 * fails if it serves one it did not build for it).
 *
 * A scenario with `hosts: n` starts n processes at once over the one store (as
 * hosts sharing a PostgreSQL database): each entry's `via` says which one a client
 * talks to. They take turns on the conversation through the store's lock, and
 * each keeps its idle sessions (the case's config says how), so a host coming back
 * to the conversation must notice what the others appended meanwhile.
 */
import {
  project,
  type Agent,
  type CancelSource,
  type Clock,
  type EventLog,
  type LoopDeps,
  type Message,
  type ModelClient,
  type TraceExporter,
  type TraceRecord,
} from '../../kernel/index.ts';
import type { HostConfig } from '../../host/config.ts';
import type { ResponseEnvelope } from '../../host/envelope.ts';
import { AgentHost } from '../../host/host.ts';
import { traceTurn, type CaseRecording } from './case-recording.ts';
import type { ProcessStore, WorldStore } from './faulty-store.ts';
import { LOOPGATE_CAPABILITIES } from '../loop-port/capabilities.ts';
import { reportOf } from '../loop-port/loopgate-report.ts';
import type { LoopUnderTest, MessageIntent, TurnReport } from '../loop-port/port.ts';

export interface HostWorld {
  readonly conversation: string;
  readonly config: HostConfig;
  readonly store: WorldStore;
  readonly agent: Agent;
  readonly model: ModelClient;
  readonly fallbackModels?: readonly ModelClient[];
  readonly clock: Clock;
  readonly random: () => number;
  readonly newId: () => string;
  readonly recording: CaseRecording;
  /** Processes started together (the scenario's `hosts`; default 1). */
  readonly hosts?: number;
  /** A test seam: rewrites each loop's dependencies (a broken loop variant). */
  readonly wrapLoopDeps?: (deps: LoopDeps) => LoopDeps;
  /** A fault of the host the case must fail for, though no turn shows it (a snapshot it wrote and then refused). */
  readonly problem: (error: Error) => void;
}

/** A message a client posted, and how the host answered (undefined while it has not). */
export interface HostPost {
  readonly intent: MessageIntent;
  readonly text: string;
  /** The client's id for the message (the same on a retry), if it gave one. */
  readonly messageId?: string;
  /** The process it was sent to (0 for the first). */
  readonly process: number;
  envelope: ResponseEnvelope | undefined;
  /** When it was answered: the records the store held for the conversation, and the virtual time. */
  answered?: { readonly stored: number; readonly at: number };
  /** The virtual time it was sent. */
  readonly sentAt: number;
  /**
   * Its client went away (`disconnect`) while the turn running in the process it was sent to had taken it: the
   * message's id, that turn, and how long that process's log was just before the abort (client-abort-cancels-its-turn).
   */
  takenWhenAborted?: { readonly id: string; readonly turn: number; readonly logLength: number };
}

interface Process {
  readonly host: AgentHost;
  readonly connection: ProcessStore;
  /** The log this process last opened (its turns close there). */
  log: EventLog | undefined;
  dead: boolean;
}

/** loopgate's production host as an adapter of the loop-under-test port (loop-port/port.ts). */
export class HostTarget implements LoopUnderTest {
  readonly capabilities = LOOPGATE_CAPABILITIES;
  readonly #reports: TurnReport[] = [];
  readonly #world: HostWorld;
  readonly #processes: Process[] = [];
  readonly #outstanding = new Set<Promise<unknown>>();
  readonly posts: HostPost[] = [];
  /** One per message posted: aborting it is its client going away. */
  readonly #clients: AbortController[] = [];

  constructor(world: HostWorld) {
    this.#world = world;
    for (let i = 0; i < (world.hosts ?? 1); i++) this.#processes.push(this.#start());
  }

  /** Processes started (1 without a reopen). */
  get processes(): number {
    return this.#processes.length;
  }

  get #current(): Process {
    return this.#processes[this.#processes.length - 1]!;
  }

  /** The process a client talks to: the one `via` names (1-based, default the first) of several started together, else the latest (after a reopen). */
  #via(via: number | undefined): Process {
    if ((this.#world.hosts ?? 1) === 1) return this.#current;
    if (via === undefined) return this.#processes[0]!;
    const process = this.#processes[via - 1];
    if (!process) throw new Error(`via ${via}: only ${this.#processes.length} host(s) were started`);
    return process;
  }

  send(text: string, intent: MessageIntent, via?: number, messageId?: string): void {
    const process = this.#via(via);
    const post: HostPost = {
      intent,
      text,
      ...(messageId !== undefined ? { messageId } : {}),
      process: this.#processes.indexOf(process),
      envelope: undefined,
      sentAt: this.#world.clock.now(),
    };
    this.posts.push(post);
    const client = new AbortController();
    this.#clients.push(client);
    this.#track(
      process.host
        .handle(this.#world.conversation, text, { intent, signal: client.signal, ...(messageId !== undefined ? { messageId } : {}) })
        .then((envelope) => {
          // A process that died answers nobody: what its halted host says afterwards never reaches the client.
          if (process.dead) return;
          post.envelope = envelope;
          post.answered = { stored: this.#world.store.store.count(this.#world.conversation), at: this.#world.clock.now() };
        }),
    );
  }

  cancel(by: CancelSource, via?: number): void {
    this.#via(via).host.cancel(this.#world.conversation, by, `scenario: cancel by ${by}`);
  }

  /** The client of the n-th message posted (1-based) goes away: its request's signal aborts. False: that message is not posted (yet). */
  disconnect(post: number): boolean {
    const client = this.#clients[post - 1];
    if (!client) return false;
    const record = this.posts[post - 1]!;
    if (!client.signal.aborted) {
      const taken = this.#takenByRunningTurn(record);
      if (taken) record.takenWhenAborted = taken;
    }
    client.abort(new Error('the client went away'));
    return true;
  }

  /**
   * The turn running in the process a message was sent to, if that turn has taken it (its `user.message` is in the
   * open turn), found by the message's text in that process's log. Nothing when the text is ambiguous, the request
   * is answered already, or another request carries the same client message id (aborting one of several requests
   * for a message withdraws only that request).
   */
  #takenByRunningTurn(post: HostPost): HostPost['takenWhenAborted'] {
    const process = this.#processes[post.process];
    const log = process?.log;
    if (!process || process.dead || !log || post.envelope !== undefined) return undefined;
    if (post.messageId !== undefined && this.posts.some((p) => p !== post && p.messageId === post.messageId)) return undefined;
    const turn = log.positions.openTurn;
    if (turn === undefined) return undefined;
    const ids: string[] = [];
    let takenBy: number | undefined;
    for (const e of log.events) {
      if (e.opaque) continue;
      if (e.type === 'inbox.received' && e.payload.source === 'user' && e.payload.text === post.text && e.payload.intent === post.intent)
        ids.push(e.payload.id);
      if (e.type === 'user.message' && ids.length === 1 && e.payload.id === ids[0]) takenBy = e.payload.turn;
    }
    if (ids.length !== 1 || takenBy !== turn || log.positions.inboxState(ids[0]!) !== 'taken') return undefined;
    return { id: ids[0]!, turn, logLength: log.length };
  }

  crash(): void {
    const process = this.#current;
    if (process.dead) return;
    process.dead = true;
    process.connection.sever();
    process.host.halt();
  }

  async reopen(): Promise<void> {
    if (!this.#current.dead) throw new Error('reopen: the host has not crashed (its crash trigger never fired), so there is nothing to reopen');
    await this.settled(); // the dead process's last work has stopped
    const process = this.#start();
    this.#processes.push(process);
    const sweep = await process.host.recoverAll();
    // A store the new host refuses to read (a record lost in the crash) is an outcome of the case, not a harness failure.
    if (sweep.failed.length > 0) {
      const why = sweep.failed.map((f) => f.error).join('; ');
      this.refusals.push(why);
      this.#world.recording.unreadable(why);
    }
  }

  async settled(): Promise<void> {
    for (;;) {
      const waiting = [...this.#outstanding];
      await Promise.allSettled(waiting);
      for (const process of this.#processes) await process.host.idle(this.#world.conversation);
      if (this.#outstanding.size === 0) return;
    }
  }

  /** Why each recovery sweep after a reopen refused the conversation (the store could not be read back). */
  readonly refusals: string[] = [];

  reports(): readonly TurnReport[] {
    return this.#reports;
  }

  persistedHistory(): readonly Message[] {
    // Several live hosts: the latest life, whichever host opened it or took its kept log up again.
    const log = (this.#world.hosts ?? 1) > 1 ? this.#world.recording.current : this.#current.log;
    return log ? project(log.events) : [];
  }

  /** Stops the running process as a runaway case (nothing more is written). */
  stop(): void {
    this.crash();
  }

  #track(work: Promise<unknown>): void {
    this.#outstanding.add(work);
    void work.finally(() => this.#outstanding.delete(work));
  }

  #start(): Process {
    const w = this.#world;
    const connection = w.store.connect();
    let process: Process | undefined;
    const exporter: TraceExporter = {
      export: (trace: TraceRecord) => {
        if (process?.log) w.recording.traced(process.log, trace, traceTurn(trace));
      },
    };
    // Whether the host built the agent for the conversation since it last opened it (AgentFactory: per conversation).
    let built = false;
    const host = new AgentHost({
      config: w.config,
      store: connection,
      model: w.model,
      ...(w.fallbackModels ? { fallbackModels: w.fallbackModels } : {}),
      // The host is given a factory, as from loopgate.config.ts; it serves the case's agent, whose tools' state is
      // the world's and outlives a process (as a real backend does).
      agent: (context) => {
        if (context.conversationId === w.conversation) built = true;
        return w.agent;
      },
      clock: w.clock,
      random: w.random,
      newId: w.newId,
      exporter,
      ...(w.wrapLoopDeps ? { wrapLoopDeps: w.wrapLoopDeps } : {}),
      observer: {
        opened: (_id, log) => {
          process!.log = log;
          built = false;
          w.recording.opened(log);
        },
        started: (id, loop) => {
          if (!built)
            w.problem(
              new Error(
                `the production host opened conversation "${id}" without building its agent for it (the factory is called per conversation, with its id): state one conversation's agent keeps would reach another's`,
              ),
            );
          w.recording.started(loop);
        },
        turnClosed: (_id, result) => {
          this.#reports.push(reportOf(result));
          if (process?.log) w.recording.turnClosed(process.log, result);
        },
        // The case's store damages a snapshot only by the scenario's own fault (store.corruptSnapshotOnCrash):
        // refusing that one is right, resuming from it is a bug; refusing any other, or failing to take one, is a bug.
        snapshot: (id, what) => {
          const garbled = w.store.garbledSnapshotsRead(id);
          if ('rejected' in what && garbled.size === 0)
            w.problem(new Error(`a snapshot the production host wrote was refused when the conversation reopened: ${what.rejected}`));
          if ('restored' in what && garbled.has(what.restored))
            w.problem(
              new Error(
                `the production host resumed from the snapshot up to event ${what.restored}, which the crash garbled, instead of reading the conversation whole`,
              ),
            );
          if ('failed' in what) w.problem(new Error(`the production host could not take a snapshot: ${what.failed}`));
        },
      },
    });
    process = { host, connection, log: undefined, dead: false };
    return process;
  }
}
