/**
 * Pieces of a secret: half of one gives half of it away. What counts: a run of
 * at least half the secret's characters and at least 8 (shorter runs turn up in
 * ordinary text, and a credential's public prefix — `sk_live_`, `ghp_` — is at
 * most a third of the key it starts). A secret of 8 characters or fewer has no
 * piece but itself. For values that are kept as they are and cannot be
 * redacted in part — ids — so they are refused instead.
 */
import { MIN_SECRET_LENGTH } from './secret-forms.ts';

/** Shortest piece of a secret counted (the run of at least 8 characters and half of it). */
export const MIN_PIECE = 8;

/** The shortest piece of `secret` that gives part of it away, or undefined when only the whole secret does. */
export function secretPieceLength(secret: string): number | undefined {
  const length = Math.max(MIN_PIECE, Math.ceil(secret.length / 2));
  return length < secret.length ? length : undefined;
}

/** Whether `text` holds `secret`, or a piece of it `secretPieceLength` long or longer, as it is. */
export function holdsSecretPiece(text: string, secret: string): boolean {
  if (secret.length < MIN_SECRET_LENGTH) return false;
  const min = secretPieceLength(secret);
  if (min === undefined) return text.includes(secret);
  for (let start = 0; start + min <= secret.length; start++) if (text.includes(secret.slice(start, start + min))) return true;
  return false;
}

/**
 * `text` with every run of `secretPieceLength` or more of a secret's characters
 * replaced by `marker` (the whole secret included): for reports, which show what
 * a run wrote and must not show half a secret it leaked.
 */
export function redactSecretPieces(text: string, secrets: readonly string[], marker: string): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    if (out.includes(secret)) out = out.split(secret).join(marker);
    const min = secretPieceLength(secret);
    if (min === undefined || !holdsSecretPiece(out, secret)) continue; // any longer piece holds one of the shortest
    // Longest pieces first, so a long run goes whole rather than leaving a tail of its own.
    for (let length = secret.length - 1; length >= min; length--) {
      for (let start = 0; start + length <= secret.length; start++) {
        const piece = secret.slice(start, start + length);
        if (out.includes(piece)) out = out.split(piece).join(marker);
      }
    }
  }
  return out;
}
