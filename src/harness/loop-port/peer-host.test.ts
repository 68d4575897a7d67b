/**
 * What a turn that never settles waits on, as the port tells it: a body, a model call, or — a runTurn that never
 * called the model (outside probe 54: it was said to wait on "the model call") — the loop's own code.
 */
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../scenario/load.ts';
import { runPeerScenario } from './peer-host.ts';
import type { LoopUnderTestFactory, PeerAdapter } from './peer-world.ts';

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

/**
 * A team's loop that cannot be built, or hands back an adapter missing what the port reads, fails each case in its
 * own words — the loop, the member, the error's message — not with loopgate's stack (outside probe 54, LOW).
 */
describe('a loop that cannot be built', () => {
  const built = (make: LoopUnderTestFactory['create']): LoopUnderTestFactory => ({ ...stuck(false), id: 'vault-loop', create: make });
  const adapter = (): PeerAdapter => ({ runTurn: async () => new Promise(() => {}), persistedHistory: () => [], traces: () => [] });
  const failure = async (factory: LoopUnderTestFactory) => {
    const error = await runPeerScenario(parseScenario(SAY_HI, 'hi.yaml'), factory, { seed: 1, realWaitLimitMs: 50 }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.name).toBe('AgentBuildError');
    expect(error?.message).not.toMatch(/\n|\bat .*\.(ts|js):\d+/);
    return error?.message;
  };

  it('names the loop and create when create throws', async () => {
    expect(
      await failure(
        built(() => {
          throw new Error('cannot reach the vault');
        }),
      ),
    ).toBe('vault-loop: create(world) threw: cannot reach the vault');
  });

  it('names what the adapter lacks', async () => {
    const { traces: _, ...noTraces } = adapter();
    expect(await failure(built(() => noTraces as never))).toBe(
      'vault-loop: create(world) returned an adapter without traces(): a PeerAdapter has runTurn(turn), persistedHistory() and traces()',
    );
    expect(await failure(built(() => undefined as never))).toBe(
      'vault-loop: create(world) returned undefined, not an adapter: a PeerAdapter has runTurn(turn), persistedHistory() and traces()',
    );
  });

  it('names traces() or persistedHistory() when they throw', async () => {
    const throwing = (member: 'traces' | 'persistedHistory') =>
      built(() => ({
        ...adapter(),
        [member]: () => {
          throw new Error('spans gone');
        },
      }));
    expect(await failure(throwing('traces'))).toBe('vault-loop: traces() threw: spans gone');
    expect(await failure(throwing('persistedHistory'))).toBe('vault-loop: persistedHistory() threw: spans gone');
  });
});

/**
 * The secrets a loop is told are a copy it cannot change: the run is judged on the case's own (review of stop 69: a
 * loop that cleared `world.secrets` after building its redactor emptied the list invariant 15 judges it on).
 */
describe('the secrets a loop is told', () => {
  it('stay the case’s when the loop clears its own list', async () => {
    const secret = 'ledger-key-Vt82nQx4Lm7Rp3Ks';
    const clears: LoopUnderTestFactory = {
      ...stuck(false),
      id: 'clears',
      create: (world) => {
        try {
          (world.secrets as string[]).length = 0;
        } catch {
          // frozen: the loop cannot change what it is judged on
        }
        return {
          runTurn: async ({ turn }) => ({
            turn,
            outcome: { kind: 'replied' },
            ending: { kind: 'resolved' },
            reply: `kept ${secret}`,
            steps: 1,
            usage: { inputTokens: 1, outputTokens: 1 },
          }),
          persistedHistory: () => [],
          traces: () => [],
        };
      },
    };
    const run = await runPeerScenario(parseScenario(`secrets: ['${secret}']\n${SAY_HI}`, 'clears.yaml'), clears, { seed: 1, realWaitLimitMs: 50 });
    expect(run.secrets).toEqual([secret]);
  });
});
