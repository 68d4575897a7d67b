/**
 * The agent's own prompt fragments give their text: a dynamic fragment of the
 * agent that throws, or gives something that is not text, is left out of the
 * system prompt (the loop records it and goes on, as it must). One that does so
 * at every call of a case — the model never once told what it says — is a fault
 * of the agent's code, and the case fails naming the fragment, what it threw and
 * at which request: a team's fragment that threw on every request (a stock
 * service it calls, not there in CI) passed the gate, no report naming it
 * (outside probe 52, MED-1). One that fails now and then (a flaky service the
 * agent is built to live with) is the path the loop handles: not a failure. A
 * fragment with nothing to say gives `''`, not a throw.
 *
 * Read from what each call of a dynamic fragment gave, as the world recorded it
 * (world/scripted-prompt.ts), not from the loop's record. A fragment the scenario
 * adds (`prompt:`) — one scripted to throw among them — is the world's, not the
 * agent's: not judged (`prompt-follows-fragments` checks the loop leaves it out).
 */
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';

export const agentFragmentsGiveText = defineInvariant({
  id: 'agent-fragments-give-text',
  title: "each of the agent's own dynamic prompt fragments gives its text at least once in a case: none fails at every call",
  appliesTo: loopgateOnly("a peer's prompt is its own, not assembled from fragments"),
  check: (run) => fragmentsGaveText(run),
});

function fragmentsGaveText(run: ScenarioRun): string | undefined {
  const scripted = new Set((run.scenario.prompt ?? []).map((f) => f.id));
  const { callsAt } = run.prompt;
  // Per fragment of the agent: whether a call of it ever gave text, how often it was called, and its first failure.
  const seen = new Map<string, { text: boolean; calls: number; first?: { request: number; what: string } }>();
  for (let i = 0; i < run.requests.length; i++) {
    const calls = callsAt.get(run.requests[i]!);
    if (calls === undefined) continue;
    for (const [id, call] of calls) {
      if (scripted.has(id)) continue;
      const s = seen.get(id) ?? { text: false, calls: 0 };
      s.calls++;
      if ('text' in call) s.text = true;
      else s.first ??= { request: i + 1, what: 'threw' in call ? `threw (${clip(call.threw)})` : `gave ${article(call.returned)}, not text,` };
      seen.set(id, s);
    }
  }
  for (const [id, s] of seen) {
    // Also text given at an assembly whose request never went out (the record of each request keeps its last call).
    if (s.text || !s.first || run.prompt.gaveText.has(id)) continue;
    const each = s.calls === 1 ? 'at its one call' : `at each of its ${s.calls} calls`;
    return `the agent's prompt fragment ${id} never gave its text: it ${s.first.what} ${each} (first at request ${s.first.request}), so the model never saw it`;
  }
  return undefined;
}

function article(kind: string): string {
  return kind === 'null' || kind === 'undefined' ? kind : /^[aeiou]/.test(kind) ? `an ${kind}` : `a ${kind}`;
}

function clip(text: string): string {
  return text.length > 160 ? `${text.slice(0, 159)}…` : text;
}
