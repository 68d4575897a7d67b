/**
 * A case run against another framework's loop, as the harness recorded it from
 * the outside: what the peer reported per turn, every model request at the model
 * boundary (in loopgate's normalized form), every tool body that ran, the
 * persisted history before each turn and at the end, and the peer's spans mapped
 * to loopgate's kinds. The peer-neutral invariants judge this; the ones that
 * need loopgate's event log say they cannot (their `appliesTo`).
 */
import type { Message, SideEffect, TraceRecord } from '../../kernel/index.ts';
import type { Scenario } from '../scenario/schema.ts';
import type { Fault } from '../world/fault-log.ts';
import type { UnfiredEntry } from '../world/inbox-driver.ts';
import type { ApprovalAnswer } from '../world/recorded-approver.ts';
import type { ProviderCall, SentRequest } from '../world/recording-model.ts';
import type { Capabilities } from './capabilities.ts';
import type { TurnReport } from './port.ts';

/** One run of a tool body. */
export interface ToolRun {
  readonly turn: number;
  readonly callId: string;
  readonly name: string;
  readonly sideEffect: SideEffect;
  /** How the body ended: returned, threw, or still running when the case ended. */
  settled: 'returned' | 'threw' | 'running';
  /** Its place among the case's happenings when it started (`FaultLog.place`). */
  readonly startedAt?: number;
  /** Virtual time when it started, and when it settled (unset while it runs). */
  readonly startedMs?: number;
  endedMs?: number;
  /** The arguments the loop ran it with. */
  readonly args?: unknown;
  /** Whether the loop gave the body an abort signal, and when (virtual ms) that signal aborted, if it did. */
  readonly signalGiven?: boolean;
  abortedMs?: number;
}

/** A cancel the harness delivered to a running turn (its signal aborted). */
export interface DeliveredCancel {
  readonly turn: number;
  readonly by: string;
  /** Its place among the case's happenings (`FaultLog.place`): a tool body starting later started after it. */
  readonly at: number;
  /** Virtual time it was delivered. */
  readonly ms?: number;
}

export interface PeerRun {
  readonly kind: 'peer';
  readonly loop: { readonly id: string; readonly version: string; readonly capabilities: Capabilities; readonly glue?: string };
  readonly scenario: Scenario;
  readonly agent: string;
  readonly reports: readonly TurnReport[];
  /** A turn still running when the case ended (nothing left to wait on, in virtual time): what it waited on. */
  readonly unsettled?: { readonly turn: number; readonly waitingOn: string };
  /** Model requests at the model boundary, in order, and the turn each belongs to (none for a wire case: they went over HTTP). */
  readonly requests: readonly SentRequest[];
  readonly requestTurns: readonly number[];
  readonly responses: readonly ProviderCall[];
  readonly wire: boolean;
  /** Over the wire: the HTTP requests the wire fake received (the model requests of a wire case). */
  readonly wireRequests: number;
  readonly executions: ReadonlyMap<string, number>;
  readonly executionsByCall: ReadonlyMap<string, number>;
  readonly toolRuns: readonly ToolRun[];
  /** `closedMs[t]`: the virtual time turn t's report came back (the loop was done with it). */
  readonly closedMs?: readonly number[];
  /** The cancels that reached a running turn, in order. */
  readonly cancels?: readonly DeliveredCancel[];
  /** Every answer the case's approver gave a loop that asked it (a peer holding calls for approval), in order. */
  readonly approvals?: readonly ApprovalAnswer[];
  /**
   * Whether the agent's own tool holds this call for approval (`needsApproval`, an `sdk-approval` rule of its policy
   * that applies to the arguments): such a call runs only on the approver's yes.
   */
  readonly heldForApproval?: (tool: string, args: unknown) => boolean;
  readonly sideEffectLevels: ReadonlyMap<string, string>;
  /** `histories[t]`: the persisted history when turn t started; the last entry: at the end. */
  readonly histories: readonly (readonly Message[])[];
  /** At the end: what the app keeps for the next turn outside its history (an app glue's waiting notice), where it keeps any. */
  readonly waiting: readonly Message[];
  readonly traces: readonly TraceRecord[];
  readonly secrets: readonly string[];
  readonly virtualMs: number;
  /** Set if the world or the driver threw (not the peer: its throws are classified). */
  readonly thrown?: unknown;
  readonly faults: readonly Fault[];
  readonly maxSteps: number;
  /** The follow-ups posted, in order. */
  readonly sent: readonly string[];
  /** The inbox entries with a trigger that never fired (or whose occasion never came): the `triggers` check. */
  readonly unfired: readonly UnfiredEntry[];
  /** What was wrong with a turn's report that was no report (replaced in `reports` by a failed{internal} one), by turn. */
  readonly malformedReports?: readonly string[];
}

/** Does this run come from another framework's loop? */
export function isPeerRun(run: object): run is PeerRun {
  return (run as { kind?: unknown }).kind === 'peer';
}

/** The persisted history at the end. */
export function finalHistory(run: PeerRun): readonly Message[] {
  return run.histories[run.histories.length - 1] ?? [];
}
