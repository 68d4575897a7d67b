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
import { isUnsupported, type Unsupported } from '../../providers/contract-suite/harness.ts';
import { describeError, modelClientProblem, type ModelClient, type ModelResult } from '../kernel/index.ts';
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
 * no contract behaviour), or a harness that threw or answered no client: the case
 * fails, told in these words (the harness is the team's code, not loopgate's).
 * `secrets`: the credentials the harness gave so far, which the report redacts.
 */
export class OwnClientStepError extends Error {
  readonly secrets: readonly string[];
  constructor(message: string, secrets: readonly string[] = []) {
    super(message);
    this.name = 'OwnClientStepError';
    this.secrets = secrets;
  }
}

/**
 * Cases using each harness now: it is started for the first and stopped after
 * the last (cases may run at once), and started again only once that stop has
 * finished — a harness written for the contract suite expects one start, then
 * one stop.
 */
const inUse = new WeakMap<ContractHarness, { users: number; started: Promise<void> }>();
const stopping = new WeakMap<ContractHarness, Promise<void>>();

async function acquire(harness: ContractHarness): Promise<void> {
  let entry = inUse.get(harness);
  if (!entry) {
    const previous = stopping.get(harness) ?? Promise.resolve();
    entry = { users: 0, started: previous.then(() => harness.start?.()).then(() => undefined) };
    inUse.set(harness, entry);
  }
  entry.users++;
  try {
    await entry.started;
  } catch (error) {
    entry.users--;
    if (entry.users === 0 && inUse.get(harness) === entry) inUse.delete(harness);
    throw error;
  }
}

async function releaseHarness(harness: ContractHarness): Promise<void> {
  const entry = inUse.get(harness);
  if (!entry) return;
  entry.users--;
  if (entry.users > 0) return;
  inUse.delete(harness);
  const stopped = Promise.resolve()
    .then(() => harness.stop?.())
    .then(() => undefined);
  // The next start waits for this stop, whether it succeeds or not.
  stopping.set(
    harness,
    stopped.catch(() => undefined),
  );
  await stopped;
}

/** What `clientFor` answered, checked: a client to call, or why it cannot; else why the answer is neither. */
function checkedAnswer(made: unknown): HarnessClient | Unsupported | string {
  if (made === null || typeof made !== 'object') return `expected { client, secrets? } or { unsupported }, got ${made === null ? 'null' : typeof made}`;
  if ('unsupported' in made) {
    const why = (made as { unsupported: unknown }).unsupported;
    return typeof why === 'string' && why !== '' ? (made as Unsupported) : 'its { unsupported } gives no reason (a non-empty string)';
  }
  const problem = modelClientProblem((made as { client?: unknown }).client, 'client');
  if (problem) return `expected { client, secrets? } or { unsupported }: ${problem}`;
  const secrets = (made as { secrets?: unknown }).secrets;
  if (secrets !== undefined && !(Array.isArray(secrets) && secrets.every((x) => typeof x === 'string'))) return 'its secrets are not a list of strings';
  return made as HarnessClient;
}

export interface OwnProviderOptions {
  /** Which of the scenario's scripts: the primary's, or the fallback's (a client of its own, with a name of its own). */
  readonly which?: 'script' | 'fallback';
  /** The model the client is asked for (the scenario's `provider.model` or `fallbackModel`). */
  readonly model: string;
}

/**
 * The client of `name` (its `harness`) answering `steps` in order, one client per
 * step; `caseId` (unique per case) names each step's case to the harness. A call
 * past the script answers as the scripted provider does: an invalid request.
 * The primary is named `NAME:MODEL`, the fallback `NAME fallback:MODEL`: the loop
 * tells clients apart by name (a retry-after window is its client's).
 */
export async function ownProvider(
  name: string,
  harness: ContractHarness,
  steps: readonly ProviderStep[],
  caseId: string,
  options: OwnProviderOptions,
): Promise<OwnProviderHandle> {
  const which = options.which ?? 'script';
  try {
    await acquire(harness);
  } catch (error) {
    throw new OwnClientStepError(`client ${name}: its harness's start threw: ${describeError(error)}`);
  }
  const clients: HarnessClient[] = [];
  const secrets = () => [...new Set(clients.flatMap((c) => c.secrets ?? []))];
  try {
    const callIds = { next: 1 };
    for (let i = 0; i < steps.length; i++) {
      const where = `provider.${which}[${i}] (step ${i + 1})`;
      let behaviour;
      try {
        behaviour = behaviourFor(steps[i]!, i, callIds);
      } catch (error) {
        if (error instanceof WireStepError) throw new OwnClientStepError(`${where}: ${error.message}`, secrets());
        throw error;
      }
      let answer: unknown;
      try {
        answer = await harness.clientFor({ caseId: `${caseId}#${which}-${i + 1}`, behaviour });
      } catch (error) {
        throw new OwnClientStepError(`${where}: client ${name}'s harness threw making its client: ${describeError(error)}`, secrets());
      }
      const made = checkedAnswer(answer);
      if (typeof made === 'string') throw new OwnClientStepError(`${where}: client ${name}'s harness answered no client: ${made}`, secrets());
      if (isUnsupported(made)) throw new OwnClientStepError(`${where}: client ${name} cannot serve it: ${made.unsupported}`, secrets());
      clients.push(made);
    }
  } catch (error) {
    await releaseHarness(harness).catch(() => undefined);
    throw error;
  }
  let calls = 0;
  let current: number | undefined;
  let released: Promise<void> | undefined;
  /** Steps whose client rejected (a contract violation the loop retries as a network error, on the next step's client). */
  const rejected: string[] = [];
  const client: ModelClient = {
    name: which === 'script' ? `${name}:${options.model}` : `${name} fallback:${options.model}`,
    model: options.model,
    call: (request, onDelta) => {
      const index = calls++;
      current = index;
      const step = clients[index];
      if (!step) {
        const exhausted: ModelResult = {
          type: 'transport_error',
          kind: 'invalid_request',
          message: `scenario provider script exhausted at request ${index + 1}: add a step${rejected.length ? ` (${rejected.join('; ')}: the loop takes a rejection for a network error, and a retry of it went to the next step's client)` : ''}`,
        };
        return Promise.resolve(exhausted);
      }
      const told = (error: unknown): never => {
        rejected.push(`step ${index + 1}'s client rejected (${describeError(error)}), breaking the ModelClient contract`);
        throw error;
      };
      let answer: Promise<ModelResult>;
      try {
        answer = step.client.call(request, onDelta);
      } catch (error) {
        return told(error);
      }
      // A client that answers no promise breaks the contract another way: the loop is to see it as it is.
      return typeof (answer as { then?: unknown } | null)?.then === 'function' ? answer.then(undefined, told) : answer;
    },
  };
  return {
    client,
    secrets: secrets(),
    serving: () => (current === undefined ? undefined : steps[current]),
    // Once: the case lets go when it ends, and again if it threw while setting up.
    release: () => (released ??= releaseHarness(harness)),
  };
}
