/** Every request ever sent is recomputable from the log prefix recorded with it. */
import { requestsFromPrefix } from '../checks/request-prefix.ts';
import { defineProperty } from '../property.ts';

export const requestsFromPrefixProperty = defineProperty({
  name: 'requests-recomputable-from-prefix',
  title: 'every request sent is recomputable from the log prefix recorded with it',
  check: (run) => requestsFromPrefix(run),
});
