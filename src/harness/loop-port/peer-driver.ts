/**
 * The loop-under-test port over a peer's one-turn-at-a-time adapter: keeps the
 * follow-up queue (each follow-up its own turn, in order), gives each turn a
 * fresh AbortController, aborts it with a PeerCancel naming the first cancel
 * source (later ones are ignored, as loopgate keeps the first reason), ignores a
 * cancel while idle, and collects one report per turn. A turn whose adapter
 * rejects anyway is a bug in the adapter: reported `failed{internal}` with the
 * error, never lost.
 */
import type { CancelSource, Message } from '../../kernel/index.ts';
import type { Capabilities } from './capabilities.ts';
import { AgentBuildError } from '../world/agent-under-test.ts';
import { PeerCancel } from './peer-cancel.ts';
import type { PeerAdapter } from './peer-world.ts';
import type { LoopUnderTest, MessageIntent, TurnReport } from './port.ts';

export interface PeerHooks {
  /** A turn starts (before its first model request). */
  readonly turnStarted?: (turn: number) => void;
  /** A cancel reached the running turn: its signal is aborted now. */
  readonly cancelled?: (turn: number, by: CancelSource) => void;
  /** The loop handed back the turn's report (or threw): it is done with the turn. */
  readonly turnEnded?: (turn: number) => void;
}

export class PeerDriver implements LoopUnderTest {
  readonly capabilities: Capabilities;
  readonly #adapter: PeerAdapter;
  readonly #hooks: PeerHooks;
  readonly #queue: string[] = [];
  readonly #reports: TurnReport[] = [];
  readonly #malformed: string[] = [];
  readonly #sent: string[] = [];
  #running: { turn: number; controller: AbortController } | undefined;
  #drain: Promise<void> = Promise.resolve();
  #turns = 0;

  constructor(capabilities: Capabilities, adapter: PeerAdapter, hooks: PeerHooks = {}) {
    this.capabilities = capabilities;
    this.#adapter = adapter;
    this.#hooks = hooks;
  }

  /** The follow-ups posted, in order. */
  get sent(): readonly string[] {
    return this.#sent;
  }

  /** The turn running now, if any (at the end of a case: the one that never settled). */
  get running(): number | undefined {
    return this.#running?.turn;
  }

  send(text: string, intent: MessageIntent): void {
    if (intent !== 'follow_up') throw new Error(`this loop has no ${intent}: the case should have been skipped (requirements.ts)`);
    this.#sent.push(text);
    this.#queue.push(text);
    this.#drain = this.#drain.then(() => this.#next());
  }

  cancel(by: CancelSource): void {
    const running = this.#running;
    if (!running || running.controller.signal.aborted) return;
    this.#hooks.cancelled?.(running.turn, by);
    running.controller.abort(new PeerCancel(by));
  }

  crash(): void {
    throw new Error('this loop has no process to crash: the case should have been skipped (requirements.ts)');
  }

  reopen(): Promise<void> {
    return Promise.reject(new Error('this loop has no store to reopen: the case should have been skipped (requirements.ts)'));
  }

  async settled(): Promise<void> {
    for (let awaited = this.#drain; ; awaited = this.#drain) {
      await awaited;
      if (awaited === this.#drain) return;
    }
  }

  /** What was wrong with each report that was no report (replaced in `reports()` by a failed{internal} one). */
  malformed(): readonly string[] {
    return this.#malformed;
  }

  reports(): readonly TurnReport[] {
    return this.#reports;
  }

  persistedHistory(): readonly Message[] {
    return this.#adapter.persistedHistory();
  }

  async #next(): Promise<void> {
    const text = this.#queue.shift();
    if (text === undefined) return;
    const turn = this.#turns++;
    const controller = new AbortController();
    this.#running = { turn, controller };
    this.#hooks.turnStarted?.(turn);
    let report: TurnReport;
    try {
      report = await this.#adapter.runTurn({ text, turn, signal: controller.signal });
    } catch (error) {
      if (error instanceof AgentBuildError) throw error; // the team's own code around the loop (its glue) failed: the case fails in its words
      report = {
        turn,
        outcome: { kind: 'failed', reason: 'internal', detail: `the adapter rejected: ${(error as Error)?.message ?? String(error)}` },
        ending: { kind: 'threw', errorClass: (error as Error)?.name ?? 'unknown', message: (error as Error)?.message ?? String(error) },
        steps: 0,
        usage: { inputTokens: 0, outputTokens: 0 },
      };
    }
    this.#running = undefined;
    this.#hooks.turnEnded?.(turn);
    // A report that is no report is the loop's bug, told as such: nothing reads its fields (outside probe 49, HIGH-3:
    // a null report, or one with no ending, crashed the reports with a stack trace, or passed).
    const problem = reportShapeProblem(report, turn);
    if (problem) {
      this.#malformed.push(`turn ${turn}: ${problem}`);
      report = {
        turn,
        outcome: { kind: 'failed', reason: 'internal', detail: `the loop's report was no report: ${problem}` },
        ending: { kind: 'resolved' },
        steps: 0,
        usage: { inputTokens: 0, outputTokens: 0 },
      };
    }
    this.#reports.push(report);
  }
}

const ENDINGS: readonly string[] = ['resolved', 'threw', 'unsettled'];

/**
 * What makes `report` no TurnReport of turn `turn`, or nothing. Its outcome is judged apart (one outside the alphabet
 * is named by the outcome checks), as are its counts (peer-case.ts).
 */
function reportShapeProblem(report: unknown, turn: number): string | undefined {
  if (report === null || typeof report !== 'object' || Array.isArray(report))
    return `it is ${report === null ? 'null' : Array.isArray(report) ? 'a list' : typeof report}, not a report ({ turn, outcome, ending, steps, usage })`;
  const r = report as Record<string, unknown>;
  if (r.turn !== turn) return `its turn is ${JSON.stringify(r.turn) ?? 'missing'}, not ${turn} (the turn it ran)`;
  const ending = r.ending as { kind?: unknown } | null | undefined;
  if (ending === null || typeof ending !== 'object' || !ENDINGS.includes(ending.kind as string))
    return `its ending is ${ending === undefined ? 'missing' : JSON.stringify(ending)} (one of { kind: ${ENDINGS.join(' | ')} })`;
  return undefined;
}
