/** Invariant 7: a deny is never lifted by a later layer (or rule) — checked against an independent evaluation of the scenario's permissions. */
import { denyNeverLifted } from '../checks/deny-never-lifted.ts';
import { defineProperty } from '../property.ts';

export const denyNeverLiftedProperty = defineProperty({
  name: 'invariant-07-deny-never-lifted',
  title: 'a denied tool is never offered or run, whatever a later layer or rule allows',
  invariant: 7,
  check: (run) => denyNeverLifted(run),
});
