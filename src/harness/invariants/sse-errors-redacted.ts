/**
 * The production host's SSE handler redacts the `event: error` message it ends
 * a stream with, as it redacts every event it serves (README, "Following a
 * conversation": events pass the redactor). After a production-host case whose
 * agent has secrets, a UI follows a conversation while the store fails a read
 * mid-follow with an error naming a secret (world/sse-read-failure.ts): the
 * client must get an `error` message, and the secret must not be in anything it
 * received.
 */
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';

export const sseErrorsRedacted = defineInvariant({
  id: 'sse-errors-redacted',
  title: 'an SSE stream the store fails mid-follow ends with an error message that names no secret',
  appliesTo: loopgateOnly('a peer has no event stream of loopgate’s', (run) =>
    run.sseReadFailure === undefined ? 'no production host with a secret to follow (host: production, secrets)' : undefined,
  ),
  check: (run: ScenarioRun) => {
    const got = run.sseReadFailure;
    if (!got) return undefined;
    const what = 'a follow whose store read failed mid-stream';
    if (got.status !== 200) return `${what} was answered ${got.status} before streaming: the failure was meant for the second read`;
    if (!/^event: error$/m.test(got.body)) return `${what} did not end with an error message: ${JSON.stringify(got.body.slice(-200))}`;
    if (got.body.includes(got.secret)) return `${what}: the error message the client received repeats the secret the store's error named`;
    return undefined;
  },
});
