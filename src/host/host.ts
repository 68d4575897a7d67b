/**
 * The production host (seed 004 rule 2): everything the loop takes for granted.
 *
 * - resolve the conversation, then take its lock (one turn at a time, FIFO);
 * - open its log from the store, recovering a turn a crash left open;
 * - persist every event the loop writes (one batch per flush, serialized);
 * - end and export each turn's trace in a `finally`;
 * - wrap the turn results in a response envelope for an HTTP handler.
 *
 * The harness is a second host over the same loop with other dependencies.
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
  type CheckpointHook,
  type ClaimPolicy,
  type Compactor,
  type PromptSource,
  type TurnTracing,
  PRIORITY,
  PromptAssembler,
  createRedactor,
  secretsFromEnv,
  type Redactor,
  createToolExecutor,
  type PolicyRule,
  ToolRegistry,
  type AnyToolDeclaration,
  type Approver,
  type ToolExecutor,
  standardLayers,
  Tracer,
  type TraceExporter,
} from '../kernel/index.ts';
import type { EventStore } from '../stores/event-store.ts';
import { loopConfigFrom, type HostConfig } from './config.ts';
import { httpStatusFor, summarizeTurn, type ResponseEnvelope } from './envelope.ts';
import { serializedFlush } from './flush.ts';
import { recoverConversation } from './recovery.ts';
import { checkConfiguredToolNames, selectedMode } from './tool-names.ts';

export interface HostOptions {
  readonly config: HostConfig;
  readonly store: EventStore;
  readonly model: ModelClient;
  readonly fallbackModels?: readonly ModelClient[];
  readonly tools?: readonly AnyToolDeclaration[];
  /** Policy rules beyond the config's `tools.ask`. */
  readonly policyRules?: readonly PolicyRule[];
  readonly approver?: Approver;
  readonly clock?: Clock;
  readonly exporter?: TraceExporter;
  readonly prompt?: PromptSource;
  readonly compactor?: Compactor;
  readonly claim?: ClaimPolicy;
  readonly checkpoints?: readonly CheckpointHook[];
  readonly errorHandlers?: readonly ModelErrorHandler[];
  /** Exact values never to be written anywhere (added to those found in the environment). */
  readonly secrets?: readonly string[];
  readonly random?: () => number;
  readonly newId?: () => string;
}

export interface HandleOptions {
  readonly intent?: Intent;
  /** Aborting it cancels the running turn (as the user). */
  readonly signal?: AbortSignal;
}

interface Session {
  readonly log: EventLog;
  readonly loop: AgentLoop;
  readonly flush: () => Promise<void>;
}

const CONVERSATION_ID = /^[A-Za-z0-9._:-]{1,200}$/;

export class AgentHost {
  readonly #options: HostOptions;
  readonly #clock: Clock;
  readonly #redact: Redactor;
  readonly #tools: ToolExecutor;
  readonly #sessions = new Map<string, Session>();
  readonly #shutdown = new AbortController();
  readonly #running = new Set<Promise<unknown>>();
  /** The system prompt's fragments: register more (tool guidance, dynamic context) at any time. */
  readonly prompt: PromptSource;

  constructor(options: HostOptions) {
    this.#options = options;
    this.prompt = options.prompt ?? configPrompt(options.config);
    this.#clock = options.clock ?? systemClock;
    this.#redact = createRedactor({ secrets: [...secretsFromEnv(), ...(options.secrets ?? [])] });
    this.#tools = buildToolExecutor(options, this.#redact);
  }

  get redact(): Redactor {
    return this.#redact;
  }

  /** Posts a message and runs the conversation until its inbox is empty. Never rejects. */
  handle(conversationId: string, text: string, options: HandleOptions = {}): Promise<ResponseEnvelope> {
    const work = this.#handle(conversationId, text, options);
    this.#running.add(work);
    void work.finally(() => this.#running.delete(work));
    return work;
  }

  async #handle(conversationId: string, text: string, options: HandleOptions): Promise<ResponseEnvelope> {
    const fail = (status: number, error: string, messageId?: string): ResponseEnvelope => ({
      conversationId,
      messageId,
      status,
      turns: [],
      error: this.#redact(error),
    });
    if (!CONVERSATION_ID.test(conversationId))
      return fail(400, `invalid conversation id ${JSON.stringify(conversationId.slice(0, 80))}: use 1-200 letters, digits, ".", "_", ":" or "-"`);
    if (this.#shutdown.signal.aborted) return fail(503, 'the host is shutting down');

    let release: (() => Promise<void>) | undefined;
    try {
      release = await this.#options.store.lock(conversationId, options.signal);
    } catch (error) {
      return fail(options.signal?.aborted ? 499 : 503, `could not take the conversation lock: ${(error as Error).message}`);
    }
    let messageId: string | undefined;
    try {
      let session: Session;
      try {
        session = await this.#session(conversationId);
      } catch (error) {
        return fail(500, `cannot open conversation "${conversationId}": ${(error as Error).message}`);
      }
      messageId = session.loop.send(text, { ...(options.intent ? { intent: options.intent } : {}) });
      try {
        await session.flush(); // the message is durable before any turn starts: never lost
      } catch (error) {
        this.#sessions.delete(conversationId);
        return fail(503, `could not store the message: ${(error as Error).message}`, messageId);
      }
      const onAbort = () => session.loop.cancel('user', 'the request was aborted');
      options.signal?.addEventListener('abort', onAbort, { once: true });
      if (options.signal?.aborted) onAbort();
      let results;
      try {
        results = await session.loop.drain();
      } finally {
        options.signal?.removeEventListener('abort', onAbort);
      }
      if (results.some((r) => r.outcome.kind === 'failed' && r.outcome.reason === 'persistence')) {
        // The in-memory log is ahead of the store: reopen from the store next time.
        this.#sessions.delete(conversationId);
      }
      const turns = results.map(summarizeTurn);
      const last = results[results.length - 1];
      return {
        conversationId,
        messageId,
        status: last ? httpStatusFor(last.outcome) : 202, // 202: queued (e.g. an inject) without a turn
        turns,
        ...(last?.reply !== undefined ? { reply: last.reply } : {}),
      };
    } catch (error) {
      this.#sessions.delete(conversationId);
      return fail(500, `internal error: ${(error as Error).message}`, messageId);
    } finally {
      await release().catch(() => undefined);
    }
  }

  /** Opens (or returns the open) conversation, recovering a turn a crash left open. */
  async #session(conversationId: string): Promise<Session> {
    const open = this.#sessions.get(conversationId);
    // Hosts sharing a store (PostgreSQL) take turns on a conversation: if another host
    // appended since this one last held the lock, the cached log is stale; reopen.
    if (open && (await this.#options.store.read(conversationId, open.log.flushedUpTo)).length === 0) return open;
    const records = await this.#options.store.read(conversationId);
    const log = new EventLog(this.#clock, decodeRecords(records, `${this.#options.store.describe} conversation "${conversationId}"`));
    const flush = serializedFlush(this.#options.store, conversationId, log);
    recoverConversation(log);
    await flush();
    const session: Session = { log, loop: this.#loop(conversationId, log, flush), flush };
    this.#sessions.set(conversationId, session);
    return session;
  }

  #loop(conversationId: string, log: EventLog, flush: () => Promise<void>): AgentLoop {
    const o = this.#options;
    const tracing: TurnTracing = {
      begin: (turn) => new Tracer({ clock: this.#clock, traceId: `${conversationId}:${turn}`, mode: o.config.trace.mode, redact: this.#redact }),
      finish: (tracer) => {
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
        return record;
      },
    };
    return new AgentLoop({
      log,
      model: o.model,
      ...(o.fallbackModels ? { fallbackModels: o.fallbackModels } : {}),
      tools: this.#tools,
      prompt: this.prompt,
      clock: this.#clock,
      persist: flush,
      tracing,
      redact: this.#redact,
      config: loopConfigFrom(o.config),
      ...(o.compactor ? { compactor: o.compactor } : {}),
      ...(o.claim ? { claim: o.claim } : {}),
      ...(o.checkpoints ? { checkpoints: o.checkpoints } : {}),
      ...(o.errorHandlers ? { errorHandlers: o.errorHandlers } : {}),
      ...(o.random ? { random: o.random } : {}),
      newId: o.newId ?? (() => randomUUID()),
      signals: { shutdown: this.#shutdown.signal },
    });
  }

  /** Reads a conversation's events (for replay and inspection). */
  async events(conversationId: string) {
    const records = await this.#options.store.read(conversationId);
    return decodeRecords(records, `${this.#options.store.describe} conversation "${conversationId}"`);
  }

  /** Cancels running turns (as a shutdown), waits for them to close, closes the store. */
  async close(): Promise<void> {
    this.#shutdown.abort('the host is shutting down');
    for (const session of this.#sessions.values()) session.loop.shutdown();
    await Promise.allSettled([...this.#running]);
    await this.#options.store.close();
  }
}

/** The identity and deployment fragments from config; callers may register more. */
export function configPrompt(config: HostConfig): PromptAssembler {
  const prompt = new PromptAssembler();
  prompt.register({ id: 'identity', priority: PRIORITY.identity, text: config.prompt.identity });
  if (config.prompt.deployment) prompt.register({ id: 'deployment', priority: PRIORITY.deployment, text: config.prompt.deployment });
  return prompt;
}

function buildToolExecutor(options: HostOptions, redact: Redactor): ToolExecutor {
  const { config } = options;
  const registry = new ToolRegistry(options.tools ?? []);
  // Fail closed: a name in a deny or ask list that matches no tool would deny nothing.
  checkConfiguredToolNames(config, registry.names());
  const mode = selectedMode(config);
  const layers = standardLayers({
    global: { ...(config.tools.allow ? { allow: config.tools.allow } : {}), deny: config.tools.deny },
    ...(mode ? { mode } : {}),
  });
  const rules: PolicyRule[] = [
    ...(config.tools.ask.length ? [{ id: 'config:tools.ask', tools: config.tools.ask, decision: 'ask' as const, reason: 'configured to need approval' }] : []),
    ...(options.policyRules ?? []),
  ];
  return createToolExecutor({
    registry,
    visibility: layers,
    policy: { rules, onAskWithoutApprover: config.tools.onAskWithoutApprover },
    ...(options.approver ? { approver: options.approver } : {}),
    redact,
    maxOutputChars: config.tools.maxOutputChars,
    defaultTimeoutMs: config.tools.defaultTimeoutMs,
  });
}
