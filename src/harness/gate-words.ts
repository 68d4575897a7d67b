/**
 * Secrets the gate refuses besides the loop's own words (kernel/vocabulary.ts):
 * one held by the text the gate writes on its own — the reports' structure in
 * every format (report/own-text.ts: a results.json key, a status, a JUnit tag,
 * a case id's kind), the `@host` of a production-host case, the scripted
 * model's names, every invariant's id and every expectation's name (the checks
 * a case reports). Every string of the reports passes the run's redactor, so
 * such a secret garbles them: results.json no longer reads back, or every case
 * fails invariant 15, which reads the same renderings (outside probe 64, F10).
 *
 * Checked the way the reports redact (a redactor of the secret alone: its
 * forms and its pieces), on the agents' secrets when the config loads and on a
 * scenario's when it is checked.
 */
import { createRedactor, MIN_SECRET_LENGTH } from '../kernel/index.ts';
import { reportsOwnText } from '../report/own-text.ts';
import { INVARIANTS } from './invariants/index.ts';
import { expectationSchema } from './scenario/schema.ts';

/** What a refusal says the secret would garble. */
export const GARBLES_THE_REPORTS =
  'a word the gate writes into its reports (a field name, status, JUnit tag, case id or check name): redacting it would garble every report';

let text: string | undefined;

/** Each word of it once (a tenth of its length: the HTML report's script and style repeat their words). */
function gateText(): string {
  text ??= [
    ...new Set(reportsOwnText().split(/\s+/)),
    '@host scenario-model fallback-model',
    ...INVARIANTS.map((invariant) => invariant.id),
    ...Object.keys(expectationSchema.shape),
  ].join('\n');
  return text;
}

/** The indexes of the secrets (of at least 4 characters) the gate's own text holds, in any form the reports redact. */
export function secretsGarblingTheReports(secrets: readonly unknown[]): number[] {
  const candidates = secrets.flatMap((s, i) => (typeof s === 'string' && s.length >= MIN_SECRET_LENGTH ? [{ s, i }] : []));
  if (candidates.length === 0) return [];
  const all = gateText();
  // One scan for all of them; only when it changes something, one per secret.
  if (createRedactor({ secrets: candidates.map((c) => c.s), patterns: [] })(all) === all) return [];
  return candidates.filter(({ s }) => createRedactor({ secrets: [s], patterns: [] })(all) !== all).map(({ i }) => i);
}
