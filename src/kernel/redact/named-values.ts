/**
 * A credential known only by its name. An AWS secret access key, or a session
 * token without its usual opening, is a bare base64 run: the default rules find
 * it where a text names it (`"SecretAccessKey": "…"`, `aws_session_token = …`).
 * Data holds it as an object's property — what the AWS SDK's AssumeRole returns,
 * `{ Credentials: { SecretAccessKey, SessionToken } }` — the name in the key,
 * the value alone in its string, which no rule can tell from any other text
 * (outside probe 63, F2: kept in a tool's logged output). Every walker that
 * redacts data (the log's copies, `redactDeep`) asks here for a string under a
 * key: under such a name, the value goes whole when the redactor removes it from
 * the pair written as JSON names it. A redactor without those rules (one dropped
 * by its id) keeps it, as it keeps the text.
 */
import { REDACTED } from './redacted.ts';

/**
 * The names the named rules know a value by (their key part), at the end of a key: `SecretAccessKey`,
 * `aws_session_token`, `aws-secret-access-key`, an `X-Amz-Security-Token` header.
 */
const CREDENTIAL_NAME = /(?:secret[_-]?access[_-]?key|session[_-]?token|security-token)$/i;

/** `value`, a string under `key`, redacted: by `redact`, and whole when `key` names a credential `redact` finds named. */
export function redactUnder(key: string, value: string, redact: (text: string) => string): string {
  const out = redact(value);
  if (!namesACredential(key)) return out;
  // As JSON names it, and as a header or a settings line does (`X-Amz-Security-Token: …`); on the value as given, so a
  // part another rule took first does not leave the rest.
  const named = redact(`"${key}": "${value}"`).includes(value) && redact(`${key}: ${value}`).includes(value);
  return named ? out : REDACTED;
}

/** A cheap look at the last letter first: nearly every key a step writes ends in neither. */
function namesACredential(key: string): boolean {
  if (key.length < 12) return false;
  const last = key.charCodeAt(key.length - 1) | 0x20;
  return (last === 0x79 || last === 0x6e) && CREDENTIAL_NAME.test(key); // y (…Key), n (…Token)
}
