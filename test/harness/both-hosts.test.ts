/**
 * The production host is a host, not a second loop: every bundled scenario that
 * does not break the store leaves the same log through the production host as
 * through the loop driven directly — event for event, payloads and virtual times —
 * and the same model requests. (Scenarios that fail writes differ by design: the
 * host drops a log the store refused and reopens from the store.)
 */
import { describe, expect, it } from 'vitest';
import { loadScenarios } from '../../src/harness/scenario/load.ts';
import { pinnedHost } from '../../src/harness/scenario-case.ts';
import { runScenario } from '../../src/harness/second-host.ts';
import { BUNDLED_ROOT, bundledContext } from '../support/bundled.ts';

const { registry } = await bundledContext();
const scenarios = loadScenarios([BUNDLED_ROOT], BUNDLED_ROOT).filter((l) => !l.scenario.live && !pinnedHost(l.scenario) && !l.scenario.store);

const logOf = (run: Awaited<ReturnType<typeof runScenario>>) => run.log.events.map((e) => ({ type: e.type, at: e.at, payload: e.payload }));

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
