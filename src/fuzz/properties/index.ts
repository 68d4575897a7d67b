/** Every built-in fuzz property, checked after every fuzz run. */
import type { FuzzProperty } from '../property.ts';
import { crashRecoveryProperty } from './crash-recovery.ts';
import { inboxDeliveredOnceProperty } from './inbox-delivered-once.ts';
import { requestsRecomputableProperty } from './invariant-01-requests-recomputable.ts';
import { oneAppendFrozenProperty } from './invariant-02-one-append-frozen.ts';
import { unknownTypesRejectedProperty } from './invariant-03-unknown-types-rejected.ts';
import { turnsClosedOnceProperty } from './invariant-04-turns-closed-once.ts';
import { failedTurnsAddNothingProperty } from './invariant-05-failed-turns-add-nothing.ts';
import { toolPairingProperty } from './invariant-06-tool-pairing.ts';
import { denyNeverLiftedProperty } from './invariant-07-deny-never-lifted.ts';
import { noOpenSpansProperty } from './invariant-08-no-open-spans.ts';
import { injectNeverWakesProperty } from './invariant-09-inject-never-wakes.ts';
import { overflowRetryProperty } from './invariant-10-overflow-retry-only-if-shrank.ts';
import { stepBudgetProperty } from './invariant-11-step-budget-before-tools.ts';
import { nothingRejectsProperty } from './invariant-12-nothing-rejects.ts';
import { sideEffectsOnceProperty } from './invariant-13-side-effects-once.ts';
import { outcomeFollowsTableProperty } from './outcome-follows-table.ts';
import { outcomesInAlphabetProperty } from './outcomes-in-alphabet.ts';
import { projectionEqualsReplayProperty } from './projection-equals-replay.ts';
import { requestsFromPrefixProperty } from './requests-recomputable-from-prefix.ts';

export const BUILT_IN_PROPERTIES: readonly FuzzProperty[] = [
  nothingRejectsProperty, // first: a thrown run makes every other verdict noise
  turnsClosedOnceProperty,
  requestsRecomputableProperty,
  oneAppendFrozenProperty,
  unknownTypesRejectedProperty,
  failedTurnsAddNothingProperty,
  toolPairingProperty,
  denyNeverLiftedProperty,
  noOpenSpansProperty,
  injectNeverWakesProperty,
  overflowRetryProperty,
  stepBudgetProperty,
  sideEffectsOnceProperty,
  projectionEqualsReplayProperty,
  requestsFromPrefixProperty,
  inboxDeliveredOnceProperty,
  outcomesInAlphabetProperty,
  outcomeFollowsTableProperty,
  crashRecoveryProperty,
];
