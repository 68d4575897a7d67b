/** No inbox message lost or delivered twice, checked against the reference inbox model. */
import { inboxFollowsReference } from '../checks/inbox-reference.ts';
import { defineProperty } from '../property.ts';

export const inboxDeliveredOnceProperty = defineProperty({
  name: 'inbox-delivered-once',
  title: 'no inbox message lost or delivered twice (reference inbox model)',
  check: (run) => inboxFollowsReference(run),
});
