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
 */
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { CREDENTIAL_SAMPLES } from './support/credential-samples.ts';
import { runArtifacts } from './support/run-artifacts.ts';

export const credentialShapesRedacted = defineInvariant({
  id: 'credential-shapes-redacted',
  title: 'a credential of a known shape nobody configured, planted anywhere, can never be read back from anything the run keeps or returns',
  appliesTo: loopgateOnly('a peer redacts no credential shapes of its own (only configured secrets are checked for it, by invariant 15)'),
  check: (run) => shapesKeptOut(run),
});

function shapesKeptOut(run: ScenarioRun): string | undefined {
  const scenario = JSON.stringify(run.scenario);
  const planted = CREDENTIAL_SAMPLES.filter((s) => scenario.includes(s.tell));
  if (planted.length === 0) return undefined;
  for (const [where, text] of runArtifacts(run)) {
    const haystack = text();
    for (const sample of planted) {
      if (haystack.includes(sample.tell))
        return `a planted ${sample.rule} credential (${sample.tell.slice(0, 4)}…), configured nowhere, can be read back from ${where}`;
    }
  }
  return undefined;
}
