/**
 * The fuzzer's checks that the harness also runs on every scenario (added to
 * src/harness/checks/invariants.ts), so a counterexample the fuzzer writes fails
 * `loopgate run FILE` with no expectations at all.
 *
 * `scenarioOnly`: the check predicts from the scenario file (its provider, claim
 * and error chain); it is skipped for runs where the host swapped those parts
 * (state-table fixtures with a deliberately broken client, live runs). The fuzzer
 * itself always runs every check.
 */
import type { HostPart, ScenarioRun } from '../../harness/second-host.ts';
import { appendProbes } from './append-probes.ts';
import { budgetsCheckedBeforeWork } from './budgets-before-work.ts';
import { crashRecoveryAtEveryEvent } from './crash-recovery.ts';
import { denyNeverLifted } from './deny-never-lifted.ts';
import { errorChainFollowsTable } from './error-chain.ts';
import { inboxFollowsReference } from './inbox-reference.ts';
import { injectNeverWakes } from './inject-never-wakes.ts';
import { outcomesInAlphabet } from './outcome-alphabet.ts';
import { outcomeFollowsTable } from './outcome-table.ts';
import { overflowRetriesOnlyIfShrank } from './overflow-retry.ts';
import { projectionEqualsReplay } from './projection-replay.ts';
import { everythingSettles } from './provider-contract.ts';
import { requestsFromPrefix } from './request-prefix.ts';
import { sideEffectsStartedOnce } from './side-effects.ts';
import { spansWellFormed } from './span-links.ts';
import { tracesCarryOutcomes } from './trace-outcomes.ts';
import { unknownTypesRejected } from './unknown-types.ts';

export interface FuzzCheck {
  readonly name: string;
  readonly check: (run: ScenarioRun) => string | undefined;
  /** Skipped when the host supplied one of these parts. */
  readonly skipWith?: readonly HostPart[];
}

const scenarioParts: readonly HostPart[] = ['model', 'claim', 'errorHandlers'];

export const FUZZ_CHECKS: readonly FuzzCheck[] = [
  { name: 'invariant 2: bad appends refused on a copy of the final log', check: appendProbes },
  { name: 'invariant 3: unknown event types refused unless ignorable', check: unknownTypesRejected },
  { name: 'invariant 4: returned, logged and traced outcomes agree', check: tracesCarryOutcomes },
  { name: 'invariant 7: a deny is never lifted', check: denyNeverLifted },
  { name: 'invariant 8: spans form one tree per turn', check: spansWellFormed },
  { name: 'invariant 9: inject never wakes; a cancelled turn returns what the model never saw', check: injectNeverWakes },
  { name: 'invariant 10: an overflow is retried only if the projection shrank', check: overflowRetriesOnlyIfShrank, skipWith: ['errorHandlers'] },
  { name: 'invariant 11: budgets checked before the work they pay for', check: budgetsCheckedBeforeWork },
  {
    name: 'invariant 12: every provider call settles once, well-formed; every request and call gets one result',
    check: everythingSettles,
    skipWith: ['model'],
  },
  { name: 'invariant 13: a side-effecting call is started once', check: sideEffectsStartedOnce },
  { name: 'the projection equals a replay of the whole log', check: projectionEqualsReplay },
  { name: 'every request is recomputable from the log prefix recorded with it', check: requestsFromPrefix },
  { name: 'no inbox message lost or delivered twice (reference inbox model)', check: inboxFollowsReference },
  { name: 'logged outcomes in the alphabet', check: outcomesInAlphabet },
  { name: 'the model-error chain decides as the transition table says', check: errorChainFollowsTable, skipWith: scenarioParts },
  { name: 'each turn ends as the transition table says', check: outcomeFollowsTable, skipWith: scenarioParts },
  { name: 'a crash at any event recovers cleanly', check: (run) => crashRecoveryAtEveryEvent(run, 500) },
];

/** The checks that apply to this run (see `skipWith`). */
export function applicableChecks(run: ScenarioRun): FuzzCheck[] {
  return FUZZ_CHECKS.filter((c) => !(c.skipWith ?? []).some((part) => run.hostParts.includes(part)));
}
