/** Invariant 3: an unknown event type (or a newer version) read back from the store is refused unless ignorable. */
import { unknownTypesRejected } from '../checks/unknown-types.ts';
import { defineProperty } from '../property.ts';

export const unknownTypesRejectedProperty = defineProperty({
  name: 'invariant-03-unknown-types-rejected',
  title: 'unknown event types are refused on read unless ignorable',
  invariant: 3,
  check: (run) => unknownTypesRejected(run),
});
