/**
 * Credentials nobody configured are redacted by their shape: a key of a kind
 * loopgate knows (an API key, a token, a password in a URL, a private key
 * block), planted in what the customer says, what a tool returns or what the
 * model writes, can never be read back from anything the run stores, exports,
 * writes or returns. Invariant 15 covers the secrets a deployment lists; this
 * one covers the ones it did not know about — the default rules.
 *
 * The planted keys are known samples (support/credential-samples.ts), written
 * out by hand: the check looks for each sample's key part, not for the rules'
 * patterns, so a rule that stops matching its shape, or a redactor that skips
 * the rules, shows. Only runs whose scenario holds a sample are searched.
 *
 * On another framework's loop (which redacts nothing of its own) the rule is
 * what production would do with a credential a tool, a user or the model let
 * out: no request the model was sent and no persisted history may hold a key of
 * a known shape (each rule's own pattern: the team's tool may emit any key of
 * that shape, not only a planted sample). Named by rule, never shown (outside
 * probe 25, F8: a tool leaking a live Stripe key passed the AI SDK loop).
 */
import { renderMessages } from '../render.ts';
import { SECRET_RULES } from '../../kernel/index.ts';
import type { PeerRun } from '../loop-port/peer-run.ts';
import { finalHistory } from '../loop-port/peer-run.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant } from './invariant.ts';
import { CREDENTIAL_SAMPLES } from './support/credential-samples.ts';
import { runArtifacts } from './support/run-artifacts.ts';
import { secretHint } from './support/secret-hint.ts';

export const credentialShapesRedacted = defineInvariant({
  id: 'credential-shapes-redacted',
  title: 'a credential of a known shape nobody configured, planted anywhere, can never be read back from anything the run keeps or returns',
  check: (run) => shapesKeptOut(run),
  checkObservable: (run) => shapesNeverSentByAPeer(run),
});

function shapesNeverSentByAPeer(run: PeerRun): string | undefined {
  const places: [string, () => readonly string[]][] = [
    ...run.requests.map((r, i): [string, () => readonly string[]] => [`model request ${i + 1}`, () => [r.system ?? '', ...renderMessages(r.messages)]]),
    ['the persisted history', () => renderMessages(finalHistory(run))],
  ];
  for (const [where, lines] of places) {
    const text = lines().join('\n');
    for (const rule of SECRET_RULES) {
      rule.pattern.lastIndex = 0;
      const found = rule.pattern.exec(text);
      rule.pattern.lastIndex = 0;
      if (found && found[0].length >= rule.minLength)
        return `a credential of a known shape (${rule.description}, ${found[0].length} characters), configured nowhere, reached ${where}: ${run.loop.id} redacts none`;
    }
  }
  return undefined;
}

function shapesKeptOut(run: ScenarioRun): string | undefined {
  const scenario = JSON.stringify(run.scenario);
  const planted = CREDENTIAL_SAMPLES.filter((s) => scenario.includes(s.tell));
  if (planted.length === 0) return undefined;
  for (const [where, text] of runArtifacts(run)) {
    const haystack = text();
    for (const sample of planted) {
      if (haystack.includes(sample.tell))
        return `a planted ${sample.rule} credential (${secretHint(sample.tell)}), configured nowhere, can be read back from ${where}`;
    }
  }
  return undefined;
}
