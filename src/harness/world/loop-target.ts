/**
 * The inbox script played against the loop directly — the smallest host there
 * is: a message is posted to the loop's inbox; a follow-up, or a steer while no
 * turn runs, wakes it (a drain after the running one), with what was posted
 * stored first; an inject or a cancel never wakes it. It cannot crash: scenarios
 * that do run through the production host (host-target.ts).
 *
 * This is loopgate's own adapter of the loop-under-test port (loop-port/port.ts):
 * the first of the loops a case can run against.
 */
import {
  AgentLoop,
  agentToolOptions,
  createToolExecutor,
  EventLog,
  loopDeps,
  Tracer,
  type Agent,
  type CancelSource,
  type Clock,
  type LoopConfig,
  type LoopDeps,
  type Message,
  type ModelClient,
  type Redactor,
  type ToolExecutor,
  type ToolExecutorOptions,
  type TurnResult,
  undoCompaction,
} from '../../kernel/index.ts';
import { serializedFlush } from '../../host/flush.ts';
import { traceTurn, type CaseRecording } from './case-recording.ts';
import type { WorldStore } from './faulty-store.ts';
import type { TeamListener } from './team-listener.ts';
import { LOOPGATE_CAPABILITIES } from '../loop-port/capabilities.ts';
import type { LoopUnderTest, MessageIntent, TurnReport } from '../loop-port/port.ts';
import { reportOf } from '../loop-port/loopgate-report.ts';

export interface LoopWorld {
  readonly conversation: string;
  readonly store: WorldStore;
  readonly agent: Agent;
  readonly model: ModelClient;
  readonly fallbackModels?: readonly ModelClient[];
  readonly clock: Clock;
  readonly random: () => number;
  readonly redact: Redactor;
  readonly config: LoopConfig;
  readonly toolOptions: Pick<ToolExecutorOptions, 'maxOutputChars'>;
  readonly recording: CaseRecording;
  /** Test seams: a broken tool pipeline, a loop variant. */
  readonly wrapTools?: (executor: ToolExecutor, options: ToolExecutorOptions) => ToolExecutor;
  readonly wrapDeps?: (deps: LoopDeps) => LoopDeps;
  /** Hears each turn's tracer as it is begun (a `misuses-span` executor judges its late acts by it). */
  readonly onTracer?: (tracer: Tracer) => void;
  /** The trace mode, as the production host's `trace.mode` (default production). */
  readonly traceMode?: 'dev' | 'production';
  /** A team's listener on the loop's log (the scenario's `listener`), subscribed after the harness's recording. */
  readonly listener?: TeamListener;
}

/** The loop over a fresh log, wired to the world, every part recorded; and the target that drives it. */
export function directLoop(w: LoopWorld): LoopTarget {
  const log = new EventLog(w.clock);
  const persist = serializedFlush(w.store.connect(), w.conversation, log);
  w.recording.opened(log);
  w.listener?.attach(log);
  const executorOptions = agentToolOptions(w.agent, w.redact, w.toolOptions);
  const tools = createToolExecutor(executorOptions);
  const deps = loopDeps({
    log,
    model: w.model,
    ...(w.fallbackModels ? { fallbackModels: w.fallbackModels } : {}),
    agent: w.agent,
    tools: w.wrapTools ? w.wrapTools(tools, executorOptions) : tools,
    clock: w.clock,
    persist,
    conversation: w.conversation,
    tracing: {
      begin: (turn) => {
        const tracer = new Tracer({ clock: w.clock, traceId: `${w.conversation}:${turn}`, mode: w.traceMode ?? 'production', redact: w.redact });
        w.onTracer?.(tracer);
        return tracer;
      },
      finish: (tracer) => {
        let record;
        try {
          record = tracer.end();
        } catch {
          // Dev mode throws at a span left open (an executor's), after the record is complete: as the production host's finish.
          record = tracer.end();
        }
        w.recording.traced(log, record, traceTurn(record));
        return record;
      },
    },
    redact: w.redact,
    config: w.config,
    random: w.random,
  });
  const loop = new AgentLoop(w.wrapDeps ? w.wrapDeps(deps) : deps);
  w.recording.started(loop);
  return new LoopTarget(loop, persist, (result) => w.recording.turnClosed(log, result), log);
}

export class LoopTarget implements LoopUnderTest {
  readonly capabilities = LOOPGATE_CAPABILITIES;
  readonly #loop: AgentLoop;
  readonly #reports: TurnReport[] = [];
  readonly #persist: () => Promise<void>;
  readonly #closed: (result: TurnResult) => void;
  #drains: Promise<void> = Promise.resolve();
  readonly #log: EventLog | undefined;
  /** Drains that returned with waking work they should have run (see `#drainedWhatItCould`). */
  readonly drainsLeftWork: string[] = [];
  /** Shut down as a runaway case: its drains end with work left, as they must. */
  #stopped = false;

  /** `closed` is told each turn's result, in order. */
  constructor(loop: AgentLoop, persist: () => Promise<void>, closed: (result: TurnResult) => void, log?: EventLog) {
    this.#loop = loop;
    this.#persist = persist;
    this.#closed = closed;
    this.#log = log;
  }

  /**
   * An operator undoes the compaction last applied (the kernel's `undoCompaction`), then the log is stored.
   * False, with nothing done, when no compaction is in force: the scenario's undo had nothing to undo, which is
   * the scenario's matter (the driver names the entry), not a failure of the loop.
   */
  async undoCompaction(): Promise<boolean> {
    const log = this.#log;
    const last = log?.positions.activeReplacements().at(-1);
    if (!log || last === undefined) return false;
    undoCompaction(log, last);
    await this.#persist();
    return true;
  }

  send(text: string, intent: MessageIntent): void {
    this.#loop.send(text, { intent });
    if (intent === 'follow_up' || (intent === 'steer' && !this.#loop.busy)) this.#wake(); // a running turn takes a steer at its next step
  }

  cancel(by: CancelSource): void {
    this.#loop.cancel(by, `scenario: cancel by ${by}`);
  }

  crash(): void {
    throw new Error('the loop driven directly cannot crash: a scenario with crash runs through the production host');
  }

  reopen(): Promise<void> {
    return Promise.reject(new Error('the loop driven directly cannot reopen: a scenario with reopen runs through the production host'));
  }

  /** Every drain woken so far has finished — including drains woken (by a timed or triggered entry) while an earlier one was awaited. */
  async settled(): Promise<void> {
    for (let awaited = this.#drains; ; awaited = this.#drains) {
      await awaited;
      if (awaited === this.#drains) return;
    }
  }

  reports(): readonly TurnReport[] {
    return this.#reports;
  }

  persistedHistory(): readonly Message[] {
    return this.#loop.projection.current();
  }

  /**
   * The drain's contract: it runs turns while the inbox holds waking work. It may stop early only at a cancel, when
   * the store refused a write, when the loop is shut down, or when its last turn used up nothing it started with
   * (everything pending again: another turn would repeat it). Otherwise no waking message may be left waiting — this
   * host wakes the loop again for every message posted, which would hide a drain that gave up early from every other
   * check. And a cancel ends the drain: what waits after it waits for the next message (outside probe 68: a drain that
   * went on into the next turn passed every fuzz case).
   */
  #drainedWhatItCould(results: readonly TurnResult[]): string | undefined {
    const cut = results.findIndex((r) => r.outcome.kind === 'cancelled');
    if (cut >= 0 && cut < results.length - 1)
      return `a drain ran turn ${results[cut + 1]!.turn} after turn ${results[cut]!.turn} was cancelled: a cancel ends the drain, and what waits waits for the next message`;
    const log = this.#log;
    const last = results.at(-1);
    if (!log || !last || this.#loop.busy || this.#stopped) return undefined;
    const outcome = last.outcome;
    if (outcome.kind === 'cancelled' || (outcome.kind === 'failed' && outcome.reason === 'persistence')) return undefined;
    const positions = log.positions;
    // The last turn's messages, read back from the log's end to its turn.opened (not the whole log after every drain).
    const took: string[] = [];
    for (let i = log.length - 1; i >= 0; i--) {
      const e = log.events[i]!;
      const payload = e.payload as { turn?: number; id?: string };
      if (e.type === 'turn.opened' && payload.turn === last.turn) break;
      if (e.type === 'user.message' && payload.turn === last.turn) took.push(payload.id!);
    }
    if (took.length > 0 && took.every((id) => positions.inboxState(id) === 'pending')) return undefined;
    const stranded = positions.pending().filter((m) => m.intent !== 'inject');
    if (stranded.length === 0) return undefined;
    return `a drain returned after turn ${last.turn} (${outcome.kind}) with ${stranded.map((m) => `${m.intent} ${m.id}`).join(', ')} still waiting for a turn`;
  }

  /** The scenario shuts the loop down: a running turn is cancelled{shutdown}, and no new turn may start. */
  shutdown(): void {
    this.#stopped = true;
    this.#loop.shutdown('scenario: shutdown');
  }

  /** Stops the loop as a runaway case. */
  stop(): void {
    this.#stopped = true;
    this.#loop.shutdown('runaway case');
  }

  /** Stores what was posted and no turn took (an inject at the end). */
  async finish(): Promise<void> {
    await this.#persist().catch(() => undefined);
  }

  /** A drain after the running one: the message is stored before the turn starts. */
  #wake(): void {
    this.#drains = this.#drains.then(async () => {
      await this.#persist().catch(() => undefined);
      const results = await this.#loop.drain();
      for (const result of results) {
        this.#reports.push(reportOf(result));
        this.#closed(result);
      }
      const left = this.#drainedWhatItCould(results);
      if (left) this.drainsLeftWork.push(left);
    });
  }
}
