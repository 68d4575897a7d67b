/**
 * The inbox script played against a real production host (src/host/host.ts) —
 * its conversation lock, recovery, flushing and response envelope — over the
 * case's store, virtual clock and provider fakes, serving the agent under test.
 * Each entry is a call a client would make: `handle(id, text, { intent })`,
 * `cancel(id, by)`.
 *
 * A process of the case is one `AgentHost` built as a deploy builds it —
 * `createHostFromConfig` over the case's YAML config, which names every model
 * client (the host builds each from its entry, a wire provider with the key its
 * environment variable holds) — with its own connection to the store.
 * `crash` kills it: the host is halted and its connection severed, so it writes
 * nothing more (its locks die with it). `reopen` starts a new process over the
 * same store, serving the same agent — the tools' external state (a backend of
 * refunds) is the world and survives; only the process is new — whose
 * `createHostFromConfig` runs the recovery sweep every host runs at start (the
 * deploy's own path, not a second call of the harness's). The host is given the agent as a factory
 * and must build it for the case's conversation each time it opens it (the case
 * fails if it serves one it did not build for it).
 *
 * A scenario with `hosts: n` starts n processes at once over the one store (as
 * hosts sharing a PostgreSQL database): each entry's `via` says which one a client
 * talks to. They take turns on the conversation through the store's lock, and
 * each keeps its idle sessions (the case's config says how), so a host coming back
 * to the conversation must notice what the others appended meanwhile.
 *
 * A scenario with a `bystander` has the same processes serve a second conversation at
 * the same time (`others`): its own agent, built for it by the factory, its own model
 * script (each loop's requests go to its conversation's client), its own record. Its
 * client is `bystander(id)`, a target of the same port; the host's observer and
 * exporter file what the host reports under the conversation it names.
 */
import {
  project,
  redactDeep,
  type Agent,
  type CancelSource,
  type Clock,
  type EventLog,
  type LoopDeps,
  type Message,
  type ModelClient,
  type TraceExporter,
  type ToolRunContext,
  type TraceRecord,
} from '../../kernel/index.ts';
import type { HostConfig } from '../../host/config.ts';
import type { ResponseEnvelope } from '../../host/envelope.ts';
import type { AgentHost } from '../../host/host.ts';
import { configAdapter, createHostFromConfig, type ModelSpec } from '../../host/from-config.ts';
import { traceTurn, type CaseRecording } from './case-recording.ts';
import { followAfterTheCase, type FollowRecord } from './follow-check.ts';
import { LiveFollower, type LiveFollowRecord } from './live-follower.ts';
import { sendBadRequests, type BadRequest } from './bad-requests.ts';
import { followWithFailingRead, type SseReadFailure } from './sse-read-failure.ts';
import type { ProcessStore, WorldStore } from './faulty-store.ts';
import type { TeamListener } from './team-listener.ts';
import { LOOPGATE_CAPABILITIES } from '../loop-port/capabilities.ts';
import { reportOf } from '../loop-port/loopgate-report.ts';
import type { LoopUnderTest, MessageIntent, TurnReport } from '../loop-port/port.ts';

export interface HostWorld {
  readonly conversation: string;
  readonly config: HostConfig;
  readonly store: WorldStore;
  readonly agent: Agent;
  /**
   * The client for each model entry the config names (createHostFromConfig's
   * `modelClient`): the case's scripted client for a `fake` entry, or the case's
   * recording over the client the host built for a wire entry (`build`).
   */
  readonly modelClient: (spec: ModelSpec, build: (spec: ModelSpec) => ModelClient) => ModelClient;
  /** The environment the host reads its keys from. */
  readonly env: Readonly<Record<string, string>>;
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
  /** Other conversations the same processes serve at the same time (a scenario's bystander). */
  readonly others?: readonly OtherConversation[];
  /** A UI follows the case's conversation while the case runs (the scenario's `follow: live`; live-follower.ts). */
  readonly followLive?: boolean;
  /** Secrets the agent gains from the first reopen on (the scenario's `secretsOnReopen`): values stored before as plain text. */
  readonly secretsOnReopen?: readonly string[];
  /** A team's listener on the case's conversation's log, given each log the host opens (the scenario's `listener`). */
  readonly listener?: TeamListener;
}

/** A second conversation on the case's host: its agent, its model client, its record, where its faults go. */
export interface OtherConversation {
  readonly conversation: string;
  readonly agent: Agent;
  readonly model: ModelClient;
  readonly recording: CaseRecording;
  readonly problem: (error: Error) => void;
}

/** What the host target keeps per conversation it serves (its methods taking one are for OtherConversationTarget). */
export interface Line {
  readonly conversation: string;
  readonly agent: Agent;
  readonly recording: CaseRecording;
  readonly problem: (error: Error) => void;
  /** Its own model client (a bystander's); undefined: the world's. */
  readonly model: ModelClient | undefined;
  readonly reports: TurnReport[];
  readonly posts: HostPost[];
  /** One per message posted: aborting it is its client going away. */
  readonly clients: AbortController[];
  readonly outstanding: Set<Promise<unknown>>;
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

/** A live process's conversations in memory after the case (AgentHost.stats), and its config's `sessions.maxIdle`. */
export interface SessionsHeld {
  /** 1 for the first process started, and so on. */
  readonly process: number;
  readonly open: number;
  readonly idle: number;
  readonly busy: number;
  readonly maxIdle: number;
}

interface Process {
  readonly host: AgentHost;
  readonly connection: ProcessStore;
  /** The log this process last opened, per conversation (its turns close there). */
  readonly logs: Map<string, EventLog>;
  dead: boolean;
}

/** loopgate's production host as an adapter of the loop-under-test port (loop-port/port.ts). */
export class HostTarget implements LoopUnderTest {
  readonly capabilities = LOOPGATE_CAPABILITIES;
  readonly #world: HostWorld;
  readonly #processes: Process[] = [];
  /** Every conversation served, the case's first. */
  readonly #lines = new Map<string, Line>();
  readonly #main: Line;
  readonly posts: HostPost[];
  readonly #follower: LiveFollower | undefined;

  private constructor(world: HostWorld) {
    this.#world = world;
    const line = (c: Pick<Line, 'conversation' | 'agent' | 'recording' | 'problem'>, model: ModelClient | undefined): Line => ({
      conversation: c.conversation,
      agent: (world.others ?? []).length > 0 ? ownedBy(c.agent, c.conversation, (conversation) => this.#lines.get(conversation) ?? this.#main) : c.agent,
      recording: c.recording,
      problem: c.problem,
      model,
      reports: [],
      posts: [],
      clients: [],
      outstanding: new Set(),
    });
    this.#main = line(world, undefined);
    this.#lines.set(world.conversation, this.#main);
    for (const other of world.others ?? []) this.#lines.set(other.conversation, line(other, other.model));
    this.posts = this.#main.posts;
    this.#follower = world.followLive
      ? new LiveFollower({
          conversation: world.conversation,
          stored: () => world.store.store.count(world.conversation),
          storedAt: (seq) => world.store.storedAt(world.conversation, seq),
          now: () => world.clock.now(),
        })
      : undefined;
  }

  /** The case's processes started (the scenario's `hosts`, default one), each host built from the case's config. */
  static async start(world: HostWorld): Promise<HostTarget> {
    const target = new HostTarget(world);
    for (let i = 0; i < (world.hosts ?? 1); i++) target.#processes.push(await target.#start());
    // The UI follows the first host (with several started together, the one it was served by).
    target.#follower?.connect(target.#processes[0]!.host, 0);
    return target;
  }

  /** The client of another conversation the same processes serve (a bystander), as a target of the same port. */
  other(conversation: string): OtherConversationTarget {
    const line = this.#lines.get(conversation);
    if (!line || line === this.#main) throw new Error(`the host target serves no other conversation "${conversation}"`);
    return new OtherConversationTarget(this, line);
  }

  /** Processes started (1 without a reopen). */
  get processes(): number {
    return this.#processes.length;
  }

  /** A process being started (a reopen's, its recovery sweep running), and whether a crash took it down meanwhile. */
  #starting: { readonly connection: { sever(): void }; readonly logs: Map<string, EventLog>; dead: boolean } | undefined;

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

  send(text: string, intent: MessageIntent, via?: number, messageId?: string, gone?: boolean): void {
    this.post(this.#main, text, intent, via, messageId, gone);
  }

  /** A client posts a message to `line`'s conversation through the process `via` names. */
  post(line: Line, text: string, intent: MessageIntent, via?: number, messageId?: string, gone?: boolean): void {
    const process = this.#via(via);
    const post: HostPost = {
      intent,
      text,
      ...(messageId !== undefined ? { messageId } : {}),
      process: this.#processes.indexOf(process),
      envelope: undefined,
      sentAt: this.#world.clock.now(),
    };
    line.posts.push(post);
    const client = new AbortController();
    line.clients.push(client);
    if (gone) client.abort(new Error('the client went away before its post was read'));
    this.#track(
      line,
      process.host.handle(line.conversation, text, { intent, signal: client.signal, ...(messageId !== undefined ? { messageId } : {}) }).then((envelope) => {
        // A process that died answers nobody: what its halted host says afterwards never reaches the client.
        if (process.dead) return;
        post.envelope = envelope;
        post.answered = { stored: this.#world.store.store.count(line.conversation), at: this.#world.clock.now() };
      }),
    );
  }

  cancel(by: CancelSource, via?: number): void {
    this.cancelIn(this.#main, by, via);
  }

  cancelIn(line: Line, by: CancelSource, via?: number): void {
    this.#via(via).host.cancel(line.conversation, by, `scenario: cancel by ${by}`);
  }

  /** The client of the n-th message posted (1-based) goes away: its request's signal aborts. False: that message is not posted (yet). */
  disconnect(post: number): boolean {
    return this.disconnectIn(this.#main, post);
  }

  disconnectIn(line: Line, post: number): boolean {
    const client = line.clients[post - 1];
    if (!client) return false;
    const record = line.posts[post - 1]!;
    if (!client.signal.aborted) {
      const taken = this.#takenByRunningTurn(line, record);
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
  #takenByRunningTurn(line: Line, post: HostPost): HostPost['takenWhenAborted'] {
    const process = this.#processes[post.process];
    const log = process?.logs.get(line.conversation);
    if (!process || process.dead || !log || post.envelope !== undefined) return undefined;
    if (post.messageId !== undefined && line.posts.some((p) => p !== post && p.messageId === post.messageId)) return undefined;
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
    if (process.dead) {
      // A reopened process still starting (its recovery sweep writing): the crash takes it down mid-sweep.
      const starting = this.#starting;
      if (starting && !starting.dead) {
        starting.dead = true;
        for (const [conversation, log] of starting.logs) this.#lines.get(conversation)?.recording.died(log);
        starting.connection.sever();
      }
      return;
    }
    process.dead = true;
    // The UI's stream dies with the process that served it.
    if (this.#followed === process) void this.#follower?.drop('crash');
    // What the dead process read of the store stays readable to the judge: a log it resumed from a snapshot reads its
    // prefix lazily, through the connection the crash severs, and a conversation no new process reopens (a sweep that
    // skipped it) is judged on that log — a failed check, not the harness's error.
    for (const [conversation, log] of process.logs) {
      this.#lines.get(conversation)?.recording.died(log);
      try {
        void log.events;
      } catch {
        // judged as it stands
      }
    }
    process.connection.sever();
    process.host.halt();
  }

  loseLock(): boolean {
    let lost = false;
    for (const process of this.#processes) if (!process.dead && process.connection.loseLocks()) lost = true;
    return lost;
  }

  /** The process the live follower is connected to (the first of several started together, else the latest). */
  get #followed(): Process | undefined {
    return (this.#world.hosts ?? 1) > 1 ? this.#processes[0] : this.#current;
  }

  /** The live follower leaves at the end of the case: what it was shown (undefined without `follow: live`). */
  async finishFollowing(): Promise<LiveFollowRecord | undefined> {
    return this.#follower?.finish();
  }

  async reopen(): Promise<void> {
    if (!this.#current.dead) throw new Error('reopen: the host has not crashed (its crash trigger never fired), so there is nothing to reopen');
    await this.settled(); // the dead process's last work has stopped
    await this.#world.store.drained(); // and what it handed to the store has landed
    // The new process sweeps crashed turns as it starts, as every deploy's host does (createHostFromConfig).
    const process = await this.#start();
    this.#processes.push(process);
    // The UI reconnects to the new process from the last event it received.
    this.#follower?.connect(process.host, this.#processes.length - 1);
  }

  async settled(): Promise<void> {
    await this.settledIn(this.#main);
  }

  /** Everything posted to `line`'s conversation has been answered, and no process has work in flight for it. */
  async settledIn(line: Line): Promise<void> {
    for (;;) {
      const waiting = [...line.outstanding];
      await Promise.allSettled(waiting);
      for (const process of this.#processes) await process.host.idle(line.conversation);
      if (line.outstanding.size === 0) return;
    }
  }

  /** Why each recovery sweep after a reopen refused the conversation (the store could not be read back). */
  readonly refusals: string[] = [];

  reports(): readonly TurnReport[] {
    return this.#main.reports;
  }

  persistedHistory(): readonly Message[] {
    return this.historyOf(this.#main);
  }

  historyOf(line: Line): readonly Message[] {
    // Several live hosts: the latest life, whichever host opened it or took its kept log up again.
    const log = (this.#world.hosts ?? 1) > 1 ? line.recording.current : this.#current.logs.get(line.conversation);
    return log ? project(log.events) : [];
  }

  /**
   * A UI follows the conversation after the case, through the host's own event
   * stream (follow-check.ts): from the first event, then a reconnect. Undefined
   * when no live process is left to ask (the case ended in a crash).
   */
  async followAfterTheCase(): Promise<FollowRecord | undefined> {
    const process = (this.#world.hosts ?? 1) > 1 ? this.#processes[0] : this.#current;
    if (!process || process.dead) return undefined;
    // Secrets gained on a reopen cover events stored before as plain text: a follower is shown them redacted.
    const shown = (payload: unknown) => ((this.#world.secretsOnReopen ?? []).length > 0 ? redactDeep(payload, process.host.redact) : payload);
    const stored = this.#world.store.store.peek(this.#world.conversation).map((r) => ({ seq: r.seq, type: r.type, payload: shown(r.payload) }));
    return followAfterTheCase(process.host, this.#world.conversation, stored);
  }

  /** After the case: what the README says the host refuses, sent to a host built as the case's (bad-requests.ts). */
  sendBadRequests(): Promise<readonly BadRequest[]> {
    return sendBadRequests(this.#world.config, this.#world.agent);
  }

  /** After the case, with the agent's secrets: a follow whose store read fails mid-stream (sse-read-failure.ts). */
  followWithFailingRead(): Promise<SseReadFailure | undefined> {
    return followWithFailingRead(this.#world.config, this.#world.agent);
  }

  /**
   * After the case, once each live process has nothing in flight: the conversations it holds in memory, and the
   * bound its config sets on the idle ones (host-keeps-sessions-bounded).
   */
  async sessionsHeld(): Promise<readonly SessionsHeld[]> {
    const held: SessionsHeld[] = [];
    for (const [index, process] of this.#processes.entries()) {
      if (process.dead) continue;
      await process.host.idle();
      held.push({ process: index + 1, ...process.host.stats(), maxIdle: this.#world.config.sessions.maxIdle });
    }
    return held;
  }

  /** Stops the running process as a runaway case (nothing more is written). */
  stop(): void {
    this.crash();
  }

  #track(line: Line, work: Promise<unknown>): void {
    line.outstanding.add(work);
    void work.finally(() => line.outstanding.delete(work));
  }

  async #start(): Promise<Process> {
    const w = this.#world;
    // A reopened process's agent declares the secrets it gained since the first process started.
    const grown = this.#processes.length > 0 ? (w.secretsOnReopen ?? []) : [];
    const withGrown = (agent: Agent): Agent => (grown.length > 0 ? { ...agent, secrets: [...(agent.secrets ?? []), ...grown] } : agent);
    const connection = w.store.connect();
    let process: Process | undefined;
    // The logs this process opens, per conversation: filled from its start on (its recovery sweep opens them before it is returned).
    const logs = new Map<string, EventLog>();
    // A crash while it starts (during its recovery sweep) takes it down: `crash` finds it here.
    const starting = { connection, logs, dead: false };
    this.#starting = starting;
    const lineOf = (conversation: string): Line | undefined => this.#lines.get(conversation);
    const exporter: TraceExporter = {
      // A turn's trace is named `<conversation>:<turn>`: filed with that conversation's log.
      export: (trace: TraceRecord) => {
        const line = lineOf(trace.traceId.slice(0, trace.traceId.lastIndexOf(':')));
        const log = line && logs.get(line.conversation);
        if (line && log) line.recording.traced(log, trace, traceTurn(trace));
      },
    };
    // The conversations whose agent the host built since it last opened them (AgentFactory: per conversation).
    const built = new Set<string>();
    // Each conversation's loop asks its own conversation's client (the world's for the case's): the provider answers each from its own script.
    const routed = (deps: LoopDeps): LoopDeps => {
      const line = lineOf(deps.conversation ?? '');
      if (!line?.model) return deps;
      const { fallbackModels: _fallbacks, ...rest } = deps;
      return { ...rest, model: line.model };
    };
    const wrapLoopDeps = (deps: LoopDeps): LoopDeps => {
      const own = lineOf(deps.conversation ?? '');
      // The world's loop variant (a test seam, a scenario's faulty executor) is the case's own conversation's.
      return own === this.#main && w.wrapLoopDeps ? w.wrapLoopDeps(deps) : routed(deps);
    };
    const host = await createHostFromConfig(w.config, {
      store: connection,
      env: w.env,
      modelClient: (spec) => w.modelClient(spec, (s) => configAdapter(s, undefined, w.clock)),
      // The recovery sweep a host runs at start, as a deploy runs it (every process of the case: a reopened one finds
      // the crashed turns). What it could not read back is an outcome of the case, not a harness failure.
      onRecovered: (sweep) => {
        if (sweep.failed.length === 0) return;
        const why = sweep.failed.map((f) => f.error).join('; ');
        this.refusals.push(why);
        w.recording.unreadable(why);
      },
      // The host is given a factory, as from loopgate.config.ts; it serves each conversation's agent, whose tools' state is
      // the world's and outlives a process (as a real backend does).
      // Built for a conversation the case does not know (or for none): the case's agent, and the per-open check below says so.
      agent: (context) => {
        const line = context.conversationId !== undefined ? lineOf(context.conversationId) : undefined;
        if (line) built.add(line.conversation);
        return withGrown((line ?? this.#main).agent);
      },
      clock: w.clock,
      random: w.random,
      newId: w.newId,
      exporter,
      ...(w.wrapLoopDeps || (w.others ?? []).length > 0 ? { wrapLoopDeps } : {}),
      observer: {
        opened: (id, log) => {
          logs.set(id, log);
          built.delete(id);
          lineOf(id)?.recording.opened(log);
          // A team's observer listens to the log it is handed (after the harness's own recording).
          if (w.listener && lineOf(id) === this.#main) w.listener.attach(log);
        },
        started: (id, loop) => {
          const line = lineOf(id);
          if (!built.has(id))
            (line ?? this.#main).problem(
              new Error(
                `the production host opened conversation "${id}" without building its agent for it (the factory is called per conversation, with its id): state one conversation's agent keeps would reach another's`,
              ),
            );
          line?.recording.started(loop);
        },
        turnClosed: (id, result) => {
          const line = lineOf(id);
          if (!line) return;
          line.reports.push(reportOf(result));
          const log = logs.get(id);
          if (log) line.recording.turnClosed(log, result);
        },
        // The case's store damages a snapshot only by the scenario's own fault (store.corruptSnapshotOnCrash):
        // refusing that one is right, resuming from it is a bug; refusing any other, or failing to take one, is a bug.
        snapshot: (id, what) => {
          const problem = (lineOf(id) ?? this.#main).problem;
          const garbled = w.store.garbledSnapshotsRead(id);
          if ('rejected' in what && garbled.size === 0)
            problem(new Error(`a snapshot the production host wrote was refused when the conversation reopened: ${what.rejected}`));
          if ('restored' in what && garbled.has(what.restored))
            problem(
              new Error(
                `the production host resumed from the snapshot up to event ${what.restored}, which the crash garbled, instead of reading the conversation whole`,
              ),
            );
          if ('failed' in what) problem(new Error(`the production host could not take a snapshot: ${what.failed}`));
        },
      },
    });
    this.#starting = undefined;
    process = { host, connection, logs, dead: starting.dead };
    if (starting.dead) host.halt(); // crashed mid-sweep: it serves nothing
    return process;
  }
}

/**
 * The agent built for `conversation`, its tools telling the case when they run a call of another conversation
 * (the idempotency key names the call's: `<conversation>/<tool>:<call id>`): the host served one conversation's
 * agent — its tools' state, a team's per-user backend — to another, though it built each its own.
 */
function ownedBy(agent: Agent, conversation: string, lineOf: (conversation: string) => Line): Agent {
  if (!agent.tools || agent.tools.length === 0) return agent;
  return {
    ...agent,
    tools: agent.tools.map((tool) => ({
      ...tool,
      run: (args: unknown, ctx: ToolRunContext) => {
        const of = ctx.idempotencyKey.slice(0, ctx.idempotencyKey.indexOf('/'));
        if (of !== conversation)
          lineOf(of).problem(
            new Error(
              `the production host ran a call of conversation "${of}" (${tool.name}, key ${ctx.idempotencyKey}) with the agent it built for conversation "${conversation}": one conversation's agent state reached another`,
            ),
          );
        return tool.run(args, ctx);
      },
    })),
  };
}

/**
 * The client of a second conversation the case's host serves (a bystander): it posts, cancels and
 * disconnects in that conversation only, through the same processes. It cannot crash or reopen them.
 */
export class OtherConversationTarget implements LoopUnderTest {
  readonly capabilities = LOOPGATE_CAPABILITIES;
  readonly #host: HostTarget;
  readonly #line: Line;

  constructor(host: HostTarget, line: Line) {
    this.#host = host;
    this.#line = line;
  }

  get posts(): readonly HostPost[] {
    return this.#line.posts;
  }

  send(text: string, intent: MessageIntent, via?: number, messageId?: string, gone?: boolean): void {
    this.#host.post(this.#line, text, intent, via, messageId, gone);
  }

  cancel(by: CancelSource, via?: number): void {
    this.#host.cancelIn(this.#line, by, via);
  }

  disconnect(post: number): boolean {
    return this.#host.disconnectIn(this.#line, post);
  }

  crash(): void {
    throw new Error("a bystander cannot crash the host: that is the case's own conversation's");
  }

  reopen(): Promise<void> {
    return Promise.reject(new Error("a bystander cannot reopen the host: that is the case's own conversation's"));
  }

  settled(): Promise<void> {
    return this.#host.settledIn(this.#line);
  }

  reports(): readonly TurnReport[] {
    return this.#line.reports;
  }

  persistedHistory(): readonly Message[] {
    return this.#host.historyOf(this.#line);
  }
}
