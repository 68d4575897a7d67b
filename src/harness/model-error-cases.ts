/**
 * The kernel's outcome for a model transport error, as an agent's own handler
 * uses it: `contract:model-errors/<id>`.
 *
 * `outcomeForTransport` is exported for agents' own model-error handlers (asked
 * before the loop's built-in ones): a handler that fails a transport error at
 * once — a batch agent that never waits for a retry — takes the kernel's outcome
 * for it. The loop's own chain never reaches it for every kind (fail-fast
 * answers auth and invalid_request first), so no scenario would notice a wrong
 * mapping; here an agent whose handler fails every transport error with it
 * meets each kind once (9), and each turn must end with the outcome the kernel
 * documents for that kind.
 */
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { transportError } from '../../providers/fake/results.ts';
import { AgentLoop, EventLog, loopDeps, outcomeForTransport, type Agent, type ModelErrorHandler, type Outcome } from '../kernel/index.ts';
import type { TransportErrorKind } from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { checksCase, type Case } from './cases.ts';
import { VirtualClock } from './virtual-clock.ts';

/** Each kind (every one: a new kind must be added here), and the outcome a turn it ends must carry (kind/reason). */
const EXPECTED: Record<TransportErrorKind, string> = {
  auth: 'failed/auth',
  invalid_request: 'failed/invalid_request',
  rate_limited: 'failed/rate_limited',
  timeout: 'failed/provider_unavailable',
  overloaded: 'failed/provider_unavailable',
  server_error: 'failed/provider_unavailable',
  network: 'failed/provider_unavailable',
  malformed_stream: 'failed/provider_unavailable',
  aborted: 'failed/provider_unavailable',
};

/** The agent's handler: every transport error fails the turn at once, with the kernel's outcome for it. */
const neverRetry: ModelErrorHandler = {
  name: 'never-retry',
  handle: (error) =>
    error.type === 'transport_error' ? { action: 'fail', outcome: outcomeForTransport(error), detail: 'this agent never retries' } : undefined,
};

const label = (outcome: Outcome | undefined): string =>
  outcome === undefined ? 'no outcome' : `${outcome.kind}${'reason' in outcome ? `/${String(outcome.reason)}` : ''}`;

async function ownHandlerFailsEachKindWithItsOutcome(): Promise<CheckResult[]> {
  const checks: CheckResult[] = [];
  for (const [kind, expected] of Object.entries(EXPECTED) as [TransportErrorKind, string][]) {
    const agent: Agent = { errorHandlers: [neverRetry] };
    const clock = new VirtualClock();
    const model = new ScriptedModelClient([transportError(kind, { message: `the provider said ${kind}` })], { clock });
    const loop = new AgentLoop(loopDeps({ log: new EventLog(clock), model, agent, clock }));
    loop.send('Summarise the ticket.', { id: `ask-${kind}` });
    const [result] = await loop.drain();
    const actual = label(result?.outcome);
    checks.push({
      name: `${kind}: ${expected}`,
      passed: actual === expected,
      message: `a transport error of kind ${kind} the agent's handler failed with outcomeForTransport ended the turn ${actual}`,
      expected,
      actual,
    });
  }
  return checks;
}

export function modelErrorCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:model-errors/own-handler-fails-each-kind-with-its-outcome',
        title: "model errors: an agent's handler that fails every transport error with outcomeForTransport ends each turn with that kind's outcome",
        file: 'src/harness/model-error-cases.ts',
      },
      ownHandlerFailsEachKindWithItsOutcome,
    ),
  ];
}
