/**
 * A scenario's provider through the team's own model client (`provider.kind:
 * own`, config `clients`). Each step of the script becomes the contract behaviour
 * it stands for — as on the wire (wire-provider.ts `behaviourFor`): a 429 with its
 * retry-after, a stream cut inside a call's arguments, a refusal — and the team's
 * contract harness (docs/own-provider.md) makes a client whose provider behaves
 * so. The loop's n-th call goes through the n-th step's client: the agent meets
 * the team's provider code under the scenario's compound faults.
 *
 * Every step's client is made before the case runs, so a step the harness cannot
 * say stops the case naming the step and the harness's reason, before any turn.
 */
import type { ContractHarness, HarnessClient } from '../../providers/contract-suite/harness.ts';
import { isUnsupported } from '../../providers/contract-suite/harness.ts';
import type { ModelClient, ModelResult } from '../kernel/index.ts';
import type { ProviderStep } from './scenario/schema.ts';
import { behaviourFor, WireStepError } from './wire-provider.ts';

export interface OwnProviderHandle {
  readonly client: ModelClient;
  /** The credentials the harness gave this case's clients: no report, trace or log of the case may carry one. */
  readonly secrets: readonly string[];
  /** The step being served: while a call runs, its own. */
  serving(): ProviderStep | undefined;
  /** Lets go of the harness (its `stop` once no case uses it). */
  release(): Promise<void>;
}

/**
 * A step the team's harness cannot make (its `unsupported` answer, or a step with
 * no contract behaviour), or a harness that threw: the case fails, told in these
 * words (the harness is the team's code, not loopgate's).
 */
export class OwnClientStepError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OwnClientStepError';
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** Cases using each harness now: it is started for the first and stopped after the last (cases may run at once). */
const inUse = new WeakMap<ContractHarness, { users: number; started: Promise<void> }>();

async function acquire(harness: ContractHarness): Promise<void> {
  let entry = inUse.get(harness);
  if (!entry) {
    entry = { users: 0, started: Promise.resolve(harness.start?.()).then(() => undefined) };
    inUse.set(harness, entry);
  }
  entry.users++;
  try {
    await entry.started;
  } catch (error) {
    entry.users--;
    if (entry.users === 0) inUse.delete(harness);
    throw error;
  }
}

async function releaseHarness(harness: ContractHarness): Promise<void> {
  const entry = inUse.get(harness);
  if (!entry) return;
  entry.users--;
  if (entry.users > 0) return;
  inUse.delete(harness);
  await harness.stop?.();
}

/**
 * The client of `name` (its `harness`) answering `steps` in order, one client per
 * step; `caseId` (unique per case) names each step's case to the harness. A call
 * past the script answers as the scripted provider does: an invalid request.
 */
export async function ownProvider(
  name: string,
  harness: ContractHarness,
  steps: readonly ProviderStep[],
  caseId: string,
  which: 'script' | 'fallback' = 'script',
): Promise<OwnProviderHandle> {
  try {
    await acquire(harness);
  } catch (error) {
    throw new OwnClientStepError(`client ${name}: its harness's start threw: ${errorText(error)}`);
  }
  const clients: HarnessClient[] = [];
  try {
    const callIds = { next: 1 };
    for (let i = 0; i < steps.length; i++) {
      const where = `provider.${which}[${i}] (step ${i + 1})`;
      let behaviour;
      try {
        behaviour = behaviourFor(steps[i]!, i, callIds);
      } catch (error) {
        if (error instanceof WireStepError) throw new OwnClientStepError(`${where}: ${error.message}`);
        throw error;
      }
      let made;
      try {
        made = await harness.clientFor({ caseId: `${caseId}#${which}-${i + 1}`, behaviour });
      } catch (error) {
        throw new OwnClientStepError(`${where}: client ${name}'s harness threw making its client: ${errorText(error)}`);
      }
      if (isUnsupported(made)) throw new OwnClientStepError(`${where}: client ${name} cannot serve it: ${made.unsupported}`);
      clients.push(made);
    }
  } catch (error) {
    await releaseHarness(harness);
    throw error;
  }
  let calls = 0;
  let current: number | undefined;
  const client: ModelClient = {
    name,
    ...(clients[0]?.client.model !== undefined ? { model: clients[0].client.model } : {}),
    call: (request, onDelta) => {
      const index = calls++;
      current = index;
      const step = clients[index];
      if (!step) {
        const exhausted: ModelResult = {
          type: 'transport_error',
          kind: 'invalid_request',
          message: `scenario provider script exhausted at request ${index + 1}: add a step`,
        };
        return Promise.resolve(exhausted);
      }
      return step.client.call(request, onDelta);
    },
  };
  return {
    client,
    secrets: [...new Set(clients.flatMap((c) => c.secrets ?? []))],
    serving: () => (current === undefined ? undefined : steps[current]),
    release: () => releaseHarness(harness),
  };
}
