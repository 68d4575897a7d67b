/**
 * The tokens the log records for a model call are the ones its client reported:
 * each `model.result` carries the input and output counts of the answer the
 * harness saw the client hand back at the boundary (`responses`) — also for a
 * call the turn's cancel cut short, whose own answer the loop waits for only to
 * keep its usage. Those tokens were billed: a loop that drops them undercounts
 * the turn, and a token budget lets the next turn spend them again (outside
 * probe 68: with a cancelled call's usage dropped, two bundled cases failed and
 * every fuzz case passed — every other rule reads the usage from the log).
 *
 * Judged where the log holds the call's result and the client had answered by
 * the time it was written (an answer after the loop gave up on the call — its
 * own timeout, a client deaf to the abort — is not one it could count); a result
 * the loop wrote in the client's place for a malformed answer (a contract
 * violation, named there) or for its own timeout is not compared, nor any call
 * whose client is the host's own.
 */
import type { LogEvent } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { viewOf } from './support/log-view.ts';

type Result = Extract<LogEvent, { type: 'model.result' }>;

export const usageAsTheModelReported = defineInvariant({
  id: 'usage-as-the-model-reported',
  title: "each model call's recorded tokens are the ones its client reported, a cancelled call's too",
  appliesTo: loopgateOnly('the harness compares the client’s answers with loopgate’s log'),
  check: (run) => miscounted(run),
});

function miscounted(run: ScenarioRun): string | undefined {
  if (run.hostParts.includes('model')) return undefined;
  const view = viewOf(run);
  const results = new Map<string, Result>();
  for (const e of view.known) if (e.type === 'model.result') results.set(`${e.payload.turn}/${e.payload.step}/${e.payload.attempt}`, e);
  for (const r of view.requests) {
    const answer = run.responses[r.index];
    const usage = answer?.settled === 'result' ? answer.result?.usage : undefined;
    if (usage === undefined) continue;
    const { turn, step, attempt } = r.event.payload;
    const logged = results.get(`${turn}/${step}/${attempt}`);
    if (logged === undefined || contractViolation(logged.payload.result)) continue;
    // An answer that came after the loop had given up on the call (its own timeout, a client deaf to the abort) is
    // not one the loop could count; nor one in the very instant its own timeout fired.
    const settled = answer!.settledMs;
    if (settled === undefined || settled > logged.at || (settled === logged.at && ownTimeout(logged.payload.result))) continue;
    const got = logged.payload.result.usage;
    if (got?.inputTokens !== usage.inputTokens || got?.outputTokens !== usage.outputTokens) {
      const said = got === undefined ? 'no usage' : `${got.inputTokens} input and ${got.outputTokens} output tokens`;
      return `model call ${r.index + 1} (turn ${turn}, step ${step}, attempt ${attempt}, ${answer!.result!.type}) reported ${usage.inputTokens} input and ${usage.outputTokens} output tokens, but its result (seq ${logged.seq}, ${logged.payload.result.type}) records ${said}`;
    }
  }
  return undefined;
}

/**
 * The loop's own timeout: it gave up on the call, whatever the client answers in the same instant (review of stop
 * 69: a wire adapter's own deadline, due at the same virtual ms, answered a few microtasks later with its usage).
 */
function ownTimeout(result: { readonly type: string; readonly kind?: unknown; readonly message?: unknown }): boolean {
  return result.type === 'transport_error' && result.kind === 'timeout' && typeof result.message === 'string' && result.message.startsWith('no result within');
}

/** The result the loop writes in the client's place for a malformed answer. */
function contractViolation(result: { readonly type: string; readonly message?: unknown }): boolean {
  return result.type === 'transport_error' && typeof result.message === 'string' && result.message.includes('(contract violation)');
}
