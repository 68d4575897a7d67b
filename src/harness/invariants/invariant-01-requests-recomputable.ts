/**
 * Invariant 1: every model request is recomputable from the log.
 *
 * The kernel's own `recomputeRequest` rebuilds each request from the log and must
 * give exactly what was sent. Independently of it: every request sent is recomputable from the log prefix recorded with it: its
 * `model.request` event points only backwards (messages up to `upTo`, the prompt
 * and the tools before it), nothing the model could see lies between `upTo` and
 * the request, and the prefix yields exactly what was sent — system prompt, tools,
 * model, token limit, and the messages (folded incrementally here, as the loop
 * does, and compared with the request).
 */
import { ProjectionCache, recomputeRequest, requestSeqs, type LogEvent } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, firstViolation, loopgateOnly } from './invariant.ts';
import { GrowingLog } from './support/growing-log.ts';
import { sameJson, viewOf } from './support/log-view.ts';
import { spread } from './support/spread.ts';

export const requestsRecomputable = defineInvariant({
  id: 'invariant-01-requests-recomputable',
  title: 'every model request is recomputable from the log prefix recorded with it',
  invariant: 1,
  appliesTo: loopgateOnly('no event log to recompute its requests from: a peer keeps none'),
  check: (run) =>
    firstViolation(
      () => recomputedByKernel(run),
      () => requestsFromPrefix(run),
    ),
});

/**
 * The kernel's `recomputeRequest` gives, for each request, exactly what was sent. Each recompute folds the log from
 * its start: past SPREAD_MAX requests, SPREAD_MAX spread over the run are recomputed (every request is still folded,
 * incrementally, by `requestsFromPrefix`).
 */
function recomputedByKernel(run: ScenarioRun): string | undefined {
  const seqs = requestSeqs(run.log.events);
  if (seqs.length !== run.requests.length) return `${run.requests.length} requests were sent but the log records ${seqs.length}`;
  for (const i of spread(seqs.length)) {
    const recomputed = recomputeRequest(run.log.events, seqs[i]!);
    const sent = run.requests[i]!;
    for (const field of ['messages', 'system', 'tools', 'model', 'maxTokens'] as const) {
      if (!sameJson(recomputed[field], sent[field]))
        return `request ${i + 1} (seq ${seqs[i]}): the ${field} sent differ from the ${field} recomputed from the log`;
    }
  }
  return undefined;
}

/** The same, folded here from the log prefix, not through the kernel's recompute. */
function requestsFromPrefix(run: ScenarioRun): string | undefined {
  const events = run.log.events;
  const requests = viewOf(run).requests;
  if (requests.length !== run.requests.length) return `${run.requests.length} requests were sent but the log records ${requests.length}`;
  const growing = new GrowingLog();
  const cache = new ProjectionCache(growing.asLog());
  let next = 0;
  for (const r of requests) {
    const { seq, payload } = r.event;
    const where = `request ${r.index + 1} (seq ${seq})`;
    if (payload.upTo > seq) return `${where}: its messages end at seq ${payload.upTo}, after the request`;
    const prompt = events[payload.prompt] as LogEvent | undefined;
    const tools = events[payload.tools] as LogEvent | undefined;
    if (payload.prompt >= seq || prompt?.type !== 'prompt.assembled') return `${where}: its prompt (seq ${payload.prompt}) is not a prompt.assembled before it`;
    if (payload.tools >= seq || tools?.type !== 'tools.declared') return `${where}: its tools (seq ${payload.tools}) are not a tools.declared before it`;
    for (let i = payload.upTo; i < seq; i++) {
      if (events[i]!.type !== 'prompt.assembled' && events[i]!.type !== 'tools.declared')
        return `${where}: ${events[i]!.type} (seq ${i}) lies between the messages it records and the request`;
    }
    const sent = run.requests[r.index]!;
    if (sent.system !== prompt.payload.system) return `${where}: the system prompt sent differs from the one recorded`;
    if (!sameJson(sent.tools, tools.payload.tools)) return `${where}: the tools sent differ from the ones recorded`;
    if (sent.model !== payload.model || sent.maxTokens !== payload.maxTokens || sent.temperature !== payload.temperature)
      return `${where}: model, max tokens or temperature differ from the record`;
    while (next < payload.upTo) growing.push(events[next++]!);
    if (!sameJson(cache.current(), sent.messages)) return `${where}: the messages sent differ from the projection of the log up to seq ${payload.upTo}`;
  }
  return undefined;
}
