/**
 * What a turn that never settles waits on, as the port tells it: a body, a model call, or — a runTurn that never
 * called the model (outside probe 54: it was said to wait on "the model call") — the loop's own code.
 */
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../scenario/load.ts';
import { runPeerScenario } from './peer-host.ts';
import type { LoopUnderTestFactory } from './peer-world.ts';

const SAY_HI = 'name: a greeting\nprovider:\n  script:\n    - reply: Hello.\ninbox:\n  - say: hi\nexpect: {}\n';

function stuck(callsModel: boolean): LoopUnderTestFactory {
  return {
    id: 'stuck',
    version: 'stuck 1.0.0',
    capabilities: { supports: [], history: 'session', time: 'patched-timers' },
    create: (world) => ({
      runTurn: async ({ signal }) => {
        if (callsModel) await world.model.call({ model: 'm', system: '', messages: [], tools: [], maxTokens: 10, signal });
        return new Promise(() => {});
      },
      persistedHistory: () => [],
      traces: () => [],
    }),
  };
}

describe('a peer turn that never settles', () => {
  it('waits on its own code when no model call or tool body of it is open', async () => {
    const run = await runPeerScenario(parseScenario(SAY_HI, 'stuck.yaml'), stuck(false), { seed: 1, realWaitLimitMs: 50 });
    expect(run.unsettled).toEqual({ turn: 0, waitingOn: 'its own code (no model call or tool body of the turn is open)' });
  });

  it('not on the model call once that call has answered', async () => {
    const run = await runPeerScenario(parseScenario(SAY_HI, 'stuck.yaml'), stuck(true), { seed: 1, realWaitLimitMs: 50 });
    expect(run.unsettled?.waitingOn).toBe('its own code (no model call or tool body of the turn is open)');
  });
});
