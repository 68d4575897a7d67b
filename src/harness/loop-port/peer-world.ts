/**
 * What the harness hands another framework's loop for one case, and what it
 * wants back. Everything a scenario varies is built and recorded here, by the
 * harness — the model's answers (a scripted model client on the case's clock, or
 * the wire fake's address), the tools (the agent's own, with the scenario's
 * scripts, counted by call id) — so the checks trust the harness's recordings,
 * never the adapter's word.
 */
import type { z } from 'zod';
import type { Approver, Clock, Message, ModelClient, SideEffect, TraceRecord } from '../../kernel/index.ts';
import type { WireProvider } from '../../../providers/names.ts';
import type { Capabilities } from './capabilities.ts';
import type { TurnReport } from './port.ts';

/** A tool as a peer runs it: the agent's declaration, its body wrapped so the harness counts every run. */
export interface PeerTool {
  readonly name: string;
  readonly description: string;
  readonly input: z.ZodType;
  readonly sideEffect: SideEffect;
  readonly timeoutMs?: number;
  run(args: unknown, context: { readonly callId: string; readonly signal?: AbortSignal | undefined }): Promise<unknown>;
}

export interface PeerWorld {
  /** The scenario's provider script as a model client (normalized results, on the virtual clock); every request recorded. */
  readonly model: ModelClient;
  /** For a wire scenario: the wire fake's address for the provider's own package (then `model` is not used). */
  readonly wire?: { readonly provider: WireProvider; readonly baseURL: string; readonly apiKey: string; readonly model: string };
  readonly tools: readonly PeerTool[];
  readonly system: string;
  /**
   * The agent the case's factory built, as it returned it (before the scenario's changes): a loop made together
   * with its agent (`toolLoopAgent`) finds its own build of the case by it, so tools and hooks share one build.
   */
  readonly built: object;
  /** The case's virtual clock (span times). */
  readonly clock: Clock;
  readonly maxSteps: number;
  readonly maxTokens: number;
  /** Model retries the scenario allows (loopgate's immediate and backoff tiers together). */
  readonly retries: number;
  /** The scenario's store faults: which writes (1-based) of the peer's own store fail, where it has one. */
  readonly failWrites: readonly number[];
  /**
   * The case's approver (the scenario's scripted one, else the agent's own), recording every answer: what a loop
   * that holds calls for approval asks (`sdk-approval`). None: no one answers, and a held call is denied.
   */
  readonly approver?: Approver;
  /**
   * The secrets the case's run must keep (the agent's and the scenario's, and `wire.apiKey` in a wire case): nothing
   * the loop stores, sends the model, traces or replies may hold one, in any form (invariant 15).
   * `createRedactor({ secrets })` from loopgate redacts them. A frozen copy: the run is judged on the case's own.
   */
  readonly secrets: readonly string[];
}

/** One turn to run: the user's text, its number, and the signal the harness aborts (with a PeerCancel) on cancel. */
export interface PeerTurn {
  readonly text: string;
  readonly turn: number;
  readonly signal: AbortSignal;
}

/** A peer's loop for one case, built by its factory: runs one turn at a time; never rejects (throws are classified). */
export interface PeerAdapter {
  runTurn(turn: PeerTurn): Promise<TurnReport>;
  /** What the next turn would start from, as loopgate messages (the peer's session, or the app glue's list). */
  persistedHistory(): readonly Message[];
  /** Messages the app keeps for the next turn outside its history (a notice of what a failed turn did), where it keeps any. */
  waiting?(): readonly Message[];
  /** One trace per turn started, peer spans mapped to loopgate's kinds; spans never ended are `undetermined`. */
  traces(): readonly TraceRecord[];
  /** Undo anything global the adapter set up. */
  dispose?(): void;
}

/**
 * The mark of loopgate's own adapters, the only loops that may take a framework's id (`ai-sdk`, `openai-agents`):
 * reports, baselines and pinned verdicts read a loop by its id (outside probe 46). Kept by a copy (`{ ...loop }`).
 */
export const LOOPGATE_ADAPTER: unique symbol = Symbol.for('loopgate.adapter');
export const FRAMEWORK_LOOP_IDS: readonly string[] = ['ai-sdk', 'openai-agents'];

/** `factory`, marked as one of loopgate's adapters. */
export function loopgateAdapter<T extends LoopUnderTestFactory>(factory: T): T {
  Object.defineProperty(factory, LOOPGATE_ADAPTER, { value: true, enumerable: true });
  return factory;
}

export interface LoopUnderTestFactory {
  /** `ai-sdk`, `openai-agents`, or a user's own. */
  readonly id: string;
  /** The installed packages the adapter drives, with versions: into every report. */
  readonly version: string;
  readonly capabilities: Capabilities;
  /** The named persistence glue, where the peer leaves history to the app. */
  readonly glue?: string;
  /** The glues the adapter knows (a config naming another is refused). */
  readonly glues?: readonly string[];
  /**
   * What the agent's factory is told as `AgentContext.loop` when this loop runs it; default `id`. An adapter's own
   * loop of a team's SDK agent (openAiAgent, toolLoopAgent) says so, apart from the generic loop of that SDK with
   * the same id, which builds its own agent of the instructions and tools only.
   */
  readonly agentLoop?: string;
  create(world: PeerWorld): PeerAdapter | Promise<PeerAdapter>;
}
