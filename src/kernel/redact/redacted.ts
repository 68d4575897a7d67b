/** What a secret is replaced with, wherever it is found. */
export const REDACTED = '[REDACTED]';
