/** Secret redaction: the redactor, its rule set, the encoded forms of a secret, structured data and streams. */
export { createRedactor, DEFAULT_SECRET_PATTERNS, REDACTED, secretsFromEnv, type Redactor, type RedactorOptions, type Span } from './redactor.ts';
export { SECRET_RULES, type SecretRule } from './secret-rules.ts';
export { containsSecret, MAX_SECRETS, MIN_SECRET_LENGTH, redactEncodedForms, secretFinder } from './secret-forms.ts';
export { holdsSecretPiece, redactSecretPieces, secretPieceLength } from './secret-pieces.ts';
export { redactDeep, setOwn } from './redact-deep.ts';
export { exactSecretStream, PATTERN_HOLD, streamRedactor, type StreamRedactor } from './stream.ts';
