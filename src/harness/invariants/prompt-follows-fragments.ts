/**
 * The system prompt the model received is the one its fragments make (seed 000
 * §4): for every request, the prompt actually sent — not the one the loop
 * recorded, which invariant 1 already compares the request with — equals a
 * reference assembly of the agent's fragments (support/reference-prompt.ts), with
 * each dynamic fragment's text as it gave it for that request. A priority order
 * turned around, an `exclusive` fragment ignored, a failed fragment kept or a
 * dropped one still called shows here, in `loopgate run` and `loopgate fuzz` alike.
 */
import { createRedactor } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { referenceSystem } from './support/reference-prompt.ts';

export const promptFollowsFragments = defineInvariant({
  id: 'prompt-follows-fragments',
  title: 'the system prompt each request carried is the one its fragments make, by priority, with exclusive and failed fragments honoured',
  appliesTo: loopgateOnly("a peer's prompt is its own, not assembled from fragments"),
  check: (run) => promptsFollowFragments(run),
});

function promptsFollowFragments(run: ScenarioRun): string | undefined {
  const { parts, callsAt } = run.prompt;
  if (parts.length === 0) return undefined;
  let redact: ((text: string) => string) | undefined;
  for (let i = 0; i < run.requests.length; i++) {
    const sent = run.requests[i]!;
    const calls = callsAt.get(sent);
    if (calls === undefined) continue; // a request the world did not see go out (a host-supplied client)
    const reference = referenceSystem(parts, calls);
    if ('problem' in reference) return `request ${i + 1}: ${reference.problem}`;
    if (sent.system === reference.system) continue;
    // The log redacts what it stores, and the request carries the prompt the log recorded.
    redact ??= createRedactor({ secrets: run.secrets });
    const expected = redact(reference.system);
    if (sent.system !== expected)
      return `request ${i + 1}: the system prompt sent is not the one its fragments make (${parts.map((p) => `${p.id}@${p.priority}${p.exclusive ? ' exclusive' : ''}`).join(', ')}): expected ${JSON.stringify(expected)}, sent ${JSON.stringify(sent.system)}`;
  }
  return undefined;
}
