/**
 * The fallback tier (retry tier 3) moves down the chain of clients: a switch goes
 * to another client, and within one step a client the error chain switched away
 * from is not asked again — the fallbacks are the clients after the current one.
 * A chain that offered the first fallback again would ask the same failing client
 * over and over (up to the per-step safety net) instead of ending the turn.
 */
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { viewOf } from './support/log-view.ts';

export const fallbackMovesDownTheChain = defineInvariant({
  id: 'fallback-moves-down-the-chain',
  title: 'a fallback switches to another client, never back to one the step left',
  appliesTo: loopgateOnly('model requests and the error chain’s decisions are in loopgate’s event log'),
  check: (run) => movesDown(run),
});

function movesDown(run: ScenarioRun): string | undefined {
  let step = '';
  let current: string | undefined;
  let switching = false;
  let left = new Set<string>();
  for (const e of viewOf(run).known) {
    if (e.type === 'model.request') {
      const at = `${e.payload.turn}/${e.payload.step}`;
      if (at !== step) {
        step = at;
        left = new Set();
        switching = false;
      }
      const client = e.payload.client;
      if (switching && client === current)
        return `turn ${e.payload.turn}, step ${e.payload.step}: the error chain switched client, but attempt ${e.payload.attempt} went to ${client} again`;
      if (left.has(client))
        return `turn ${e.payload.turn}, step ${e.payload.step}: attempt ${e.payload.attempt} went back to ${client}, which the step had already fallen back from`;
      if (switching && current !== undefined) left.add(current);
      current = client;
      switching = false;
    } else if (e.type === 'model.error_handled') {
      switching = e.payload.action === 'switch_client';
    }
  }
  return undefined;
}
