import { PATTERN_HOLD } from '../../kernel/index.ts';

/**
 * The secret the fuzzer plants: a made-up payment key. A case that lists it in
 * `secrets` has it in the customer's first message; the provider's script may
 * echo it in a streamed reply (split across deltas, plain or encoded) or use it in a call id —
 * redaction must keep every form of it out of everything the run stores,
 * exports, writes or returns (invariant 15).
 */
export const FUZZ_SECRET = 'sk_live_FUZZ0123456789abcdef';

/**
 * A second planted secret of no credential shape: no default rule matches it, or
 * any part of it. The key above is also caught by a rule (a Stripe-like shape),
 * which hides a stream redactor that lets a split secret through: only the
 * configured value itself can catch that, so this one must be found by it alone.
 * It holds a character outside ASCII (é), so its URL-encoded form is UTF-8 bytes
 * and its JSON-escaped one `\u00e9`, as browsers and Python write them; and `~`
 * and `?`, so its base64 holds `+` or `/` at every byte alignment: its URL-safe
 * base64 is a text of its own (outside probe 29, plant R1: a redactor that forgot
 * that alphabet passed fuzz, the secrets' two base64 forms being the same).
 */
export const FUZZ_PASSPHRASE = 'orchard~FUZZ~7731?téal-quill-0042';

/**
 * A third planted secret, long (80 characters) like a signing key or a JWT: its
 * every-character `\u` escape (480) is far longer than the 256 characters the
 * stream redactor holds back for credential shapes, so only a stream that holds
 * back as much as a secret's longest form keeps it whole (outside probe 29,
 * plant R6: every fuzzed secret was short enough for the floor to hide it).
 */
export const FUZZ_SIGNING_KEY = 'fuzz-signing-key-7Hq2Lw9Zt4Vx8Kc3Nd6Rf1Bm5Gs0Jp2Yw7Tq4Lz9Xe3Ua6Ob1Ic8Rn5Mv2Kd7Hs';

/**
 * A fourth planted secret, short (8 characters, a PIN or an account code): too short to have pieces of its own
 * (secret-pieces.ts: a piece is 8 characters or more, and shorter than the secret), so only the redactor's search for
 * the value itself finds it. Every other planted secret is long enough that its pieces hid a redactor that never
 * searched for the whole value (outside probe 60, P09: that plant passed fuzz; only bundled short secrets caught it).
 */
export const FUZZ_PIN = 'pin~7731';

/** Every secret a fuzz case that plants them lists. */
export const FUZZ_SECRETS: readonly string[] = [FUZZ_SECRET, FUZZ_PASSPHRASE, FUZZ_SIGNING_KEY, FUZZ_PIN];

/** A reply that echoes both secrets: streamed in pieces, each is split across deltas. */
export const SECRET_ECHO_REPLY = `I noted your key ${FUZZ_SECRET} and passphrase ${FUZZ_PASSPHRASE}; please rotate them.`;

/**
 * A long streamed reply (`length` characters, more than the stream redactor's
 * hold) with the passphrase lying across the last cut the redactor may make:
 * `into` of its characters before `length - hold`, the rest after. With three
 * deltas of a third each and a length near three holds, that cut is also where
 * the second delta ends, so the passphrase is split across chunks as well. A
 * redactor that lets out all but the held tail without moving the cut to the
 * secret's start stores it in two deltas that rebuild it (outside probe 9,
 * plant P06). The passphrase has no credential shape: only its value finds it.
 *
 * With `piece`, only the passphrase's first `piece` characters are there (a
 * piece of half of it or more, which the redactor replaces too): cut in the
 * middle, each side is under half, so neither is replaced alone and joined they
 * give the piece away (`secret-fragments-never-leave`). A whole passphrase cut
 * anywhere leaves one side of half or more, which the redactor replaces: only a
 * piece so cut can show a redactor that cuts inside a secret.
 */
export function secretAcrossHoldReply(length: number, into: number, hold = PATTERN_HOLD, piece?: number): string {
  const filler = 'The task finished in time, and the output matches the plans. ';
  const pad = (n: number) => filler.repeat(Math.ceil(n / filler.length) + 1).slice(0, Math.max(0, n));
  const text = piece === undefined ? FUZZ_PASSPHRASE : FUZZ_PASSPHRASE.slice(0, Math.max(2, Math.min(piece, FUZZ_PASSPHRASE.length - 1)));
  const at = Math.max(0, length - hold - Math.min(Math.max(1, into), text.length - 1));
  return `${pad(at)}${text}${pad(length - at - text.length)}`;
}

/** An argument a model fills from what it read: the passphrase, streamed inside the call's argument text. */
export const SECRET_ECHO_ARGUMENT = `the user gave passphrase ${FUZZ_PASSPHRASE}`;

/** A call id that carries the secret (a model choosing ids from what it read). */
export const SECRET_CALL_ID = `key-${FUZZ_SECRET}`;

/**
 * A tool output carrying the secrets encoded, as integrations do: base64 inside a basic-auth value,
 * URL-encoded in a query string, the passphrase URL-encoded as UTF-8 and JSON-escaped outside ASCII, and each
 * cased whole (a normalised header, a lower-cased log line).
 * The base64 values put a secret at each byte offset modulo 3 (0, 1 and 2: the encoded characters differ
 * at each), so a redactor that knows only one alignment lets the others through (probe 14, P15: base64
 * forms found at offset 0 only passed 1000 cases).
 */
export const SECRET_ENCODED_OUTPUT = {
  auth: Buffer.from(`u:${FUZZ_SECRET}`).toString('base64'),
  token: Buffer.from(FUZZ_SECRET).toString('base64'),
  session: Buffer.from(`a${FUZZ_SECRET}`).toString('base64'),
  state: Buffer.from(`{"pw":"${FUZZ_PASSPHRASE}"}`).toString('base64url'),
  // URL-safe base64 at the other two alignments (a JWT segment, a URL token).
  jwt: Buffer.from(`${FUZZ_PASSPHRASE}`).toString('base64url'),
  link: Buffer.from(`i=${FUZZ_PASSPHRASE}`).toString('base64url'),
  callback: `https://example.test/hook?key=${encodeURIComponent(FUZZ_SECRET).replaceAll('_', '%5F')}`,
  login: `https://example.test/login?pw=${encodeURIComponent(FUZZ_PASSPHRASE)}`,
  escaped: FUZZ_PASSPHRASE.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
  // Cased whole, as a proxy normalises a header or a log prints a key in capitals (outside probe 38, P12: a redactor
  // that forgot cased copies passed 1,000 fuzz cases, none holding one).
  // Those other rules catch a part of the payment key's (its shape, its digits), so the passphrase and the signing key.
  // Typed in groups, as people type a card number (outside probe 50, MED-2: stored as typed, no run of it reaching half).
  grouped: `key ${FUZZ_SECRET.match(/.{1,4}/g)!.join(' ')} on file`,
  // And a piece of it typed apart, its first 8 characters left out (review of stop 56, M1).
  groupedPiece: `key ending ${FUZZ_SECRET.slice(8)
    .match(/.{1,4}/g)!
    .join('-')}`,
  // With a zero-width space between its characters, which no one sees (outside probe 52, LOW-1: stored and reported as
  // typed); and a piece of another so, soft hyphens between.
  unseen: `pass ${[...FUZZ_PASSPHRASE].join('\u200b')} here`,
  unseenPiece: `sig ${[...FUZZ_SIGNING_KEY.slice(0, 56)].join('\u00ad')} here`,
  header: `X-SIGNATURE: ${FUZZ_SIGNING_KEY.toUpperCase()}`,
  shouted: FUZZ_PASSPHRASE.toUpperCase(),
  normalised: FUZZ_SIGNING_KEY.toLowerCase(),
};

/**
 * A reply that echoes the secrets encoded, as a model copies them from what a tool returned: streamed in
 * pieces, the encoded forms are split across deltas. Only a stream redactor that holds back enough for
 * an encoded form (longer than the secret) keeps each whole (outside probe 27, P11: a hold of 12
 * characters passed 1,800 fuzz runs, the fuzzer never streaming an encoded secret).
 */
export const SECRET_ENCODED_REPLY = `Your header was Basic ${SECRET_ENCODED_OUTPUT.auth}, the token ${SECRET_ENCODED_OUTPUT.session}, the state ${SECRET_ENCODED_OUTPUT.state} and the sign-in link ${SECRET_ENCODED_OUTPUT.login}, and the ${SECRET_ENCODED_OUTPUT.grouped}, and the ${SECRET_ENCODED_OUTPUT.unseen}; please rotate them.`;

/**
 * A reply that quotes the long signing key as a JSON config writes it, every
 * character `\u`-escaped (480 characters), 30 characters in, 600 in all: streamed
 * in three deltas, the second ends at 400, inside the escaped key. A stream
 * redactor that held back only its 256-character floor would let out the first
 * 144 characters there — the key's escaped head — before the key is whole.
 */
export const SECRET_LONG_ESCAPED_REPLY = (() => {
  const escaped = [...FUZZ_SIGNING_KEY].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
  const head = 'Your config signs with this: "';
  const tail = '". It is in your repository, so rotate it now and keep the new one out of git. ';
  return `${head}${escaped}${tail}`.padEnd(600, '.');
})();

/**
 * Log lines each holding the passphrase, at least `size` characters after a
 * `lead` of other text, whole lines only (a piece of the secret in the output
 * itself would leak whatever the loop does): wherever a cap between 20 and
 * `size` falls, it most likely falls inside a copy (a line is 41 characters, 33
 * of them the passphrase).
 */
export function secretNearCut(size: number, lead: number): string {
  const line = `key=${FUZZ_PASSPHRASE};\n  `;
  return '.'.repeat(lead) + line.repeat(Math.ceil(size / line.length));
}
