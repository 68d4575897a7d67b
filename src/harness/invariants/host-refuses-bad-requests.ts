/**
 * The production host refuses what its README says it refuses, at once, with
 * 400, storing nothing and echoing no secret: a conversation id outside 1–200
 * letters, digits, ".", "_", ":" or "-" or naming a secret, a message id outside
 * that syntax, an unknown intent, a text holding a lone UTF-16 surrogate, a `traceparent` that is not W3C
 * (world/bad-requests.ts sends them after each
 * production-host case). A host that took `orders/1001` would key the store, its
 * spans and the tools' idempotency keys with it (outside probe 7, plant P21).
 */
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';

export const hostRefusesBadRequests = defineInvariant({
  id: 'host-refuses-bad-requests',
  title: 'the production host answers a bad conversation id, message id, intent or traceparent 400 at once, storing nothing',
  appliesTo: loopgateOnly('a peer has no production host of loopgate’s'),
  check: (run: ScenarioRun) => {
    for (const r of run.badRequests ?? []) {
      const sent = `${r.what} (${JSON.stringify(r.conversationId.length > 40 ? `${r.conversationId.slice(0, 40)}…` : r.conversationId)})`;
      if (r.status === undefined) return `${sent} was not answered at once: the host took it (a turn ran)`;
      if (r.status !== 400) return `${sent} was answered ${r.status}, not 400`;
      if (r.stored > 0) return `${sent} was answered 400, but the store holds ${r.stored} record(s) for it`;
      for (const secret of run.secrets) if (secret.length > 0 && r.answer.includes(secret)) return `${sent}: the answer repeats the secret`;
    }
    return undefined;
  },
});
