/**
 * The production host (seed 004 rule 2): everything the loop takes for granted.
 *
 * - post each message to its conversation's inbox *before* waiting for anything:
 *   while this host runs a turn of that conversation, a steer or inject goes
 *   straight into the running turn's log (it is taken at the next step), and a
 *   follow-up becomes the next turn of the same drain; otherwise the message waits
 *   for the conversation lock (one turn at a time, across hosts on a shared store)
 *   and is posted as soon as the lock is taken. Every message is appended to the
 *   log exactly once, and stored before its request is answered;
 * - open the conversation's log from the store, recovering a turn a crash left
 *   open (and, at start, every such turn: `recoverAll`);
 * - persist every event the loop writes: write-behind between durability
 *   barriers (conversation-writer.ts) — a step's events are handed to the store's
 *   group commit and the loop goes on; before a STATEFUL or CRITICAL call runs,
 *   when a turn closes and before a request is answered, everything is stored
 *   first. A failed write fails the turn `failed{persistence}` and the host
 *   reopens the conversation from the store (docs/storage.md);
 * - end and export each turn's trace in a `finally`;
 * - answer each request with the envelope of the turn(s) that took its message
 *   (envelope.ts says which, and when a request answers 202);
 * - keep a bounded number of idle conversations in memory (config `sessions`);
 * - claim a store only one process may write (SQLite) before writing to it.
 *
 * The harness is a second host over the same loop with other dependencies; the
 * clock, the store, the model clients and the id source are all injected.
 */
import { randomUUID } from 'node:crypto';
import {
  type ModelClient,
  type Clock,
  systemClock,
  decodeRecords,
  type Intent,
  EventLog,
  type ModelErrorHandler,
  AgentLoop,
  type Agent,
  type AgentFactory,
  type CheckpointHook,
  type ClaimPolicy,
  type Compactor,
  type LoopDeps,
  type PromptSource,
  type TurnTracing,
  type TurnResult,
  PRIORITY,
  PromptAssembler,
  createRedactor,
  loopDeps,
  secretGarbles,
  secretsFromEnv,
  type Redactor,
  type PolicyRule,
  type AnyToolDeclaration,
  type Approver,
  type ToolExecutor,
  Tracer,
  type TraceExporter,
  type CancelSource,
  type Outcome,
  type LogEvent,
  type AnyEvent,
  isKnown,
  type SideEffect,
  outcomeLabel,
  type TraceContext,
  type W3cTracing,
  type Durability,
  snapshotOf,
  checkModelClients,
  loneSurrogateAt,
  LOOPGATE_LOOP,
  onlyItsOwnLoop,
} from '../kernel/index.ts';
import { StoreCorruptionError, StoreError, type EventStore } from '../stores/event-store.ts';
import { ConfigError, loopConfigFrom, type HostConfig } from './config.ts';
import { httpStatusFor, summarizeLoggedTurn, type Delivery, type ResponseEnvelope, type TurnSummary } from './envelope.ts';
import { ConversationWriter } from './conversation-writer.ts';
import { followConversation, FollowError, type FollowOptions } from './follow.ts';
import { FollowerRegistry } from './followers.ts';
import { hostAgent, hostPrompt, hostToolExecutor } from './host-agent.ts';
import { recoverConversation, type RecoveryReport } from './recovery.ts';
import { recoveryTrace } from './recovery-trace.ts';
import { encodeSnapshot, openLog } from './snapshots.ts';
import { randomSpanId, randomTraceId } from './span-ids.ts';
import { parseTraceparent } from './traceparent.ts';
import { shownId } from './shown-id.ts';

export interface HostOptions {
  readonly config: HostConfig;
  readonly store: EventStore;
  readonly model: ModelClient;
  readonly fallbackModels?: readonly ModelClient[];
  /**
   * The agent this host serves (the kernel's `Agent`: tools with their real bodies,
   * prompt, policy, approver, hooks, limits), the same one `loopgate run` checks.
   * The config's operator settings go around it (host-agent.ts says how). The
   * options below that name an agent part are shorthands for it: each adds to, or
   * stands in for, the agent's.
   *
   * A factory (`AgentFactory`, as in loopgate.config.ts) is called per
   * conversation, as `loopgate run` builds one per case: each time the host opens
   * a conversation (its first message here, or again after it was closed idle or
   * the process restarted), with that conversation's id — so state kept in the
   * factory's closure is one conversation's, never shared between users. An
   * `Agent` object is shared by every conversation. A factory that throws or
   * returns no agent: that conversation's requests answer 500, nothing stored.
   * A factory's secrets are redacted once it has built an agent declaring them;
   * name them in `secrets` to have them redacted before (createHostFromConfig
   * passes those of the agent it checks).
   */
  readonly agent?: Agent | AgentFactory;
  /** Added after the agent's tools. */
  readonly tools?: readonly AnyToolDeclaration[];
  /** Policy rules beyond the agent's and the config's `tools.ask`. */
  readonly policyRules?: readonly PolicyRule[];
  readonly approver?: Approver;
  readonly clock?: Clock;
  readonly exporter?: TraceExporter;
  /** Replaces the prompt built from the agent and the config. */
  readonly prompt?: PromptSource;
  readonly compactor?: Compactor;
  readonly claim?: ClaimPolicy;
  readonly checkpoints?: readonly CheckpointHook[];
  readonly errorHandlers?: readonly ModelErrorHandler[];
  /** Exact values never to be written anywhere (added to the agent's and to those found in the environment). */
  readonly secrets?: readonly string[];
  /**
   * The environment whose credentials (`secretsFromEnv`: variables named like a secret, not plain words) the host
   * redacts besides `secrets`. Default `process.env`; `createHostFromConfig` gives the env it reads its keys from.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly random?: () => number;
  /** New inbox message ids. */
  readonly newId?: () => string;
  /**
   * For a store one process at a time may write (SQLite): how long to wait for
   * another process's host to let go of it (ms). 0 (default): refuse at once.
   */
  readonly storeClaimWaitMs?: number;
  /** Told what happens inside the host (metrics, a harness recording the case). */
  readonly observer?: HostObserver;
  /**
   * Rewrites each loop's dependencies just before the loop is built: instrumentation,
   * or a deliberately broken loop variant in the harness's own tests.
   */
  readonly wrapLoopDeps?: (deps: LoopDeps) => LoopDeps;
}

/**
 * What a host reports as it works, for whoever watches it (metrics, the harness's
 * recording of a case). Called synchronously; an observer that throws is ignored.
 */
export interface HostObserver {
  /** A conversation's log was read from the store, before recovery writes to it. */
  opened?(conversationId: string, log: EventLog): void;
  /** The loop over that log was built (recovery done). */
  started?(conversationId: string, loop: AgentLoop): void;
  /** A turn closed and the host has its result (the envelope is built from it). */
  turnClosed?(conversationId: string, result: TurnResult): void;
  /**
   * Snapshots of derived state (snapshots.ts): the log was `restored` from the one
   * at that seq, or a stored one was `rejected` (and the log read whole); one was
   * `written` with the events up to that seq, or taking one `failed` (skipped).
   */
  snapshot?(
    conversationId: string,
    what: { readonly restored: number } | { readonly rejected: string } | { readonly written: number } | { readonly failed: string },
  ): void;
}

export interface HandleOptions {
  readonly intent?: Intent;
  /**
   * The request's signal (e.g. the client went away). Aborting it while the message
   * waits for the conversation lock withdraws it: nothing is stored (499). Once a
   * running turn has taken the message, it cancels that turn as the user (the
   * envelope shows the cancelled turn). In between — stored, not yet taken — the
   * request answers 499 at once and the message stays in the inbox: the next turn
   * takes it.
   */
  readonly signal?: AbortSignal;
  /**
   * The caller's W3C `traceparent`. The turn that takes this message when it starts
   * is traced in the caller's trace, as a child of the caller's span, and its tools
   * get traceparents in that trace to pass on. Malformed: 400, nothing stored.
   */
  readonly traceparent?: string;
  /**
   * The client's id for this message (an HTTP `Idempotency-Key`): 1-200 letters,
   * digits, `.`, `_`, `:` or `-`, naming no secret (else 400). It becomes the
   * message's id in the log, so it survives a crash. A request whose id the
   * conversation already holds is a retry: nothing is stored again and no turn
   * runs for it — it is answered with what became of the message: the turn that
   * took it, if that turn has closed; else when the turn that takes it closes (as
   * the first request would have been), or 202 while it waits. The same id with
   * another text or intent is refused: 422, nothing stored.
   */
  readonly messageId?: string;
}

/** What `recoverAll` found. */
export interface RecoverySweep {
  /** Conversations in the store. */
  readonly conversations: number;
  /** Turns a crash left open, now closed as `interrupted`. */
  readonly recovered: readonly ({ readonly conversationId: string } & RecoveryReport)[];
  /** Conversations whose lock stayed held (a live turn elsewhere: nothing to recover). */
  readonly busy: readonly string[];
  /** Conversations that could not be opened, with why. */
  readonly failed: readonly { readonly conversationId: string; readonly error: string }[];
}

export interface RecoverAllOptions {
  /** How long to wait for a conversation's lock before counting it busy (ms, on the host's clock). Default 1000. */
  readonly lockWaitMs?: number;
  /** Conversations opened at once. Default 4. */
  readonly concurrency?: number;
}

/** The agent a conversation is served, with what the host builds from it. */
interface Served {
  readonly agent: Agent;
  readonly tools: ToolExecutor;
  readonly prompt: PromptSource;
}

/** The store refused the write that closes a turn recovery found open: the store failing, as any refused write. */
class RecoveryWriteRefused extends Error {
  constructor(cause: unknown) {
    super((cause as Error)?.message ?? String(cause), { cause });
  }
}

/**
 * How a request is answered when its conversation cannot be opened: 503 when the store failed (a refused write, a
 * connection lost: retry later, as for a refused write of a turn), 500 for a damaged store (a seq gap, a garbled
 * record: retrying cannot help) and for everything else (the agent's factory threw, a bug).
 */
function openFailureStatus(error: unknown): 500 | 503 {
  if (error instanceof RecoveryWriteRefused) return 503;
  if (error instanceof StoreCorruptionError) return 500;
  return error instanceof StoreError ? 503 : 500;
}

/** Why a session whose lock the store let go of writes nothing more (`Release.lost`). */
const LOCK_LOST =
  'the store let go of the conversation lock (its connection dropped): another host may run the conversation now, so this host writes nothing more of it';

interface Session {
  readonly log: EventLog;
  readonly loop: AgentLoop;
  /** The conversation's writer: a barrier by default (see conversation-writer.ts). */
  readonly flush: (durability?: Durability) => Promise<void>;
  /** Refuses every later write of this session, with `why` (the lock it was written under is lost). */
  readonly fence: (why: string) => void;
}

/** One `handle` call waiting for its answer. */
interface Waiter {
  readonly conversationId: string;
  /** The client's id, or one the host gave (another, when the conversation holds that one already: `#post`). */
  id: string;
  /** The id is the client's (`HandleOptions.messageId`): a message the log holds already is not posted again. */
  readonly given: boolean;
  /** Requests that repeated this one's message while it waited (the same client message id): answered with it. */
  readonly retries: Waiter[];
  /** This one repeats the message of that waiting request. */
  retryOf?: Waiter;
  readonly intent: Intent;
  readonly text: string;
  /** The caller's trace (`HandleOptions.traceparent`). */
  readonly caller: TraceContext | undefined;
  /** Seq of its `inbox.received` in the session's log, once posted. */
  seq: number | undefined;
  readonly resolve: (envelope: ResponseEnvelope) => void;
  settled: boolean;
  /** Its client went away before the message was stored: answered 499 once the write that holds it settles. */
  aborted?: boolean;
}

/** A conversation this host is serving or keeps open while idle. */
interface Conversation {
  readonly id: string;
  session: Session | undefined;
  /** Messages waiting for the lock, in arrival order (not in the log yet). */
  readonly queue: Waiter[];
  /** Posted messages whose requests wait for their turn, by message id. */
  readonly waiting: Map<string, Waiter>;
  /** The pump holds the conversation lock and `session` is current: post straight into its log. */
  holding: boolean;
  /** Takes the lock and runs turns while requests wait. */
  pump: Promise<void> | undefined;
  /** Aborts the pump's wait for the lock (everyone waiting withdrew). */
  lockWait: AbortController | undefined;
  /** When it last went idle (host clock). */
  idleSince: number;
}

const CONVERSATION_ID = /^[A-Za-z0-9._:-]{1,200}$/;
/** `.` and `..`: path segments every URL parser folds away (`/conversations/../events` is `/events`). */
const DOTS_ONLY = /^\.{1,2}$/;
const INTENTS: readonly Intent[] = ['follow_up', 'steer', 'inject'];

/** What a host cannot be built without, besides its model client (checkModelClients): options, a config, a store. */
function checkHostParts(options: unknown): void {
  if (typeof options !== 'object' || options === null) throw new TypeError(`AgentHost: expected options { config, store, model }, got ${kindOf(options)}`);
  const { config, store } = options as { readonly config?: unknown; readonly store?: unknown };
  if (typeof config !== 'object' || config === null || Array.isArray(config))
    throw new ConfigError(
      `config: the host needs its config (defaultHostConfig() for the defaults, loadHostConfig(path) for a YAML file); got ${kindOf(config)}`,
    );
  if (typeof store !== 'object' || store === null || typeof (store as { readonly append?: unknown }).append !== 'function')
    throw new TypeError(`store: the host needs an event store (new MemoryEventStore(), new SqliteEventStore(path), …); got ${storeKind(store)}`);
}

function kindOf(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** What was given for a store: an opening not awaited (`openStore(…)`, `PostgresEventStore.open(…)`) is named as such. */
function storeKind(store: unknown): string {
  if (typeof (store as { readonly then?: unknown } | null | undefined)?.then === 'function') return "a promise: await the store's opening first";
  return typeof store === 'object' && store !== null && !Array.isArray(store) ? 'an object without append()' : kindOf(store);
}

export class AgentHost {
  readonly #options: HostOptions;
  readonly #clock: Clock;
  /** Redacts every secret of every agent this host has built, and the credentials in its environment. */
  #redactor: Redactor;
  /** The agent served to every conversation (an `Agent` given), or undefined: a factory builds one per conversation. */
  readonly #shared: Served | undefined;
  readonly #factory: AgentFactory | undefined;
  /** Secrets and tool names of the agents built so far (the redactor covers them all). */
  readonly #secrets = new Set<string>();
  readonly #toolNames = new Set<string>();
  readonly #envCredentials: readonly string[];
  readonly #newId: () => string;
  /** Every conversation with work in flight or an open idle session. */
  readonly #conversations = new Map<string, Conversation>();
  /** The idle ones, least recently used first. */
  readonly #idle = new Map<string, Conversation>();
  readonly #shutdown = new AbortController();
  readonly #running = new Set<Promise<unknown>>();
  readonly #followers = new FollowerRegistry();
  /** Conversations whose session was dropped because the store refused a write: a turn left open is recovered as such. */
  readonly #storeRefused = new Set<string>();
  #storeClaim: Promise<void> | undefined;
  #halted = false;
  #closing: Promise<void> | undefined;
  /**
   * The system prompt served to every conversation: the `prompt` option, or the
   * given `Agent`'s with the config's (register more fragments on it at any time).
   * Undefined when a factory builds each conversation's agent: each brings its own.
   */
  readonly prompt: PromptSource | undefined;

  constructor(options: HostOptions) {
    // Plain JavaScript holds no one to HostOptions: a host without its config or store is one line naming what is
    // missing, not a TypeError from deep inside building its tools (outside probe 70).
    checkHostParts(options);
    // A client that is none is one line here, not a 500 on every message once the log cannot record it.
    checkModelClients(options.model, options.fallbackModels);
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#newId = options.newId ?? (() => randomUUID());
    this.#envCredentials = secretsFromEnv(options.env ?? process.env);
    this.#factory = typeof options.agent === 'function' ? options.agent : undefined;
    // An SDK agent's adapter build that only its own loop runs whole: served here without its guardrails. Refused.
    const partial = onlyItsOwnLoop(options.agent);
    if (partial) throw new TypeError(partial.missing);
    this.#redactor = this.#learn(hostAgent({ ...options, agent: undefined }));
    this.#shared = this.#factory ? undefined : this.#serve(hostAgent({ ...options, agent: options.agent as Agent | undefined }));
    this.prompt = options.prompt ?? this.#shared?.prompt;
  }

  get redact(): Redactor {
    return this.#redactor;
  }

  get #redact(): Redactor {
    return this.#redactor;
  }

  /** The redactor, widened to an agent's secrets and tool names (an environment value that is a tool's name is no credential). */
  #learn(agent: Agent): Redactor {
    const before = this.#secrets.size + this.#toolNames.size;
    for (const secret of agent.secrets ?? []) this.#secrets.add(secret);
    for (const tool of agent.tools ?? []) this.#toolNames.add(tool.name);
    if (this.#redactor !== undefined && this.#secrets.size + this.#toolNames.size === before) return this.#redactor;
    const tools = [...this.#toolNames];
    const fromEnv = this.#envCredentials.filter((value) => secretGarbles(value, tools) === undefined);
    this.#redactor = createRedactor({ secrets: [...fromEnv, ...this.#secrets] });
    return this.#redactor;
  }

  /** The host's parts around one agent (the shorthand options already folded in); throws for an agent the config or the kernel refuses. */
  #serve(agent: Agent): Served {
    const redact = this.#learn(agent);
    const tools = hostToolExecutor(this.#options.config, agent, redact, this.#options.policyRules);
    return { agent, tools, prompt: this.#options.prompt ?? hostPrompt(this.#options.config, agent) };
  }

  /** The agent for a conversation being opened: the shared one, or the factory's, built for it. */
  async #agentFor(conversationId: string): Promise<Served> {
    if (this.#shared) return this.#shared;
    const factory = this.#factory!;
    let built: unknown;
    try {
      built = await factory({ clock: this.#clock, random: this.#options.random ?? Math.random, conversationId, loop: LOOPGATE_LOOP });
    } catch (error) {
      throw new Error(`the agent factory threw: ${(error as Error)?.message ?? String(error)}`);
    }
    if (built === null || typeof built !== 'object' || Array.isArray(built))
      throw new Error(`the agent factory returned ${built === null ? 'null' : Array.isArray(built) ? 'a list' : typeof built}, not an agent`);
    const partial = onlyItsOwnLoop(built);
    if (partial) throw new Error(`the agent factory built an agent this host would serve in part: ${partial.missing}`);
    return this.#serve(hostAgent({ ...this.#options, agent: built as Agent }));
  }

  /**
   * Posts a message and answers when the turn that took it has closed (or with
   * 202, queued, when no turn takes it: an inject to an idle conversation; a steer
   * whose turn was cancelled before it took it — it waits for the next message,
   * as stop means stop). Never rejects.
   */
  handle(conversationId: string, text: string, options: HandleOptions = {}): Promise<ResponseEnvelope> {
    const work = this.#handle(conversationId, text, options).catch(
      (error: unknown): ResponseEnvelope => ({
        conversationId,
        messageId: undefined,
        status: 500,
        turns: [],
        error: this.#redact(`internal error: ${(error as Error)?.message ?? String(error)}`),
      }),
    );
    this.#running.add(work);
    void work.finally(() => this.#running.delete(work));
    return work;
  }

  async #handle(conversationId: string, text: string, options: HandleOptions): Promise<ResponseEnvelope> {
    const fail = (status: number, error: string): ResponseEnvelope => ({ conversationId, messageId: undefined, status, turns: [], error: this.#redact(error) });
    if (typeof conversationId !== 'string' || !CONVERSATION_ID.test(conversationId) || DOTS_ONLY.test(conversationId)) {
      // Whatever the client sent: shown escaped, cut and redacted, in the text and the envelope alike.
      const shown = shownId(conversationId);
      return {
        ...fail(
          400,
          DOTS_ONLY.test(String(conversationId))
            ? `invalid conversation id "${shown}": "." and ".." alone are path segments a URL folds away; use another id`
            : `invalid conversation id "${shown}": use 1-200 letters, digits, ".", "_", ":" or "-"`,
        ),
        conversationId: this.#redact(shown),
      };
    }
    // Options from JavaScript (or cast) are checked before anything is stored: a signal the host cannot listen to
    // would fail the call after its turn ran, and a client told 500 retries it (outside probe 37, F6).
    if (options === null || typeof options !== 'object') return fail(400, `the options must be an object, got ${options === null ? 'null' : typeof options}`);
    if (options.signal !== undefined && !isAbortSignal(options.signal))
      return fail(400, `options.signal must be an AbortSignal, got ${shapeOfValue(options.signal)}; nothing was stored`);
    const secretInId = this.#secretInId(conversationId);
    if (secretInId) return { ...fail(400, secretInId), conversationId: this.#redact(conversationId) };
    if (typeof text !== 'string') return fail(400, `the message text must be a string, got ${typeof text}`);
    const lone = loneSurrogateAt(text);
    if (lone !== undefined)
      return fail(
        400,
        `the message text holds half a UTF-16 surrogate pair at offset ${lone} (no character; a provider would refuse it): send well-formed text; nothing was stored`,
      );
    const intent = options.intent ?? 'follow_up';
    if (!INTENTS.includes(intent)) return fail(400, `invalid intent ${JSON.stringify(intent)}: use follow_up, steer or inject`);
    const traced = options.traceparent === undefined ? undefined : parseTraceparent(options.traceparent);
    if (traced && 'error' in traced) return fail(400, traced.error);
    const messageId = options.messageId;
    if (messageId !== undefined) {
      if (typeof messageId !== 'string' || !CONVERSATION_ID.test(messageId))
        return fail(400, `invalid message id "${shownId(messageId)}": use 1-200 letters, digits, ".", "_", ":" or "-"`);
      if (this.#redact(messageId) !== messageId)
        return fail(400, `the message id holds a secret or part of one ("${this.#redact(messageId)}"): use an id that names no credential; nothing was stored`);
    }
    if (this.#shutdown.signal.aborted) return fail(503, 'the host is shutting down; the message was not stored');
    // A store any process may write needs no claim: the message is posted in this same call (a steer
    // reaches a running turn before anything else runs).
    const claim = this.#claimStore();
    if (claim) {
      try {
        await claim;
      } catch (error) {
        return fail(503, `the store cannot be written by this host: ${(error as Error).message}; the message was not stored`);
      }
    }
    if (this.#shutdown.signal.aborted) return fail(503, 'the host is shutting down; the message was not stored');
    if (options.signal?.aborted) return fail(499, 'the request was aborted before the message was posted; nothing was stored');

    this.#expireIdle();
    const c = this.#activate(conversationId);
    const { promise, resolve } = Promise.withResolvers<ResponseEnvelope>();
    const waiter: Waiter = {
      conversationId,
      id: messageId ?? this.#newId(),
      given: messageId !== undefined,
      retries: [],
      intent,
      text,
      caller: traced?.context,
      seq: undefined,
      resolve,
      settled: false,
    };
    if (c.holding && c.session) {
      // A turn of this conversation is running here: the message joins it now.
      this.#post(c, c.session, waiter);
      void c.session.flush().catch(() => undefined); // stored at once; a failure surfaces through the turn or the pump
    } else {
      c.queue.push(waiter);
    }
    this.#startPump(c);

    const onAbort = () => this.#abortWaiter(c, waiter);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await promise;
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Cancels the turn of `conversationId` running in this host (first reason wins).
   * Returns whether a turn was cancelled by this call. A turn another host runs on a
   * shared store is not reached: false.
   */
  cancel(conversationId: string, by: CancelSource = 'user', reason?: string): boolean {
    const session = this.#conversations.get(conversationId)?.session;
    if (!session) return false;
    return session.loop.cancel(by, reason ?? `cancelled by ${by}`);
  }

  /** Whether this host has work in flight for the conversation (a turn, or messages waiting for one). */
  isBusy(conversationId: string): boolean {
    const c = this.#conversations.get(conversationId);
    return c !== undefined && (c.pump !== undefined || c.queue.length > 0 || c.waiting.size > 0);
  }

  /** Resolves when the conversation (or, without an id, every conversation) has no work in flight here. */
  async idle(conversationId?: string): Promise<void> {
    for (;;) {
      const pumps =
        conversationId === undefined
          ? [...this.#conversations.values()].flatMap((c) => (c.pump ? [c.pump] : []))
          : [this.#conversations.get(conversationId)?.pump].filter((p): p is Promise<void> => p !== undefined);
      if (pumps.length === 0) return;
      await Promise.allSettled(pumps);
    }
  }

  /** Conversations held in memory: `open` (all), `idle` (kept for reuse), `busy` (with work in flight). */
  stats(): { readonly open: number; readonly idle: number; readonly busy: number } {
    return { open: this.#conversations.size, idle: this.#idle.size, busy: this.#conversations.size - this.#idle.size };
  }

  /**
   * The recovery sweep at start: opens every conversation in the store and closes
   * each turn a crash left open (as `interrupted`; see recovery.ts), instead of
   * waiting for the conversation's next message. Messages recovery returns to the
   * inbox stay there for the next turn. A conversation whose lock stays held is
   * being served by a live host: counted `busy`, not touched. Rejects only when
   * this host may not write the store at all (another process holds it).
   */
  async recoverAll(options: RecoverAllOptions = {}): Promise<RecoverySweep> {
    await this.#claimStore();
    const ids = await this.#options.store.listConversations();
    const recovered: ({ conversationId: string } & RecoveryReport)[] = [];
    const busy: string[] = [];
    const failed: { conversationId: string; error: string }[] = [];
    const lockWaitMs = options.lockWaitMs ?? 1_000;
    let next = 0;
    const worker = async () => {
      while (next < ids.length && !this.#shutdown.signal.aborted) {
        const id = ids[next++]!;
        const outcome = await this.#recoverOne(id, lockWaitMs);
        if (outcome === 'busy') busy.push(id);
        else if ('error' in outcome) failed.push({ conversationId: id, error: outcome.error });
        else if (outcome.recovered) recovered.push({ conversationId: id, ...outcome });
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 4, ids.length)) }, worker));
    return { conversations: ids.length, recovered, busy, failed };
  }

  async #recoverOne(conversationId: string, lockWaitMs: number): Promise<RecoveryReport | 'busy' | { error: string }> {
    const c = this.#activate(conversationId);
    const gaveUp = new AbortController();
    const stopTimer = new AbortController();
    void this.#clock.sleep(lockWaitMs, stopTimer.signal).then(() => {
      if (!stopTimer.signal.aborted) gaveUp.abort();
    });
    let release;
    try {
      release = await this.#options.store.lock(conversationId, AbortSignal.any([gaveUp.signal, this.#shutdown.signal]));
    } catch (error) {
      this.#settleIdle(c);
      return gaveUp.signal.aborted ? 'busy' : { error: this.#redact((error as Error).message) };
    } finally {
      stopTimer.abort();
    }
    try {
      const { recovery } = await this.#open(c);
      return recovery ?? { recovered: false, unknownCallIds: [], notRunCallIds: [], returnedIds: [] };
    } catch (error) {
      c.session = undefined;
      return { error: this.#redact((error as Error).message) };
    } finally {
      await release().catch(() => undefined);
      this.#settleIdle(c);
    }
  }

  // ---------------------------------------------------------------------------
  // Posting and running
  // ---------------------------------------------------------------------------

  #activate(conversationId: string): Conversation {
    let c = this.#conversations.get(conversationId);
    if (c === undefined) {
      c = { id: conversationId, session: undefined, queue: [], waiting: new Map(), holding: false, pump: undefined, lockWait: undefined, idleSince: 0 };
      this.#conversations.set(conversationId, c);
    }
    this.#idle.delete(conversationId);
    return c;
  }

  /** Appends the message to the log (once) and waits for its turn. A client's retry of a message already posted is not appended. */
  #post(c: Conversation, session: Session, waiter: Waiter): void {
    if (waiter.given && this.#repeated(c, session, waiter)) return;
    // An id the host gave is the message's own: one a client gave an earlier message (`m1`) is not taken from it.
    // Nor one a client gave a message still queued behind this one.
    const taken = (id: string) => session.log.positions.message(id) !== undefined || c.waiting.has(id) || c.queue.some((w) => w !== waiter && w.id === id);
    if (!waiter.given) for (let tries = 0; tries < 1_000 && taken(waiter.id); tries++) waiter.id = this.#newId();
    try {
      session.loop.send(waiter.text, { intent: waiter.intent, id: waiter.id });
    } catch (error) {
      this.#settle(waiter, { status: 500, error: `could not post the message: ${(error as Error).message}` });
      return;
    }
    waiter.seq = session.log.length - 1;
    c.waiting.set(waiter.id, waiter);
  }

  /**
   * A request whose client message id the conversation holds already (a retry): it
   * waits with the request still waiting on that message, waits for the turn that
   * takes it, or is answered with the closed turn that took it. False: a new message.
   */
  #repeated(c: Conversation, session: Session, waiter: Waiter): boolean {
    const live = c.waiting.get(waiter.id);
    const stored = session.log.positions.message(waiter.id);
    if (!live && !stored) return false;
    const same = live ?? stored!;
    if (stored?.source !== undefined && stored.source !== 'user') {
      this.#settle(waiter, { status: 422, error: `the message id "${waiter.id}" names a message the loop wrote, not a client's; nothing was stored` });
      return true;
    }
    if (same.intent !== waiter.intent || this.#redact(same.text) !== this.#redact(waiter.text)) {
      this.#settle(waiter, {
        status: 422,
        error: `the message id "${waiter.id}" names another message in this conversation (its text or intent differ); nothing was stored`,
      });
      return true;
    }
    waiter.seq = live?.seq ?? stored!.seq;
    if (live) {
      waiter.retryOf = live;
      live.retries.push(waiter);
      return true;
    }
    const taken = session.log.positions.inboxState(waiter.id) === 'taken' ? lastTaking(session.log, waiter.id) : undefined;
    if (taken?.outcome !== undefined && taken.closedAt < session.log.flushedUpTo) {
      // Its turn has closed and the close is stored: that turn is the answer.
      const summary = summarizeLoggedTurn(session.log, taken.turn, taken.outcome, this.#redact, this.#options.config.prices, this.#clock.now());
      this.#settle(waiter, {
        status: httpStatusFor(taken.outcome),
        delivery: taken.delivery,
        turns: [summary],
        ...(summary.reply !== undefined ? { reply: summary.reply } : {}),
      });
      return true;
    }
    // Waiting in the inbox, taken by the turn running now, or by a turn whose close is not stored yet (its write
    // may still fail): answered as the first request would have been, when the drain reports that turn.
    c.waiting.set(waiter.id, waiter);
    return true;
  }

  #startPump(c: Conversation): void {
    if (c.pump) return;
    const pump = this.#pump(c).finally(() => {
      if (c.pump === pump) c.pump = undefined;
      // A message queued after the pump's last look at the queue, before this ran, still needs a pump.
      if (c.queue.length > 0) this.#startPump(c);
      else this.#settleIdle(c);
      this.#followers.notify(c.id); // its followers may be done
    });
    c.pump = pump;
  }

  /** While messages wait for the lock: take it, post them, run turns, let go. */
  async #pump(c: Conversation): Promise<void> {
    try {
      while (c.queue.length > 0) {
        const wait = new AbortController();
        c.lockWait = wait;
        let release;
        try {
          release = await this.#options.store.lock(c.id, AbortSignal.any([wait.signal, this.#shutdown.signal]));
        } catch (error) {
          // Everyone who waited withdrew (and whoever came since tries again), or the host or store is closing.
          if (wait.signal.aborted && !this.#shutdown.signal.aborted) continue;
          const why = this.#shutdown.signal.aborted ? 'the host is shutting down' : `could not take the conversation lock: ${(error as Error).message}`;
          for (const waiter of c.queue.splice(0)) this.#settle(waiter, { status: 503, error: `${why}; the message was not stored` });
          return;
        } finally {
          c.lockWait = undefined;
        }
        try {
          await this.#hold(c, release.lost);
        } finally {
          c.holding = false;
          await release().catch(() => undefined);
        }
      }
    } catch (error) {
      // A bug in the host: answer everyone, and reopen from the store next time.
      c.holding = false;
      const why = `internal error: ${(error as Error)?.message ?? String(error)}`;
      for (const waiter of c.queue.splice(0)) this.#settle(waiter, { status: 500, error: `${why}; the message was not stored` });
      this.#dropSession(c, why);
    }
  }

  /**
   * With the lock held: open the log, post what waited, drain while requests wait for turns. `lost` (where the store
   * can tell): the store let go of the lock meanwhile — another host may take it — so the session writes nothing
   * more, its running turn is told to stop, and the next hold reopens the conversation from the store.
   */
  async #hold(c: Conversation, lost?: AbortSignal): Promise<void> {
    let session: Session;
    try {
      ({ session } = await this.#open(c));
    } catch (error) {
      c.session = undefined;
      const why = `cannot open conversation "${c.id}": ${(error as Error).message}`;
      const status = openFailureStatus(error);
      for (const waiter of c.queue.splice(0)) this.#settle(waiter, { status, error: `${why}; the message was not stored` });
      return;
    }
    if (!lost) return this.#holdOpen(c, session);
    const onLost = () => this.#lockLost(session);
    if (lost.aborted) onLost();
    else lost.addEventListener('abort', onLost, { once: true });
    try {
      await this.#holdOpen(c, session);
    } finally {
      lost.removeEventListener('abort', onLost);
      // Never reused: what it holds in memory may be ahead of the store, or behind another host's writes.
      if (lost.aborted && c.session === session) this.#dropSession(c, LOCK_LOST, 'store');
    }
  }

  /** The store let go of the lock a session was written under: it writes nothing more, and its running turn stops. */
  #lockLost(session: Session): void {
    session.fence(LOCK_LOST);
    session.loop.cancel('shutdown', LOCK_LOST);
  }

  async #holdOpen(c: Conversation, session: Session): Promise<void> {
    c.holding = true;
    for (const waiter of c.queue.splice(0)) this.#post(c, session, waiter);
    try {
      await session.flush(); // the messages are stored before any turn starts: never lost
    } catch (error) {
      this.#dropSession(c, `could not store the message: ${(error as Error).message}`, 'store');
      return;
    }
    let fruitless = 0;
    for (;;) {
      if (this.#needsTurn(c, session)) {
        const waitingBefore = [...c.waiting.keys()];
        const results = await session.loop.drain();
        for (const result of results) {
          this.#observe((o) => o.turnClosed?.(c.id, result));
          this.#turnClosed(c, session.log, result.turn, result.outcome);
        }
        // A drain that answers nobody may be taking older messages first (one a cancel returned); two in a row
        // means the loop will not take these messages (a turn failing before it takes its input): stop, answer.
        fruitless = waitingBefore.some((id) => !c.waiting.has(id)) ? 0 : fruitless + 1;
        if (fruitless >= 2 && results.length > 0) {
          const last = results[results.length - 1]!;
          this.#settleQueued(c, session, `no turn took the message (the last turn ended ${outcomeLabel(last.outcome)})`);
        }
        // Stop means stop: a steer for the turn just cancelled, which it never took, starts no turn of its
        // own — it waits in the inbox for the next message (as the loop's drain ends at a cancel).
        if (results[results.length - 1]?.outcome.kind === 'cancelled') this.#settleSteers(c, session);
        const broken = results.find((r) => r.outcome.kind === 'failed' && r.outcome.reason === 'persistence');
        if (broken) {
          // The log in memory is ahead of the store: answer who still waits, reopen from the store next time.
          this.#dropSession(c, `the store failed during turn ${broken.turn}: ${(broken.outcome as { detail?: string }).detail ?? 'write failed'}`, 'store');
          return;
        }
        if (results.length === 0) {
          // The loop runs no more turns (it is shutting down): store what was posted, answer who waits.
          try {
            await session.flush();
          } catch (error) {
            this.#dropSession(c, `could not store the message: ${(error as Error).message}`, 'store');
            return;
          }
          this.#settleQueued(c, session, 'the host is shutting down');
        }
        continue;
      }
      if (session.log.unflushed().length > 0) {
        const stored = session.log.flushedUpTo;
        try {
          await session.flush(); // posted messages no turn took are stored before their requests are answered
        } catch (error) {
          this.#dropSession(c, `could not store the message: ${(error as Error).message}`, 'store');
          return;
        }
        // A flush that answered stored but stored nothing would have this loop ask again for ever, on microtasks
        // alone (no timer or I/O could run): a writer that broke its barrier. Reopen from the store instead.
        if (session.log.flushedUpTo === stored && session.log.unflushed().length > 0) {
          this.#dropSession(
            c,
            `could not store the message: the write said it was stored, but the store holds ${stored} of ${session.log.length} events`,
            'store',
          );
          return;
        }
        continue; // more may have been posted while the flush ran
      }
      // Synchronously from the last check: what is still posted waits for a later turn.
      this.#settleQueued(c, session);
      c.holding = false;
      return;
    }
  }

  /** Does a request wait for a turn that would take its message (a waking message still pending)? */
  #needsTurn(c: Conversation, session: Session): boolean {
    for (const waiter of c.waiting.values()) {
      if (waiter.intent !== 'inject' && session.log.positions.inboxState(waiter.id) === 'pending') return true;
    }
    return false;
  }

  /** A turn closed: answer the requests whose messages it took. */
  #turnClosed(c: Conversation, log: EventLog, turn: number, outcome: Outcome): void {
    if (c.waiting.size === 0) return;
    const taken = messagesTakenBy(log, turn);
    if (taken.size === 0) return;
    let summary: TurnSummary | undefined;
    const unstored = outcome.kind === 'failed' && outcome.reason === 'persistence';
    for (const [id, { delivery, seq }] of taken) {
      const waiter = c.waiting.get(id);
      if (!waiter) continue;
      // The turn took it before the store refused the write that held it: it is not stored anywhere.
      if (unstored && waiter.seq !== undefined && waiter.seq >= log.flushedUpTo) {
        c.waiting.delete(id);
        this.#settle(waiter, { status: 503, error: `${this.#redact(outcome.detail ?? 'the store refused a write')}; the message was not stored` });
        continue;
      }
      summary ??= summarizeLoggedTurn(log, turn, outcome, this.#redact, this.#options.config.prices, this.#clock.now());
      c.waiting.delete(id);
      this.#settle(waiter, {
        status: httpStatusFor(outcome),
        delivery,
        turns: [summary],
        ...(summary.reply !== undefined ? { reply: summary.reply } : {}),
        // The message is stored, and the store holds no answer the model gave after taking it (its taking was
        // refused, or recovery will give it back as unseen): the next turn runs it (docs/storage.md). Said, so a
        // client does not retry the 503 and run it twice.
        ...(unstored && !answeredInStore(log, turn, seq)
          ? { error: `${this.#redact(outcome.detail ?? 'the store refused a write')}; the message is stored and the next turn takes it` }
          : {}),
      });
    }
  }

  /** Requests whose messages are stored but no turn took: 202 (503 with `why` when the host is stopping). */
  #settleQueued(c: Conversation, session: Session, why?: string): void {
    for (const waiter of c.waiting.values()) {
      if (waiter.seq === undefined || waiter.seq >= session.log.flushedUpTo) continue; // not stored yet: the pump flushes first
      c.waiting.delete(waiter.id);
      this.#settle(
        waiter,
        why === undefined
          ? { status: 202, delivery: 'queued' }
          : { status: 503, delivery: 'queued', error: `${why}; the message is stored and the next turn takes it` },
      );
    }
  }

  /** Answers the stored steers no turn took: 202, queued for the next turn. */
  #settleSteers(c: Conversation, session: Session): void {
    for (const waiter of c.waiting.values()) {
      if (waiter.intent !== 'steer' || waiter.seq === undefined || waiter.seq >= session.log.flushedUpTo) continue;
      if (session.log.positions.inboxState(waiter.id) !== 'pending') continue;
      c.waiting.delete(waiter.id);
      this.#settle(waiter, { status: 202, delivery: 'queued' });
    }
  }

  /** Forgets the session (reopened from the store next time); answers the requests still waiting on it. */
  #dropSession(c: Conversation, why: string, cause?: 'store'): void {
    const session = c.session;
    c.session = undefined;
    if (cause === 'store') this.#storeRefused.add(c.id);
    c.holding = false;
    for (const waiter of c.waiting.values()) {
      const stored = session !== undefined && waiter.seq !== undefined && waiter.seq < session.log.flushedUpTo;
      this.#settle(waiter, {
        status: 503,
        ...(stored ? { delivery: 'queued' as const } : {}),
        error: `${why}; ${stored ? 'the message is stored and the next turn takes it' : 'the message was not stored'}`,
      });
    }
    c.waiting.clear();
  }

  #abortWaiter(c: Conversation, waiter: Waiter): void {
    if (waiter.settled) return;
    const log = c.session?.log;
    // Stored once the store took the write holding it — not when the log in memory merely holds it (its write may
    // still be refused): a request that goes away before then says nothing of it; the request that stays learns it.
    const stored = log !== undefined && waiter.seq !== undefined && waiter.seq < log.flushedUpTo;
    if (waiter.retryOf) {
      // A retry waiting with the request that posted the message: only this request goes.
      const others = waiter.retryOf.retries;
      others.splice(others.indexOf(waiter), 1);
      this.#settle(
        waiter,
        stored
          ? { status: 499, delivery: deliveryNow(log, waiter.id), error: 'the request was aborted; the message is stored (posted by an earlier request)' }
          : { status: 499, error: 'the request was aborted; the message is not stored yet (the request that posted it waits for its answer)' },
      );
      return;
    }
    if (waiter.retries.length > 0 && c.waiting.get(waiter.id) === waiter) {
      // Another request for the same message still waits: it takes this one's place; the turn goes on.
      const [next, ...rest] = waiter.retries.splice(0);
      next!.retryOf = undefined;
      next!.retries.push(...rest);
      for (const r of rest) r.retryOf = next;
      c.waiting.set(waiter.id, next!);
      this.#settle(
        waiter,
        stored
          ? { status: 499, delivery: deliveryNow(log, waiter.id), error: 'the request was aborted; the message is stored (a retry of it waits for its answer)' }
          : { status: 499, error: 'the request was aborted; the message is not stored yet (a retry of it waits for its answer)' },
      );
      return;
    }
    const queued = c.queue.indexOf(waiter);
    if (queued >= 0) {
      c.queue.splice(queued, 1);
      if (c.queue.length === 0) c.lockWait?.abort(); // nobody waits for the lock any more
      this.#settle(waiter, { status: 499, error: 'the request was aborted before the message was posted; nothing was stored' });
      return;
    }
    if (!log || waiter.seq === undefined) return;
    const state = log.positions.inboxState(waiter.id);
    if (state === 'taken') {
      // The running turn took it: cancel that turn as the user; the request answers when it closes.
      c.session!.loop.cancel('user', 'the request was aborted');
    } else if (state === 'pending' && waiter.seq < log.flushedUpTo) {
      c.waiting.delete(waiter.id);
      this.#settle(waiter, { status: 499, delivery: 'queued', error: 'the request was aborted; the message is stored and the next turn takes it' });
    } else if (state === 'pending') {
      // Not stored yet: whether it will be is the write's to say (queued once stored, not stored if refused).
      waiter.aborted = true;
    }
  }

  #settle(waiter: Waiter, answer: { status: number; delivery?: Delivery; turns?: readonly TurnSummary[]; reply?: string; error?: string }): void {
    if (waiter.settled) return;
    waiter.settled = true;
    // Requests that repeated this one's message hear the same (each its own 499 if its client went away).
    for (const retry of waiter.retries.splice(0)) this.#settle(retry, answer);
    // A client gone before its message was stored hears what became of it: 499, stored or not. A turn that
    // took the message meanwhile is its answer, as for any request (host-answers-follow-outcomes).
    if (waiter.aborted && answer.turns === undefined) {
      const stored = answer.delivery !== undefined;
      answer = {
        ...answer,
        status: 499,
        error: `the request was aborted; ${stored ? 'the message is stored and the next turn takes it' : (answer.error ?? 'the message was not stored')}`,
      };
    }
    const retryAfterSeconds = answer.turns?.at(-1)?.retryAfterSeconds;
    waiter.resolve({
      conversationId: waiter.conversationId,
      ...answer,
      turns: answer.turns ?? [],
      ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
      ...(answer.error !== undefined ? { error: this.#redact(answer.error) } : {}),
      messageId: waiter.seq !== undefined ? waiter.id : undefined,
    });
  }

  // ---------------------------------------------------------------------------
  // Sessions
  // ---------------------------------------------------------------------------

  /** Opens (or returns the open) conversation log, recovering a turn a crash left open. Call with the lock held. */
  async #open(c: Conversation): Promise<{ session: Session; recovery: RecoveryReport | undefined }> {
    const store = this.#options.store;
    const cached = c.session;
    // Hosts sharing a store (PostgreSQL) take turns on a conversation: if another host
    // appended since this one last held the lock, the cached log is stale; reopen.
    if (cached && (await store.read(c.id, cached.log.flushedUpTo)).length === 0) return { session: cached, recovery: undefined };
    c.session = undefined;
    // From the latest snapshot and the events after it, when the store keeps one that checks out; else whole.
    const opened = await openLog(store, c.id, this.#clock);
    const log = opened.log;
    if (opened.restoredFrom !== undefined) this.#observe((o) => o.snapshot?.(c.id, { restored: opened.restoredFrom! }));
    if (opened.rejected !== undefined) this.#observe((o) => o.snapshot?.(c.id, { rejected: opened.rejected! }));
    this.#observe((o) => o.opened?.(c.id, log));
    let loop: AgentLoop | undefined;
    const fenced: { why?: string } = {};
    const flush = this.#flushFor(c.id, log, opened.restoredFrom ?? 0, () => loop, fenced);
    const served = await this.#agentFor(c.id);
    const refused = this.#storeRefused.delete(c.id);
    const sideEffectOf = (name: string): SideEffect | undefined => served.agent.tools?.find((t) => t.name === name)?.sideEffect;
    const recovery = recoverConversation(log, { sideEffectOf, ...(refused ? { cause: 'store' as const } : {}) });
    try {
      await flush();
    } catch (error) {
      throw new RecoveryWriteRefused(error);
    }
    // A turn a dead process left open never reached its trace's `finally`: its trace is exported now, once its close
    // is stored. (A turn this host dropped after a refused write was traced when its loop ended it: not twice.)
    if (recovery.recovered && !refused) this.#exportRecovered(c.id, log, recovery, sideEffectOf);
    loop = this.#loop(c, log, flush, served);
    const session: Session = {
      log,
      loop,
      flush,
      fence: (why) => {
        fenced.why ??= why;
      },
    };
    c.session = session;
    this.#observe((o) => o.started?.(c.id, session.loop));
    return { session, recovery };
  }

  #exportRecovered(conversationId: string, log: EventLog, recovery: RecoveryReport, sideEffectOf: (name: string) => SideEffect | undefined): void {
    const exporter = this.#options.exporter;
    if (!exporter) return;
    try {
      const trace = recoveryTrace(log, recovery, {
        conversationId,
        clock: this.#clock,
        redact: this.#redact,
        w3c: { traceId: randomTraceId(), sampled: true, newSpanId: randomSpanId },
        sideEffectOf,
      });
      if (trace) void Promise.resolve(exporter.export(trace)).catch(() => undefined);
    } catch {
      // An exporter failure never fails the host.
    }
  }

  #observe(tell: (observer: HostObserver) => void): void {
    const observer = this.#options.observer;
    if (!observer) return;
    try {
      tell(observer);
    } catch {
      // An observer never breaks the host.
    }
  }

  #flushFor(
    conversationId: string,
    log: EventLog,
    snapshotAt: number,
    loopOf: () => AgentLoop | undefined,
    fenced: { readonly why?: string },
  ): (durability?: Durability) => Promise<void> {
    const store = this.#options.store;
    const every = this.#options.config.snapshots?.every ?? 0;
    const writer = new ConversationWriter(store, conversationId, log, {
      guard: () => {
        if (this.#halted) throw new Error('the host was halted: it writes nothing more');
        if (fenced.why !== undefined) throw new Error(fenced.why);
      },
      // What is stored is told to the conversation's followers (follow.ts).
      onStored: () => this.#followers.notify(conversationId, log),
      ...(store.readSnapshot && every > 0
        ? {
            snapshots: {
              every,
              from: snapshotAt,
              take: () => {
                const loop = loopOf();
                if (!loop) return undefined; // recovery's own write: the loop is not built yet
                const snapshot = encodeSnapshot(snapshotOf(loop, log));
                this.#observe((o) => o.snapshot?.(conversationId, { written: snapshot.upTo }));
                return snapshot;
              },
              failed: (error: unknown) => this.#observe((o) => o.snapshot?.(conversationId, { failed: (error as Error)?.message ?? String(error) })),
            },
          }
        : {}),
    });
    const flush = (durability?: Durability) => writer.persist(durability);
    // While someone follows, what the loop appends (streamed deltas) is stored at the next tick, not at the step's end.
    let scheduled = false;
    log.subscribe(() => {
      if (scheduled || !this.#followers.has(conversationId)) return;
      scheduled = true;
      setImmediate(() => {
        scheduled = false;
        flush('step').catch(() => undefined); // a failed write surfaces through the loop's own next write
      });
    });
    return flush;
  }

  /** A conversation with nothing in flight becomes idle: kept for reuse within the `sessions` bound, or forgotten. */
  #settleIdle(c: Conversation): void {
    if (c.pump || c.queue.length > 0 || c.waiting.size > 0 || this.#conversations.get(c.id) !== c) return;
    if (!c.session) {
      this.#conversations.delete(c.id);
      this.#idle.delete(c.id);
      return;
    }
    c.idleSince = this.#clock.now();
    this.#idle.delete(c.id);
    this.#idle.set(c.id, c);
    this.#expireIdle();
  }

  /** Closes idle sessions beyond `sessions.maxIdle` (least recently used first) or idle too long. */
  #expireIdle(): void {
    const { maxIdle, idleTimeoutMs } = this.#options.config.sessions;
    const now = this.#clock.now();
    for (const [id, c] of this.#idle) {
      if (this.#idle.size <= maxIdle && now - c.idleSince < idleTimeoutMs) break;
      this.#idle.delete(id);
      this.#conversations.delete(id);
    }
  }

  /** The store's writer claim, or undefined for a store that needs none. */
  #claimStore(): Promise<void> | undefined {
    const store = this.#options.store;
    if (!store.claimWriter) return undefined;
    if (this.#storeClaim) return this.#storeClaim;
    const claim = store.claimWriter({ waitMs: this.#options.storeClaimWaitMs ?? 0, signal: this.#shutdown.signal });
    this.#storeClaim = claim;
    // Refused: the next request tries again (the other process may have stopped).
    claim.catch(() => {
      if (this.#storeClaim === claim) this.#storeClaim = undefined;
    });
    return claim;
  }

  #loop(c: Conversation, log: EventLog, flush: Session['flush'], served: Served): AgentLoop {
    const o = this.#options;
    const turns = new WeakMap<Tracer, number>();
    const tracing: TurnTracing = {
      begin: (turn) => {
        const tracer = new Tracer({
          clock: this.#clock,
          traceId: `${c.id}:${turn}`,
          mode: o.config.trace.mode,
          redact: this.#redact,
          w3c: this.#traceContext(c, log),
        });
        turns.set(tracer, turn);
        return tracer;
      },
      finish: (tracer, outcome) => {
        let record;
        try {
          record = tracer.end();
        } catch {
          record = tracer.end(); // dev mode threw on a lifecycle violation; the record is complete
        }
        try {
          void Promise.resolve(o.exporter?.export(record)).catch(() => undefined);
        } catch {
          // An exporter failure never fails the turn.
        }
        // A failed write: this log is ahead of the store. Post nothing more into it;
        // new messages wait for the lock and a log reopened from the store.
        if (outcome.kind === 'failed' && outcome.reason === 'persistence' && c.session?.log === log) c.holding = false;
        // The turn is closed and stored: its requests are answered now, not when the drain ends.
        const turn = turns.get(tracer);
        if (turn !== undefined && c.session?.log === log) {
          try {
            this.#turnClosed(c, log, turn, outcome);
          } catch {
            // Answered after the drain instead.
          }
        }
        return record;
      },
    };
    const wrap = o.wrapLoopDeps ?? ((deps: LoopDeps) => deps);
    const loop = new AgentLoop(
      wrap(
        loopDeps({
          log,
          model: o.model,
          ...(o.fallbackModels ? { fallbackModels: o.fallbackModels } : {}),
          agent: served.agent,
          tools: served.tools,
          prompt: served.prompt,
          clock: this.#clock,
          persist: flush,
          tracing,
          redact: this.#redact,
          config: loopConfigFrom(o.config),
          ...(o.random ? { random: o.random } : {}),
          newId: this.#newId,
          signals: { shutdown: this.#shutdown.signal },
          conversation: c.id,
        }),
      ),
    );
    return loop;
  }

  /**
   * The W3C trace of a turn about to start: the caller's, from the first message
   * waiting in the inbox whose request gave a traceparent; else a new trace.
   */
  #traceContext(c: Conversation, log: EventLog): W3cTracing {
    let caller: TraceContext | undefined;
    if (c.waiting.size > 0) {
      for (const message of log.positions.pending()) {
        caller = c.waiting.get(message.id)?.caller;
        if (caller) break;
      }
    }
    return {
      traceId: caller?.traceId ?? randomTraceId(),
      ...(caller?.parentSpanId !== undefined ? { parentSpanId: caller.parentSpanId } : {}),
      sampled: caller?.sampled ?? true,
      newSpanId: randomSpanId,
    };
  }

  /**
   * Why a conversation id cannot be used, when it holds a secret (a configured one, in any form, half of one
   * or more, or a key shape): the id is the store's key and every span's, so it would be stored and exported
   * as it is.
   */
  #secretInId(conversationId: string): string | undefined {
    const redacted = this.#redact(conversationId);
    if (redacted !== conversationId)
      return `the conversation id holds a secret or part of one ("${redacted}"): use an id that names no credential; nothing was stored`;
    return undefined;
  }

  /**
   * Follows a conversation: its stored events from `from` as an async iterable,
   * then each new one as soon as it is stored, until this host has no more work in
   * flight for it (or `signal` aborts; `keepOpen` waits for later turns too).
   * Every event passes the redactor. Rejects (`FollowError`) for an invalid
   * conversation id or a `from` past the end. See follow.ts.
   */
  follow(conversationId: string, options: FollowOptions = {}): Promise<AsyncIterable<AnyEvent>> {
    if (typeof conversationId !== 'string' || !CONVERSATION_ID.test(conversationId) || DOTS_ONLY.test(conversationId))
      return Promise.reject(new FollowError(`invalid conversation id "${shownId(conversationId)}"`));
    const secretInId = this.#secretInId(conversationId);
    if (secretInId) return Promise.reject(new FollowError(secretInId));
    const store = this.#options.store;
    return followConversation(
      {
        read: async (id, from) => decodeRecords(await store.read(id, from), `${store.describe} conversation "${id}"`, from),
        subscribe: (id, listener) => {
          const unsubscribe = this.#followers.subscribe(id, listener);
          // A turn running here may hold events not stored yet: store them now, so the follower gets them.
          const c = this.#conversations.get(id);
          if (c?.holding && c.session && c.session.log.unflushed().length > 0) c.session.flush().catch(() => undefined);
          return unsubscribe;
        },
        busy: (id) => this.isBusy(id),
        closing: () => this.closing,
        redact: this.#redact,
      },
      conversationId,
      options,
    );
  }

  /** Reads a conversation's events (for replay and inspection). */
  async events(conversationId: string) {
    const records = await this.#options.store.read(conversationId);
    return decodeRecords(records, `${this.#options.store.describe} conversation "${conversationId}"`);
  }

  /**
   * Stops as if the process died, for crash tests and the harness: from now on the
   * host writes nothing to the store, running turns are cancelled (their closing
   * writes fail) and new requests are refused. The store stays open, so a new host
   * can reopen it and recover what this one left.
   */
  halt(): void {
    this.#halted = true;
    this.#stop('the host was halted');
  }

  /** `close()` was called: the host stores nothing more (followers end; see follow.ts, sse.ts). */
  get closing(): boolean {
    return this.#closing !== undefined;
  }

  /** Cancels running turns (as a shutdown), waits for them to close, closes the store. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#stop('the host is shutting down');
      await Promise.allSettled([...this.#running]);
      await this.idle();
      // Nothing more will be stored: followers (one kept open too) end with what was.
      this.#followers.notifyAll();
      try {
        await this.#options.exporter?.shutdown?.(); // what the exporter buffered is sent
      } catch {
        // An exporter failure never fails the host.
      }
      await this.#options.store.close();
    })();
    return this.#closing;
  }

  #stop(reason: string): void {
    if (!this.#shutdown.signal.aborted) this.#shutdown.abort(reason);
    for (const c of this.#conversations.values()) {
      c.lockWait?.abort();
      c.session?.loop.shutdown(reason);
    }
  }
}

/** Messages a turn took, with how: at its start (`turn`) or into a later step of the running turn (`joined`). */
function messagesTakenBy(log: EventLog, turn: number): Map<string, { readonly delivery: Delivery; readonly seq: number }> {
  const length = log.length;
  let start = length - 1;
  for (; start >= 0; start--) {
    const e = log.at(start)!;
    if (isKnown(e) && e.type === 'turn.opened' && (e as Extract<LogEvent, { type: 'turn.opened' }>).payload.turn === turn) break;
  }
  const taken = new Map<string, { readonly delivery: Delivery; readonly seq: number }>();
  if (start < 0) return taken;
  let stepped = false;
  for (let i = start; i < length; i++) {
    const e = log.at(i)!;
    if (!isKnown(e)) continue;
    const event = e as LogEvent;
    if (event.type === 'model.request' && event.payload.turn === turn) stepped = true;
    else if (event.type === 'user.message' && event.payload.turn === turn && !taken.has(event.payload.id))
      taken.set(event.payload.id, { delivery: stepped ? 'joined' : 'turn', seq: e.seq });
    else if (event.type === 'turn.closed' && event.payload.turn === turn) break;
  }
  return taken;
}

/** The identity and deployment fragments from config; callers may register more. */
export function configPrompt(config: HostConfig): PromptAssembler {
  const prompt = new PromptAssembler();
  prompt.register({ id: 'identity', priority: PRIORITY.identity, text: config.prompt.identity });
  if (config.prompt.deployment) prompt.register({ id: 'deployment', priority: PRIORITY.deployment, text: config.prompt.deployment });
  return prompt;
}

/** The last turn that took a message, how, and its outcome once it has closed. */
function lastTaking(log: EventLog, id: string): { turn: number; delivery: Delivery; outcome: Outcome | undefined; closedAt: number } | undefined {
  let taken: number | undefined;
  for (let i = log.length - 1; i >= 0; i--) {
    const e = log.at(i)!;
    if (isKnown(e) && e.type === 'user.message' && (e as Extract<LogEvent, { type: 'user.message' }>).payload.id === id) {
      taken = i;
      break;
    }
  }
  if (taken === undefined) return undefined;
  const turn = (log.at(taken) as Extract<LogEvent, { type: 'user.message' }>).payload.turn;
  let stepped = false;
  for (let i = taken - 1; i >= 0; i--) {
    const e = log.at(i)!;
    if (!isKnown(e)) continue;
    const event = e as LogEvent;
    if (event.type === 'model.request' && event.payload.turn === turn) stepped = true;
    if (event.type === 'turn.opened' && event.payload.turn === turn) break;
  }
  let outcome: Outcome | undefined;
  let closedAt = Number.POSITIVE_INFINITY;
  for (let i = taken + 1; i < log.length; i++) {
    const e = log.at(i)!;
    if (isKnown(e) && e.type === 'turn.closed' && (e as Extract<LogEvent, { type: 'turn.closed' }>).payload.turn === turn) {
      outcome = (e as Extract<LogEvent, { type: 'turn.closed' }>).payload.outcome as Outcome;
      closedAt = e.seq;
      break;
    }
  }
  return { turn, delivery: stepped ? 'joined' : 'turn', outcome, closedAt };
}

/**
 * Does the store hold an assistant message of `turn` after the taking at `takenAt`? Recovery gives back the
 * messages a turn cut short took after its last assistant message (recovery.ts, returnUnseenMessages); a taking the
 * store never got is pending there anyway.
 */
function answeredInStore(log: EventLog, turn: number, takenAt: number): boolean {
  if (takenAt >= log.flushedUpTo) return false;
  for (let seq = takenAt + 1; seq < log.flushedUpTo; seq++) {
    const e = log.at(seq);
    if (e && isKnown(e) && e.type === 'assistant.message' && (e as Extract<LogEvent, { type: 'assistant.message' }>).payload.turn === turn) return true;
  }
  return false;
}

/** How a stored message stands for a request that goes away: waiting (queued), or taken by a turn. */
function deliveryNow(log: EventLog | undefined, id: string): Delivery {
  if (!log || log.positions.inboxState(id) !== 'taken') return 'queued';
  return lastTaking(log, id)?.delivery ?? 'queued';
}

/** An AbortSignal, or what quacks like one as far as the host listens (another realm's, a polyfill's). */
function isAbortSignal(value: unknown): value is AbortSignal {
  if (value instanceof AbortSignal) return true;
  const v = value as Partial<AbortSignal> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.aborted === 'boolean' &&
    typeof v.addEventListener === 'function' &&
    typeof v.removeEventListener === 'function'
  );
}

function shapeOfValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object')
    return `an object without addEventListener (${
      Object.keys(value as object)
        .slice(0, 4)
        .join(', ') || 'no keys'
    })`;
  return typeof value;
}
