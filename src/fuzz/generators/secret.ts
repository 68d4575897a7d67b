/**
 * The secret the fuzzer plants: a made-up payment key. A case that lists it in
 * `secrets` has it in the customer's first message; the provider's script may
 * echo it in a streamed reply (split across deltas) or use it in a call id —
 * redaction must keep every form of it out of everything the run stores,
 * exports, writes or returns (invariant 15).
 */
export const FUZZ_SECRET = 'sk_live_FUZZ0123456789abcdef';

/** A reply that echoes the secret: streamed in pieces, the key is split across deltas. */
export const SECRET_ECHO_REPLY = `I noted your key ${FUZZ_SECRET}; please rotate it.`;

/** A call id that carries the secret (a model choosing ids from what it read). */
export const SECRET_CALL_ID = `key-${FUZZ_SECRET}`;

/** A tool output carrying the secret encoded, as integrations do: base64 inside a basic-auth value, URL-encoded in a query string. */
export const SECRET_ENCODED_OUTPUT = {
  auth: Buffer.from(`u:${FUZZ_SECRET}`).toString('base64'),
  callback: `https://example.test/hook?key=${encodeURIComponent(FUZZ_SECRET).replaceAll('_', '%5F')}`,
};
