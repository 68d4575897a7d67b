/**
 * The production host keeps what its config bounds: once a case has settled,
 * each live process holds no conversation as busy, no more idle ones than
 * `sessions.maxIdle`, and never counts an idle conversation it no longer holds.
 * A host whose eviction forgets to drop a conversation from its idle list (outside
 * probe 9, plant P20) answers every message right and leaks a session per
 * conversation, forever; one that never forgets a finished conversation keeps
 * every conversation it ever served.
 */
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';

export const hostKeepsSessionsBounded = defineInvariant({
  id: 'host-keeps-sessions-bounded',
  title: 'once a case settles, each production host holds no busy conversation and at most sessions.maxIdle idle ones',
  appliesTo: loopgateOnly('a peer has no production host of loopgate’s'),
  check: (run: ScenarioRun) => {
    for (const s of run.sessionsHeld ?? []) {
      const held = `host process ${s.process} holds ${s.open} conversation(s) in memory, ${s.idle} idle`;
      if (s.idle > s.open) return `${held}: it counts idle conversations it no longer holds (a session evicted but kept in the idle list)`;
      if (s.busy !== 0) return `${held}: ${s.busy} still busy after every turn settled and nothing is queued`;
      if (s.idle > s.maxIdle) return `${held}, more than its config's sessions.maxIdle (${s.maxIdle})`;
    }
    return undefined;
  },
});
