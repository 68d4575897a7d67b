/**
 * The production host is a host, not a second loop: every bundled scenario that
 * does not break the store leaves the same log through the production host as
 * through the loop driven directly — event for event, payloads and virtual times —
 * and the same model requests. (Scenarios that fail writes differ by design: the
 * host drops a log the store refused and reopens from the store.)
 *
 * With a bystander the production host names the messages of both conversations
 * from one counter (as a host's UUIDs are unique across its conversations), the
 * loop's each from its own: the case's message ids are compared by order of first
 * use, everything else as it is.
 */
import { describe, expect, it } from 'vitest';
import { loadScenarios } from '../../src/harness/scenario/load.ts';
import { pinnedHost } from '../../src/harness/scenario-case.ts';
import { runScenario } from '../../src/harness/second-host.ts';
import { BUNDLED_ROOT, bundledContext } from '../support/bundled.ts';

const { registry } = await bundledContext();
const scenarios = loadScenarios([BUNDLED_ROOT], BUNDLED_ROOT).filter((l) => !l.scenario.live && !pinnedHost(l.scenario) && !l.scenario.store);

const logOf = (run: Awaited<ReturnType<typeof runScenario>>) => {
  const events = run.log.events.map((e) => ({ type: e.type, at: e.at, payload: e.payload }));
  return run.bystander ? renumbered(events) : events;
};

/** Every host-made message id (`m<n>`) renamed by its order of first use. */
function renumbered<T>(value: T): T {
  const ids = new Map<string, string>();
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string' && /^m\d+$/.test(v)) {
      if (!ids.has(v)) ids.set(v, `m${ids.size + 1}`);
      return ids.get(v);
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}

describe('through either host, the same log', () => {
  it('covers most of the bundled suite', () => expect(scenarios.length).toBeGreaterThan(80));

  for (const loaded of scenarios) {
    it(loaded.id, async () => {
      const direct = await runScenario(loaded.scenario, { seed: 1, agents: registry, host: 'loop' });
      const hosted = await runScenario(loaded.scenario, { seed: 1, agents: registry, host: 'production' });
      expect(hosted.host).toBe('production');
      expect(logOf(hosted)).toEqual(logOf(direct));
      expect(hosted.requests).toEqual(direct.requests);
      expect(hosted.results.map((r) => r.outcome)).toEqual(direct.results.map((r) => r.outcome));
    });
  }
});
