/**
 * A tool gets one idempotency key per call, the one the log records: every
 * attempt of a call — the retries of an IDEMPOTENT or NONE call above all, whose
 * whole point the key is — is given the same `ctx.idempotencyKey`, the key its
 * `tool.started` records, and no other call is given it (a backend that dedupes
 * by key would drop that call as a repeat). Read from what the tool bodies were
 * given (world/scripted-tools.ts records it per run), not from the log alone:
 * invariant 13 checks the logged keys, and only for STATEFUL and CRITICAL
 * calls, which are never retried. A call the model repeated (the loop renamed
 * it) is the same call, and keeps its key.
 *
 * Outside probe 7's plant P20 (a key per attempt: `key#attempt`) passed the
 * gate before this check.
 */
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { viewOf } from './support/log-view.ts';
import { repeatChains } from './support/model-call-ids.ts';

export const toolsGetOneKeyPerCall = defineInvariant({
  id: 'tools-get-one-key-per-call',
  title: 'every attempt of a call gives the tool the one idempotency key the log records for it, and no other call gets that key',
  appliesTo: loopgateOnly("the keys a peer's loop gives its tools are its own"),
  check: (run) => oneKeyPerCall(run),
});

function oneKeyPerCall(run: ScenarioRun): string | undefined {
  if (run.toolBodies === undefined) return undefined;
  // The keys the log records for each call (by tool and call id: a model may reuse an id across turns).
  const logged = new Map<string, Set<string>>();
  for (const e of viewOf(run).known) {
    if (e.type !== 'tool.started' || e.payload.idempotencyKey === undefined) continue;
    const id = `${e.payload.name}\u0000${e.payload.callId}`;
    const keys = logged.get(id) ?? new Set<string>();
    keys.add(e.payload.idempotencyKey);
    logged.set(id, keys);
  }
  const chains = repeatChains(run);
  const owner = new Map<string, { chain: string; tool: string; callId: string }>(); // key → the call that was given it first
  for (const [callId, bodies] of run.toolBodies) {
    const first = new Map<string, { key: string; attempt: number }>(); // tool → the key its first run of this id was given
    for (const body of bodies) {
      const where = `${body.tool} call ${callId}`;
      const before = first.get(body.tool);
      if (before === undefined) first.set(body.tool, { key: body.idempotencyKey, attempt: body.attempt });
      else if (before.key !== body.idempotencyKey)
        return `${where}: attempt ${body.attempt} was given the idempotency key ${body.idempotencyKey}, attempt ${before.attempt} ${before.key}: a backend sees two requests`;
      const keys = logged.get(`${body.tool}\u0000${callId}`);
      if (keys !== undefined && !keys.has(body.idempotencyKey))
        return `${where}: attempt ${body.attempt} was given the idempotency key ${body.idempotencyKey}, but the log records ${[...keys].join(', ')} for the call`;
      const chain = chains.get(callId) ?? callId;
      const seen = owner.get(body.idempotencyKey);
      if (seen === undefined) owner.set(body.idempotencyKey, { chain, tool: body.tool, callId });
      else if (seen.chain !== chain || seen.tool !== body.tool)
        return `${where} was given the idempotency key ${body.idempotencyKey} of ${seen.tool} call ${seen.callId}, another call: a backend drops it as a repeat`;
    }
  }
  return undefined;
}
