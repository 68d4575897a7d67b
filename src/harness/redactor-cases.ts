/**
 * Where a redactor finds secrets, as a case of `loopgate run`:
 * `contract:redactor/<id>`.
 *
 * `createRedactor` is public (the package's index exports it), and so is what
 * its `find(text)` answers: the spans of the secrets in a text, sorted by start
 * (`Redactor.find`'s documented contract) — what a team's own stream redactor
 * or a UI that marks secrets in a transcript reads. The loop itself only moves
 * a cut left past every span (stream.ts `safeCut`), which any order gives, so
 * no scenario sees the order: this case asks `find`. The text holds a
 * configured secret that is also a credential shape (found twice: as the secret
 * and by the pattern), then a second secret.
 *
 * A host keeps one redactor for as long as its agents' secrets and tools stay
 * the same (host.ts `#learn`), and its log passes every string of every event
 * through it: the redactor's memo of short strings must stay bounded, or a
 * long-running host keeps every id, timestamp and short text it ever logged.
 * `contract:redactor/memo-stays-bounded` redacts 60,000 distinct short texts
 * through one redactor and weighs the heap (after a full collection) with the
 * redactor still alive.
 *
 * `SECRET_RULES` is public too: each default credential shape with a stable id
 * after gitleaks' rule names, by which a team picks the rules it keeps (a
 * redactor's `patterns`): one whose JWTs are public id tokens, not secrets,
 * drops the rule `jwt` and keeps every other. No scenario reads an id (the
 * redactor uses the patterns alone), so `contract:redactor/default-rules-by-their-ids`
 * looks each rule up by the id its known sample (invariants/support/credential-samples.ts)
 * names, and drops one by its id.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  containsSecret,
  createRedactor,
  exactSecretStream,
  holdsSecretPiece,
  PATTERN_HOLD,
  redactDeep,
  redactorGarbles,
  SECRET_RULES,
  secretFinder,
  secretsFromEnv,
  streamRedactor,
  type StreamRedactor,
} from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { checksCase, type Case } from './cases.ts';
import { scrubExchanges } from '../../providers/recording/scrub.ts';
import { CREDENTIAL_SAMPLES } from './invariants/support/credential-samples.ts';
import { NaiveDecodings } from './invariants/support/naive-decodings.ts';
import { longestFragment } from './invariants/secret-fragments-never-leave.ts';

const KEY = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';
const PASSWORD = 'hunter2-correct-horse';

function findSorted(): CheckResult[] {
  const text = `key=${KEY} password=${PASSWORD}`;
  const spans = createRedactor({ secrets: [KEY, PASSWORD] }).find?.(text);
  const at = (s: string): [number, number] => [text.indexOf(s), text.indexOf(s) + s.length];
  const expected = JSON.stringify([at(KEY), at(PASSWORD)]);
  const actual = JSON.stringify(spans) ?? 'no find';
  return [
    {
      name: 'each secret once, sorted by start',
      passed: actual === expected,
      message: actual === expected ? expected : `expected ${expected}, got ${actual}`,
      expected,
      actual,
    },
  ];
}

const DISTINCT_TEXTS = 60_000;
/** 60,000 texts of ~200 characters kept would be over 12 MB; a bounded memo keeps a few thousand (~1 MB). */
const MAX_GROWTH_BYTES = 6 * 1024 * 1024;

function fullCollection(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

function memoStaysBounded(): CheckResult[] {
  const gc = fullCollection();
  const redact = createRedactor({ secrets: [KEY, PASSWORD] });
  const filler = 'x'.repeat(180);
  gc();
  const before = process.memoryUsage().heapUsed;
  let redacted = 0;
  for (let i = 0; i < DISTINCT_TEXTS; i++) if (redact(`note ${i} ${filler} ${KEY}`).includes(KEY)) redacted++;
  gc();
  const growth = process.memoryUsage().heapUsed - before;
  // Used after the weighing, so the redactor (and its memo) is alive while weighed.
  const stillRedacts = redact(`last ${KEY}`) === 'last [REDACTED]';
  const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return [
    {
      name: 'every text redacted',
      passed: redacted === 0 && stillRedacts,
      message: redacted === 0 && stillRedacts ? `${DISTINCT_TEXTS} texts redacted` : `${redacted} of ${DISTINCT_TEXTS} texts kept the key`,
    },
    {
      name: 'heap growth bounded',
      passed: growth < MAX_GROWTH_BYTES,
      message: `heap grew ${mb(growth)} over ${DISTINCT_TEXTS} distinct texts (at most ${mb(MAX_GROWTH_BYTES)})`,
      expected: `< ${mb(MAX_GROWTH_BYTES)}`,
      actual: mb(growth),
    },
  ];
}

/**
 * A credential known only by its name, held as an object's property (what the AWS SDK's AssumeRole returns): the
 * value goes whole where a text naming it would lose it — through `redactDeep` (reports, envelopes) — and nothing
 * else does: a key that only ends like one (`nextPageToken`), a value that is no key (`getSessionTokenFromEnvironment()`),
 * and a redactor whose rule for it was dropped by its id keep theirs (outside probe 63, F2).
 */
function namedValuesInData(): CheckResult[] {
  const KEY = '9drTJvcXLB89EXAMPLELB8923FB892xMFI2Cy8Q4';
  const TOKEN = 'Qm9vdHN0cmFwVG9rZW4x7Rk2vLw9Zq8Wx';
  const data = {
    Credentials: { SecretAccessKey: KEY, SessionToken: TOKEN, aws_secret_access_key: KEY, Expiration: '2026-12-07T09:00:00Z' },
    // A header object, and the names kebab-cased (review of stop 66, LOW-7).
    headers: { 'X-Amz-Security-Token': TOKEN },
    'aws-secret-access-key': KEY,
    nextPageToken: 'pg_2x9Lq7Wm4Np1Rb8Tc3',
    sessionToken: 'getSessionTokenFromEnvironment()',
  };
  const rows: [string, unknown, unknown][] = [
    [
      'every rule kept: the named values go, the rest stay',
      redactDeep(data, createRedactor()),
      {
        Credentials: { SecretAccessKey: '[REDACTED]', SessionToken: '[REDACTED]', aws_secret_access_key: '[REDACTED]', Expiration: '2026-12-07T09:00:00Z' },
        headers: { 'X-Amz-Security-Token': '[REDACTED]' },
        'aws-secret-access-key': '[REDACTED]',
        nextPageToken: 'pg_2x9Lq7Wm4Np1Rb8Tc3',
        sessionToken: 'getSessionTokenFromEnvironment()',
      },
    ],
    [
      'aws-secret-access-key dropped by its id: the key stays, the token goes',
      redactDeep(data, createRedactor({ patterns: SECRET_RULES.filter((r) => r.id !== 'aws-secret-access-key').map((r) => r.pattern) })),
      {
        Credentials: { SecretAccessKey: KEY, SessionToken: '[REDACTED]', aws_secret_access_key: KEY, Expiration: '2026-12-07T09:00:00Z' },
        headers: { 'X-Amz-Security-Token': '[REDACTED]' },
        'aws-secret-access-key': KEY,
        nextPageToken: 'pg_2x9Lq7Wm4Np1Rb8Tc3',
        sessionToken: 'getSessionTokenFromEnvironment()',
      },
    ],
  ];
  return rows.map(([name, actual, expected]) => {
    const passed = JSON.stringify(actual) === JSON.stringify(expected);
    return { name, passed, message: passed ? 'as expected' : JSON.stringify(actual), expected, actual };
  });
}

function defaultRulesByTheirIds(): CheckResult[] {
  const ids = SECRET_RULES.map((r) => r.id);
  const badIds = ids.filter((id, i) => !/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(id) || ids.indexOf(id) !== i);
  // Each sample's rule, found by the id the sample names, matches it once, over its key part.
  const unmatched = CREDENTIAL_SAMPLES.flatMap((sample) => {
    const rule = SECRET_RULES.find((r) => r.id === sample.rule);
    if (!rule) return [`${sample.rule}: no rule has this id`];
    const matches = [...sample.text.matchAll(new RegExp(rule.pattern.source, 'g'))].map((m) => m[0]);
    return matches.length === 1 && matches[0]!.includes(sample.tell) ? [] : [`${sample.rule}: its pattern matches ${JSON.stringify(matches)}`];
  });
  const unsampled = ids.filter((id) => !CREDENTIAL_SAMPLES.some((s) => s.rule === id));
  const undescribed = SECRET_RULES.filter((r) => typeof r.description !== 'string' || r.description.trim().length < 10).map((r) => r.id);
  // A team whose JWTs are public id tokens keeps every rule but `jwt`.
  const redact = createRedactor({ patterns: SECRET_RULES.filter((r) => r.id !== 'jwt').map((r) => r.pattern) });
  const readable = CREDENTIAL_SAMPLES.filter((sample) => redact(`before ${sample.text} after`).includes(sample.tell)).map((s) => s.rule);
  return [
    {
      name: 'every rule has a unique, non-empty kebab-case id',
      passed: badIds.length === 0,
      message: badIds.length === 0 ? `${ids.length} ids` : `bad or repeated ids: ${JSON.stringify(badIds)}`,
    },
    {
      // What a report says when a credential of the rule leaks (credential-shapes-redacted); public data (SECRET_RULES is
      // exported). Mutation seed 46: a description blanked passed every case.
      name: 'every rule says what it finds (a description people read in reports)',
      passed: undescribed.length === 0,
      message: undescribed.length === 0 ? `${ids.length} descriptions` : `no description: ${undescribed.join(', ')}`,
    },
    {
      name: "each known credential's rule, found by its id, matches it once over its key part; no rule without a sample",
      passed: unmatched.length === 0 && unsampled.length === 0,
      message: [...unmatched, ...unsampled.map((id) => `${id}: no sample names this rule`)].join('; ') || `${CREDENTIAL_SAMPLES.length} samples`,
    },
    {
      name: 'the rule dropped by its id (jwt) alone lets its credential through',
      passed: JSON.stringify(readable) === JSON.stringify(['jwt']),
      message: `readable after redaction: ${JSON.stringify(readable)}`,
      expected: '["jwt"]',
      actual: JSON.stringify(readable),
    },
  ];
}

/**
 * `exactSecretStream` is public too (a team's client streams through it, as the adapters do with their one key), and
 * takes a list of secrets: a tail that may begin a form of *any* of them is held back, not only one that may begin a
 * form of every one (mutation seed 25). Each secret is split across pieces, first after a prefix no other secret has.
 * Ended, it holds nothing: a second `end()` lets out nothing.
 */
function exactStreamHoldsEachSecret(): CheckResult[] {
  const text = `key=${KEY} then password=${PASSWORD} (end)`;
  const cuts = [text.indexOf(KEY) + 5, text.indexOf(KEY) + 17, text.indexOf(PASSWORD) + 3, text.indexOf(PASSWORD) + 11, text.length];
  const stream = exactSecretStream([KEY, PASSWORD]);
  const out: string[] = [];
  let from = 0;
  for (const cut of cuts) {
    out.push(stream.push(text.slice(from, cut)));
    from = cut;
  }
  out.push(stream.end());
  // Ended, the stream holds nothing: a second end() lets out nothing (mutation seed 35, stream.ts `end`).
  const again = stream.end();
  const joined = out.join('');
  const expected = createRedactor({ secrets: [KEY, PASSWORD], patterns: [] })(text);
  const carries = [KEY, PASSWORD].filter((s) => out.some((piece) => piece.includes(s.slice(0, 4))) || joined.includes(s)).length;
  return [
    {
      name: 'no piece let out begins or carries either secret',
      passed: carries === 0,
      message: `${carries} of 2 secrets (or their first 4 characters) in what was let out`,
      expected: '0 of 2',
      actual: `${carries} of 2`,
    },
    {
      name: 'what is let out, joined, is the text redacted whole',
      passed: joined === expected,
      message: joined === expected ? 'the redacted text' : `${joined.length} characters, not the ${expected.length} of the text redacted whole`,
      expected: `${expected.length} characters`,
      actual: `${joined.length} characters`,
    },
    {
      name: 'ended, a second end() lets out nothing',
      passed: again === '',
      message: `let out ${JSON.stringify(again)}`,
      expected: '""',
      actual: JSON.stringify(again),
    },
  ];
}

/** Two secrets whose text overlaps where they meet: the second begins with the first's last five characters. */
const OVERLAP_FIRST = 'Q7vLm2Xp9RtK';
const OVERLAP_SECOND = 'p9RtK4wZs8Nb';

/**
 * `streamRedactor` moves its cut left to the start of any secret that spans it, and again from there until none
 * does: the cut lands inside the second of two overlapping secrets, past the end of the first, and moving to the
 * second's start lands inside the first, which must move it again (mutation seed 35, stream.ts `safeCut`). Nothing
 * of the first is let out before it can be redacted whole; what is let out, joined, is the text redacted whole.
 */
function streamCutLeavesOverlappingSecretsWhole(): CheckResult[] {
  const secrets = [OVERLAP_FIRST, OVERLAP_SECOND];
  const met = `${OVERLAP_FIRST}${OVERLAP_SECOND.slice(5)}`;
  // The stream holds back PATTERN_HOLD characters: three of the second secret stay back, its start is let out.
  const text = `key ${met}${' then more words'.repeat(20).slice(0, PATTERN_HOLD - 3)}`;
  const stream = streamRedactor(createRedactor({ secrets, patterns: [] }));
  const out = [stream.push(text), stream.end()];
  const joined = out.join('');
  const expected = createRedactor({ secrets, patterns: [] })(text);
  const first = out[0] ?? '';
  // A secret whole in what the stream lets out mid-stream is redacted as it goes: what a stream lets out is stored as
  // it is (outside probe 48, P16: a stream letting its pieces out unredacted passed every gate, the log's own
  // redaction catching it later).
  const early = streamRedactor(createRedactor({ secrets, patterns: [] }));
  const midStream = early.push(`key ${OVERLAP_FIRST} and ${' then more words'.repeat(40)}`);
  return [
    {
      name: 'a whole secret let out mid-stream is redacted as it is let out',
      passed: midStream.startsWith('key [REDACTED] and') && !midStream.includes(OVERLAP_FIRST),
      message: JSON.stringify(midStream.slice(0, 40)),
    },
    {
      name: 'the first piece let out stops before the first secret',
      passed: first === 'key ',
      message: `let out ${JSON.stringify(first.slice(0, 40))}`,
      expected: JSON.stringify('key '),
      actual: JSON.stringify(first.slice(0, 40)),
    },
    {
      name: 'what is let out, joined, is the text redacted whole',
      passed: joined === expected,
      message: joined === expected ? 'the redacted text' : `${JSON.stringify(joined.slice(0, 40))}…, not ${JSON.stringify(expected.slice(0, 40))}…`,
      expected: JSON.stringify(expected.slice(0, 40)),
      actual: JSON.stringify(joined.slice(0, 40)),
    },
  ];
}

/** A secret of 8 characters or fewer has no piece shorter than itself and no encoded form: only its text finds it. */
const SHORT_SECRET = 'Zq7!pwX';

/**
 * A short declared secret (a PIN, a short password: under 8 characters no piece of it is looked for, and it has no
 * encoded form) lying across `streamRedactor`'s cut is found by `find` as it is, so the cut moves to its start: at
 * the start of what the stream holds (the first thing a reply says) and further in. A `find` that missed it there let
 * out its first characters alone, which pass the redactor, then the rest: joined, the stored deltas spell the secret
 * (mutation seed 51, redactor.ts:125: the exact search's `i >= 0` → `false`, and → `i > 0`); every stream case had a
 * secret long enough for the piece search to find it too.
 */
function shortSecretAcrossTheStreamCut(): CheckResult[] {
  const secrets = [SHORT_SECRET];
  const filler = ' is the door code for the back office, change it after the audit'.repeat(8);
  const rows: [what: string, text: string][] = [
    // PATTERN_HOLD + 3 characters: the stream may let out 3, inside the secret at 0.
    ['first in the text', `${SHORT_SECRET}${filler}`.slice(0, PATTERN_HOLD + 3)],
    // PATTERN_HOLD + 8 characters: the stream may let out 8, inside the secret at 5.
    ['after a word', `code ${SHORT_SECRET}${filler}`.slice(0, PATTERN_HOLD + 8)],
  ];
  return rows.map(([what, text]) => {
    const stream = streamRedactor(createRedactor({ secrets, patterns: [] }));
    const out = [stream.push(text), stream.end()];
    const expected = createRedactor({ secrets, patterns: [] })(text);
    const joined = out.join('');
    const shown = out.map((piece) => JSON.stringify(piece.slice(0, 24))).join(' + ');
    return {
      name: `${what}: let out whole and redacted, the pieces joined being the text redacted whole`,
      passed: joined === expected && !joined.includes(SHORT_SECRET),
      message: joined === expected ? 'the redacted text' : `let out ${shown}`,
      expected: JSON.stringify(expected.slice(0, 24)),
      actual: JSON.stringify(joined.slice(0, 24)),
    };
  });
}

/**
 * `exactSecretStream` holds back only a tail that may begin a form of a secret ("usually nothing: a streamed reply is
 * let out as it comes"). A secret that begins with a character JSON may escape (`/` as `\/`, or `\u002f`): a backslash
 * followed by anything else is no escape of it, so a Windows path `C:\Tr` is let out at once, while `\/Tr`,
 * `\u002fTr` and `/Tr`, which may begin the secret, are held (mutation seed 30, secret-forms.ts `shortFrom`).
 * A secret shorter than 8 characters has no encoded form, so only a tail that begins its own text is held
 * (mutation seed 31, secret-forms.ts `base64Cores`).
 */
function exactStreamHoldsOnlyWhatMayBeginASecret(): CheckResult[] {
  const secret = '/Tr0ub4dor&3';
  // A secret under 8 characters (MIN_ENCODED_LENGTH) has no base64 or hex form: only its own text may begin it.
  const short = 'hunt3r!';
  const rows: [string, string, string][] = [
    [secret, 'Saved to C:\\Tr', 'Saved to C:\\Tr'],
    [secret, 'See C:\\T', 'See C:\\T'],
    [secret, 'Saved to C:\\/Tr', 'Saved to C:'],
    [secret, 'Saved to C:\\u002fTr', 'Saved to C:'],
    [secret, 'Path: /Tr', 'Path: '],
    [short, 'Ask St', 'Ask St'],
    [short, 'Ask hun', 'Ask '],
  ];
  return rows.map(([secret, piece, want]) => {
    const got = exactSecretStream([secret]).push(piece);
    return {
      name: `${secret === short ? `(a ${short.length}-character secret) ` : ''}${JSON.stringify(piece)}: ${want === piece ? 'let out whole' : `${JSON.stringify(piece.slice(want.length))} held`}`,
      passed: got === want,
      message: `let out ${JSON.stringify(got)}`,
      expected: JSON.stringify(want),
      actual: JSON.stringify(got),
    };
  });
}

/**
 * A secret upper- or lower-cased whole is still the secret (a proxy's
 * normalised header, a key printed in capitals: outside probe 35, F5), and is
 * redacted alike whether or not the text around it holds a `%` or a backslash;
 * a copy with its letters' case changed otherwise (each one swapped) is another
 * string, let out alike with or without them — the redactor's escaped-form
 * pattern ran case-insensitively, so a case-changed copy was redacted only next
 * to one (mutation seed 26, redactor.ts:91). An escaped copy is the secret
 * whichever case its hex digits are written in (`%2F` and `%2f`, `\u00E9` and
 * `\u00e9`), and is redacted.
 */
function caseOfASecret(): CheckResult[] {
  const secret = 'vault-Token-Q7vLm2Xc9RtB';
  const redact = createRedactor({ secrets: [secret] });
  const swapped = [...secret].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');
  const hex = (upper: boolean) =>
    [...Buffer.from(secret, 'utf8')].map((b) => `%${upper ? b.toString(16).padStart(2, '0').toUpperCase() : b.toString(16).padStart(2, '0')}`).join('');
  const units = [...secret].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`).join('');
  const rows: readonly [what: string, text: string, redacted: boolean][] = [
    ['the secret upper-cased, alone', `key ${secret.toUpperCase()} here`, true],
    ['the secret upper-cased, in a text holding a %', `key ${secret.toUpperCase()} here, at 100%`, true],
    ['the secret lower-cased, in a text holding a backslash', `path C:\\keys\\${secret.toLowerCase()}`, true],
    ['the secret with each letter swapped, alone', `key ${swapped} here`, false],
    ['the secret with each letter swapped, in a text holding a %', `key ${swapped} here, at 100%`, false],
    ['the secret with each letter swapped, in a text holding a backslash', `path C:\\keys\\${swapped}`, false],
    ['the secret, in a text holding a %', `key ${secret} here, at 100%`, true],
    ['the secret URL-encoded, upper-case hex', `q=${hex(true)}`, true],
    ['the secret URL-encoded, lower-case hex', `q=${hex(false)}`, true],
    ['the secret \\u-escaped, upper-case hex', `{"k":"${units}"}`, true],
  ];
  return rows.map(([what, text, redacted]) => {
    const out = redact(text);
    const was = out !== text;
    return {
      name: `${what}: ${redacted ? 'redacted' : 'let out as it is'}`,
      passed: was === redacted,
      message: was ? 'redacted' : 'let out as it is',
      expected: redacted ? 'redacted' : 'let out as it is',
      actual: was ? 'redacted' : 'let out as it is',
    };
  });
}

/**
 * Pieces of a secret: a run of half of one or more (at least 8 characters) gives
 * that half away, so the redactor replaces it — typed with a space in it, a
 * tail, a run of exactly the shortest length — and lets out a shorter run; a
 * secret holding a quote or a backslash is found in pieces in JSON-escaped text
 * too; `find` says where a piece is (the stream redactor never cuts inside one).
 */
/** `text` as a JSON string holding it as a JSON string shows it. */
const escapedTwice = (text: string): string => JSON.stringify(JSON.stringify(text).slice(1, -1)).slice(1, -1);

function piecesOfASecret(): CheckResult[] {
  const key = 'telco-SECRET-abcdef0123456789'; // 29 characters: pieces of 15 or more
  const quoted = 'pass"word\\Q7vLm2Xc9'; // 19 characters with a quote and a backslash: pieces of 10 or more
  const redact = createRedactor({ secrets: [key, quoted] });
  const rows: readonly [what: string, text: string, out: string][] = [
    // A key holding separators itself is looked for as typed, not typed apart (grouped-secret-redacted): its piece goes.
    ['the key typed with a space in it', 'my key is telco-SECRET-abcdef0 123456789.', 'my key is [REDACTED] 123456789.'],
    ['its first 20 characters, then other words', 'my key is telco-SECRET-abcdef0, or so.', 'my key is [REDACTED], or so.'],
    ['its last 22 characters', 'ending SECRET-abcdef0123456789 rotated', 'ending [REDACTED] rotated'],
    ['a run of 15 (half of 29, rounded up)', 'began telco-SECRET-ab…', 'began [REDACTED]…'],
    ['a run of 14: under half, let out', 'began telco-SECRET-a…', 'began telco-SECRET-a…'],
    // A text no longer than the piece: a tool's output, an argument, a header value that is the run and nothing else.
    ['a text that is a run of 15 and nothing more', 'telco-SECRET-ab', '[REDACTED]'],
    ['an account number of 10 from its end: under half, let out', 'account 0123456789 active', 'account 0123456789 active'],
    // Two windows of the piece search overlapping across it, the first opened by its public prefix alone (review of
    // stop 58, H1: each window read from where the last stopped, the run split in two halves under 15, let out).
    [
      'its prefix, then 40 characters on, its last 21',
      `${'x'.repeat(12)}telco-SE${'x'.repeat(40)}CRET-abcdef0123456789${'x'.repeat(10)}`,
      `${'x'.repeat(12)}telco-SE${'x'.repeat(40)}[REDACTED]${'x'.repeat(10)}`,
    ],
    ['a piece of the quoted one, as it is', 'it was pass"word\\Q7 once', 'it was [REDACTED] once'],
    ['a piece of the quoted one, JSON-escaped', '{"old":"pass\\"word\\\\Q7"}', '{"old":"[REDACTED]"}'],
    // A JSON text inside a JSON string (a tool's output holding a serialized body): escaped twice (probe 23, F3).
    ['a piece of the quoted one, JSON-escaped twice', `raw ${escapedTwice('pass"word\\Q7')} end`, 'raw [REDACTED] end'],
  ];
  const checks: CheckResult[] = rows.map(([what, text, out]) => {
    const got = redact(text);
    return { name: `${what}: ${out === text ? 'let out' : 'redacted'}`, passed: got === out, message: got, expected: out, actual: got };
  });
  const spans = redact.find?.('my key is telco-SECRET-abcdef0, or so.') ?? [];
  checks.push({
    name: 'find says where the piece is',
    passed: JSON.stringify(spans) === '[[10,30]]',
    message: JSON.stringify(spans),
    expected: '[[10,30]]',
    actual: JSON.stringify(spans),
  });

  return checks;
}

/**
 * A redactor skips a text shorter than the shortest thing it looks for: the shortest secret (or the shortest piece of
 * one) and the shortest credential shape. With a short secret beside a longer one — a 4-digit PIN and a password of 7,
 * or a PIN and a long key whose pieces are 15 — a text that is the PIN and little more is redacted all the same: the
 * log passes each string of an event through it on its own, so a tool's `pin` field holding the PIN is such a text. A
 * skip that went by the longest secret let the PIN out whole (mutation seed 44, redactor.ts: `Math.min` → `Math.max`).
 */
function shortestSecretSetsTheScan(): CheckResult[] {
  const withDefaults = createRedactor({ secrets: ['4821', 'hunter2'] });
  const patternless = createRedactor({ secrets: ['4821', 'telco-SECRET-abcdef0123456789'], patterns: [] });
  const rows: readonly [what: string, redact: (text: string) => string, text: string, out: string][] = [
    ['a PIN and a password of 7, default shapes: the PIN alone', withDefaults, '4821', '[REDACTED]'],
    ['the same: the PIN after a "#", a text of 5', withDefaults, '#4821', '#[REDACTED]'],
    ['the same: the PIN after "PIN ", a text of 8', withDefaults, 'PIN 4821', 'PIN [REDACTED]'],
    ['the same: the password alone', withDefaults, 'hunter2', '[REDACTED]'],
    ['a PIN and a long key, no shapes: the PIN alone', patternless, '4821', '[REDACTED]'],
    ['the same: the PIN after "my pin ", a text of 11 (under the key\'s pieces of 15)', patternless, 'my pin 4821', 'my pin [REDACTED]'],
  ];
  return rows.map(([what, redact, text, out]) => {
    const got = redact(text);
    return { name: `${what}: ${out === text ? 'let out' : 'redacted'}`, passed: got === out, message: got, expected: out, actual: got };
  });
}

/** The secret every-encoded-form case hides; a Windows PowerShell one-liner carries it as base64 of UTF-16LE. */
const FORMS_SECRET = 'trvk-Q7m2X9p4L8v3N6z1';
/** A password holding what a URL escapes (`/`, `+`, `=`, `&`, `?`, `>`). */
const URL_SECRET = 'pw/Zq8+mR4=tY7&uW2?x>>N5v~~';

/**
 * Every encoded form the README promises a secret is redacted in, inside a longer value, each found by
 * `containsSecret` and removed by the redactor: base64 of its UTF-8 bytes at each of the three alignments (standard
 * and URL-safe), hex either case — and base64 of its UTF-16LE bytes, what PowerShell's `-EncodedCommand` carries
 * (outside probe 47, F4: that form reached every report whole). Before, only unit tests held these forms.
 */
function everyEncodedFormRedacted(): CheckResult[] {
  const secret = FORMS_SECRET;
  const b64 = (pad: string, encoding: BufferEncoding, alphabet: 'base64' | 'base64url' = 'base64') =>
    Buffer.from(`${pad}${secret}!`, encoding).toString(alphabet);
  const rows: readonly [string, string][] = [
    ['base64 of its UTF-8 bytes, aligned', b64('', 'utf8')],
    ['base64 of its UTF-8 bytes, one byte in', b64('x', 'utf8')],
    ['base64 of its UTF-8 bytes, two bytes in', b64('xy', 'utf8')],
    ['URL-safe base64 of its UTF-8 bytes, one byte in', b64('x', 'utf8', 'base64url')],
    ['hex of its UTF-8 bytes', Buffer.from(secret, 'utf8').toString('hex')],
    ['hex of its UTF-8 bytes, upper case', Buffer.from(secret, 'utf8').toString('hex').toUpperCase()],
    ['base64 of its UTF-16LE bytes (powershell -EncodedCommand)', Buffer.from(`Invoke-Api -Key ${secret}`, 'utf16le').toString('base64')],
    ['base64 of its UTF-16LE bytes, aligned', b64('', 'utf16le')],
    ['base64 of its UTF-16LE bytes, one byte in', b64('xy', 'utf16le')],
    // A password with characters a URL escapes, in a redirect URL inside a query string: URL-encoded twice, each `%` as
    // `%25` (outside probe 48, LOW-1: stored and exported as it came).
    ['URL-encoded twice (a redirect URL inside a query)', `next=${encodeURIComponent(`https://x.test/cb?pw=${encodeURIComponent(URL_SECRET)}`)}`],
    ['URL-encoded twice, upper- and lower-case hex', encodeURIComponent(encodeURIComponent(URL_SECRET)).replace(/%25([0-9A-F])F/g, '%25$1f')],
  ];
  return rows.map(([what, encoded]) => {
    const text = `value=${encoded};`;
    const secret = what.startsWith('URL-encoded twice') ? URL_SECRET : FORMS_SECRET;
    const redact = createRedactor({ secrets: [secret], patterns: [] });
    const found = containsSecret(text, secret);
    const kept = redact(text);
    const passed = found && kept !== text && kept.includes('[REDACTED]');
    return { name: `${what}: found and redacted`, passed, message: passed ? kept.replace(secret, '?') : `found ${found}; redacted ${kept !== text}` };
  });
}

/** A card number declared as a secret: people type it in groups. */
const CARD = '4111111111111111';

/** `text` let out by both stream redactors for `secrets` (exactSecretStream, streamRedactor), fed in pieces of 3, joined. */
function streamedThrough(text: string, secrets: readonly string[]): [exact: string, general: string] {
  const fed = (stream: StreamRedactor) => {
    const out: string[] = [];
    for (let i = 0; i < text.length; i += 3) out.push(stream.push(text.slice(i, i + 3)));
    out.push(stream.end());
    return out.join('');
  };
  return [fed(exactSecretStream(secrets)), fed(streamRedactor(createRedactor({ secrets, patterns: [] })))];
}

/**
 * A long run of a character a secret repeats — a secret like `aaaa…ab` and a text of 200,000 `a`s — is one piece,
 * found once and redacted whole. The piece search grew a run from every place of every hit of its anchor, so its
 * spans, and its work, went as the text times the secret: 40,000 characters took 10 s, 200,000 ran out of memory
 * (left open at stop 57). A model echoing such a run could stall a host's log on one event.
 */
function longRunOfARepeatedCharacter(): CheckResult[] {
  const short = `${'a'.repeat(100)}b`;
  const small = 'a'.repeat(3000);
  const spans = createRedactor({ secrets: [short], patterns: [] }).find?.(small) ?? [];
  const merged: CheckResult = {
    name: "find: a 3,000-character run of a 101-character secret's repeated character is one span, [0, 3000]",
    passed: spans.length === 1 && spans[0]![0] === 0 && spans[0]![1] === small.length,
    message: `${spans.length} spans${spans.length ? `, the first ${JSON.stringify(spans[0])}` : ''}`,
  };
  if (!merged.passed)
    return [
      merged,
      { name: 'a 200,000-character run redacted whole', passed: false, message: 'not tried: the spans are not merged, so the search would run for hours' },
    ];
  const secret = `${'a'.repeat(1000)}b`;
  const text = `x${'a'.repeat(200_000)}y`;
  const kept = createRedactor({ secrets: [secret], patterns: [] })(text);
  const [streamed, streamedGeneral] = streamedThrough(`x${'a'.repeat(5000)}y`, [secret]);
  return [
    merged,
    {
      name: "a 200,000-character run of a 1,001-character secret's repeated character: redacted whole",
      passed: kept === 'x[REDACTED]y',
      message: `${kept.length} characters kept`,
    },
    {
      name: 'a 5,000-character run, streamed in pieces of 3 (exactSecretStream, streamRedactor): redacted whole',
      passed: streamed === 'x[REDACTED]y' && streamedGeneral === 'x[REDACTED]y',
      message: `${streamed.length} and ${streamedGeneral.length} characters kept`,
    },
    heldBounded(secret),
  ];
}

/**
 * A stream holds a bounded tail: a run the secret's pieces cover from end to end can be let out nowhere, and was held
 * whole until the stream ended — memory, and a scan per piece, growing with the stream (exactSecretStream had no bound;
 * streamRedactor lets its buffer out, redacted, past 64 KiB). 200,000 characters in pieces of 1,000: each stream has
 * let text out before it ends, and nothing it let out holds the secret's run.
 */
function heldBounded(secret: string): CheckResult {
  const outs = [exactSecretStream([secret]), streamRedactor(createRedactor({ secrets: [secret], patterns: [] }))].map((stream) => {
    let before = 0;
    let joined = '';
    for (let i = 0; i < 200; i++) {
      const out = stream.push('a'.repeat(1000));
      before += out.length;
      joined += out;
    }
    joined += stream.end();
    return { before, leaked: /a{501}/.test(joined) };
  });
  return {
    name: 'a 200,000-character run streamed in pieces of 1,000: each stream lets text out before it ends (a bounded hold), none of it the run',
    passed: outs.every((o) => o.before > 0 && !o.leaked),
    message: outs
      .map(
        (o, i) => `${i === 0 ? 'exactSecretStream' : 'streamRedactor'}: ${o.before} characters let out before the end${o.leaked ? ', the run among them' : ''}`,
      )
      .join('; '),
  };
}

/**
 * A declared secret typed with a separator between its characters — a card number, an IBAN, a licence key in
 * groups — is the secret: found (the kernel's search and the leak check's own), redacted, and redacted across a
 * stream's pieces. With groups of 4 no run reaches half the card, so the pieces' rule never saw it: stored and
 * reported as typed (outside probe 50, MED-2). Digits parted by a word are not the secret.
 */
function groupedSecretRedacted(): CheckResult[] {
  const rows: readonly [what: string, typed: string][] = [
    ['in groups of 4, spaced', '4111 1111 1111 1111'],
    ['in groups of 4, hyphenated', '4111-1111-1111-1111'],
    ['in groups of 4, dotted', '4111.1111.1111.1111'],
    ['in two halves', '41111111 11111111'],
    ['with a mix of separators', '4111 1111-1111.1111'],
  ];
  const redact = createRedactor({ secrets: [CARD], patterns: [] });
  const checks: CheckResult[] = rows.flatMap(([what, typed]) => {
    const text = `My card is ${typed}, expiry 12/29.`;
    const kept = redact(text);
    const [streamed, streamedGeneral] = streamedThrough(text, [CARD]);
    const naive = new NaiveDecodings(text).formOf(CARD);
    return [
      { name: `${what}: found by the kernel's search`, passed: containsSecret(text, CARD), message: typed.slice(0, 4) },
      { name: `${what}: found by the leak check's own search`, passed: naive !== undefined, message: naive ?? 'not found' },
      { name: `${what}: redacted`, passed: kept === 'My card is [REDACTED], expiry 12/29.', message: kept.replace(typed, '(kept)') },
      {
        name: `${what}: redacted across a stream's pieces (exactSecretStream, streamRedactor)`,
        passed: streamed === kept && streamedGeneral === kept,
        message: `${JSON.stringify(streamed.replace(typed, '(kept)'))}; ${JSON.stringify(streamedGeneral.replace(typed, '(kept)'))}`,
      },
    ];
  });
  // A piece of it typed apart — a digit left out, a group cut off — gives that much away, as a piece typed as it is
  // does (review of stop 56, M1: groups of 4 are no run of 8, so no piece was ever seen).
  for (const [what, typed] of [
    ['a digit left out', '4111 1111 1111 111'],
    ['the last group cut off', '4111-1111-1111'],
  ] as const) {
    const text = `card ${typed} on file`;
    const kept = redact(text);
    checks.push(
      { name: `a piece typed apart (${what}): redacted`, passed: kept === 'card [REDACTED] on file', message: kept.replace(typed, '(kept)') },
      {
        name: `a piece typed apart (${what}): found by the leak check (secret-fragments-never-leave)`,
        passed: longestFragment(JSON.stringify({ text }), CARD) !== undefined,
        message: JSON.stringify(longestFragment(JSON.stringify({ text }), CARD) ?? null),
      },
    );
  }
  // Parted by a word, the first group is no part of the rest: the whole card is not there (its last 12 digits, typed
  // apart, are a piece of it, and go).
  const apart = 'Call 4111 or 1111 1111 1111.';
  checks.push({
    name: 'digits parted by a word are not the secret (the piece after the word goes as a piece)',
    passed: !containsSecret(apart, CARD) && redact(apart) === 'Call 4111 or [REDACTED].' && new NaiveDecodings(apart).formOf(CARD) === undefined,
    message: redact(apart),
  });
  // Under 12 characters a secret typed apart is too like ordinary text: an 8-digit number would take every date it
  // spells (review of stop 56, L4). Looked for as typed.
  const pin = '20241201';
  const date = 'Delivered on 2024-12-01.';
  checks.push({
    name: 'a secret under 12 characters is not looked for typed apart (a date that spells an 8-digit number stays)',
    passed: createRedactor({ secrets: [pin], patterns: [] })(date) === date && !containsSecret(date, pin) && new NaiveDecodings(date).formOf(pin) === undefined,
    message: createRedactor({ secrets: [pin], patterns: [] })(date),
  });
  // A secret holding separators itself is looked for as typed: a pattern with an optional separator beside each of its
  // own backtracked exponentially — one text of 60 hyphens beside a secret of 40 would stall the loop for hours
  // (review of stop 56, M2). This row finishes, and finds nothing.
  const dashed = `a${'-'.repeat(40)}b`;
  const dashes = `a${'-'.repeat(60)}c`;
  checks.push({
    name: 'a secret holding separators is looked for as typed (no pattern that backtracks on a run of separators)',
    passed: !containsSecret(dashes, dashed) && createRedactor({ secrets: [dashed], patterns: [] })(dashes) !== undefined,
    message: 'finished',
  });
  return checks;
}

const INVISIBLE_KEY = 'pk_shop_9fQ2xLm4Rt7Vb8Kw3Zp1';

/**
 * A secret with characters no one sees between its own — a zero-width space, a soft hyphen, a word joiner, a byte
 * order mark, a bidirectional mark — reads as the secret on every screen and in every report, and was stored and
 * reported as typed: no form held them (outside probe 52, LOW-1: a tool returning a shop's key with U+200B between
 * its characters passed the gate, the key in every report). Any secret of 4 characters or more (no ordinary text holds
 * such characters, so short ones are no ambiguity, unlike a visible separator).
 */
function invisibleCharactersRedacted(): CheckResult[] {
  const rows: readonly [what: string, secret: string, typed: string][] = [
    ['a zero-width space between every character', INVISIBLE_KEY, [...INVISIBLE_KEY].join('\u200b')],
    ['one zero-width joiner in the middle', INVISIBLE_KEY, `${INVISIBLE_KEY.slice(0, 10)}\u200d${INVISIBLE_KEY.slice(10)}`],
    ['soft hyphens and word joiners', INVISIBLE_KEY, `${INVISIBLE_KEY.slice(0, 5)}\u00ad${INVISIBLE_KEY.slice(5, 14)}\u2060\u2060${INVISIBLE_KEY.slice(14)}`],
    [
      'a byte order mark and a right-to-left mark',
      INVISIBLE_KEY,
      `${INVISIBLE_KEY.slice(0, 3)}\ufeff${INVISIBLE_KEY.slice(3, 20)}\u200f${INVISIBLE_KEY.slice(20)}`,
    ],
    ['an 8-character secret with zero-width spaces', 'Zq7mW2pX', [...'Zq7mW2pX'].join('\u200b')],
    // Astral: a stream piece may end inside one's surrogate pair (review of stop 57, H1: let out, the key rebuilt).
    ['three tag characters between every character', INVISIBLE_KEY, [...INVISIBLE_KEY].join('\u{E0041}\u{E0042}\u{E0043}')],
    ['one variation selector of the supplement between every character', INVISIBLE_KEY, [...INVISIBLE_KEY].join('\u{E0100}')],
  ];
  // A piece of it so typed (its first 20 characters, a zero-width space between each) gives that much away.
  const piece = [...INVISIBLE_KEY.slice(0, 20)].join('\u200b');
  const pieceText = `key ${piece} on file`;
  const pieceKept = createRedactor({ secrets: [INVISIBLE_KEY], patterns: [] })(pieceText);
  const pieceChecks: CheckResult[] = [
    {
      name: 'a piece with zero-width spaces: redacted',
      passed: pieceKept === 'key [REDACTED] on file',
      message: JSON.stringify(pieceKept.replace(piece, '(kept)')),
    },
    {
      name: 'a piece with zero-width spaces: found by the leak check (secret-fragments-never-leave)',
      passed: longestFragment(JSON.stringify({ text: pieceText }), INVISIBLE_KEY) !== undefined,
      message: JSON.stringify(longestFragment(JSON.stringify({ text: pieceText }), INVISIBLE_KEY) ?? null),
    },
  ];
  return rows
    .flatMap(([what, secret, typed]): CheckResult[] => {
      const text = `My key is ${typed} now.`;
      const redact = createRedactor({ secrets: [secret], patterns: [] });
      const kept = redact(text);
      const want = 'My key is [REDACTED] now.';
      const [streamed, streamedGeneral] = streamedThrough(text, [secret]);
      const naive = new NaiveDecodings(text).formOf(secret);
      const shown = (t: string) => JSON.stringify(t.replace(typed, '(kept)'));
      return [
        { name: `${what}: found by the kernel's search`, passed: containsSecret(text, secret), message: String(containsSecret(text, secret)) },
        { name: `${what}: found by the leak check's own search`, passed: naive !== undefined, message: naive ?? 'not found' },
        { name: `${what}: redacted`, passed: kept === want, message: shown(kept) },
        {
          name: `${what}: redacted across a stream's pieces (exactSecretStream, streamRedactor)`,
          passed: streamed === want && streamedGeneral === want,
          message: `${shown(streamed)}; ${shown(streamedGeneral)}`,
        },
      ];
    })
    .concat(pieceChecks);
}

/**
 * `containsSecret` and `secretFinder` (exported) for a secret shorter than 4 characters (MIN_SECRET_LENGTH): never looked for,
 * so the answer is `false` — a boolean, as declared — even for a text that holds it.
 */
function shortSecretNotLookedFor(): CheckResult[] {
  const secret = 'k9Z';
  const text = `pin ${secret} here`;
  const answers: readonly [what: string, got: unknown][] = [
    ['containsSecret', containsSecret(text, secret)],
    ['secretFinder', secretFinder(secret)(text)],
  ];
  return answers.map(([what, got]) => ({
    name: `${what} of a ${secret.length}-character secret (under 4) in a text holding it: false`,
    passed: got === false,
    message: String(got),
    expected: 'false',
    actual: String(got),
  }));
}

/**
 * The default rules (`createRedactor()`) read a credential after any run of whitespace between the scheme and it, as
 * a header written by hand or aligned in a log has: `Basic` then two spaces, or a tab, then the base64 of user and
 * password (mutation seed 36, secret-rules.ts: a rule that took one space let the two-space header through whole).
 */
function basicCredentialsAfterAnyWhitespace(): CheckResult[] {
  const credential = 'dXNlcjpzM2NyM3RwNHNzdzByZA==';
  const redact = createRedactor();
  return ['Basic  ', 'Basic\t\t', 'Basic \t '].map((scheme) => {
    const text = `Authorization: ${scheme}${credential}`;
    const got = redact(text);
    return {
      name: `${JSON.stringify(scheme)} then the credential: redacted`,
      passed: !got.includes('dXNlcjpzM2NyM3RwNHNzdzByZA'),
      message: JSON.stringify(got),
      expected: 'the credential redacted',
      actual: JSON.stringify(got),
    };
  });
}

/**
 * `secretsFromEnv` (exported; the host, the report writer, the CLI's output and the OTLP exporter redact with it):
 * the values of variables named like a secret, 8 characters or more. A shorter value (a flag, a port, `1`) or an
 * empty one is not a secret: redacting it would cut every `1` or `true` out of a report.
 */
/**
 * Outside probe 35, F3: with `POSTGRES_PASSWORD=postgres` (the official image's setting, in dev shells and CI service
 * containers) every "postgres" a user wrote was stored and sent as [REDACTED], and ids holding it were refused; a
 * variable that says where a secret is (`OAUTH_TOKEN_URL`, `CREDENTIALS_PROVIDER=environment`) garbled URLs and words.
 * A value of lower-case letters alone is a word, not a credential; a name ending in what it locates is no secret's.
 */
function secretsFromEnvNotWords(): CheckResult[] {
  const env = {
    POSTGRES_PASSWORD: 'postgres',
    MYSQL_ROOT_PASSWORD: 'password',
    CREDENTIALS_PROVIDER: 'environment',
    OAUTH_TOKEN_URL: 'https://login.example.com/oauth2/token',
    VAULT_SECRET_PATH: 'secret/data/payments',
    STRIPE_API_KEY: 'sk_test_51Habcdef',
    AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG',
    DB_PASSWORD: 'Tr0ub4dor&3x',
    ADMIN_PASSWORD: 'correcthorsebatterystaple9',
  };
  const expected = JSON.stringify(['sk_test_51Habcdef', 'wJalrXUtnFEMI/K7MDENG', 'Tr0ub4dor&3x', 'correcthorsebatterystaple9']);
  const actual = JSON.stringify(secretsFromEnv(env));
  return [
    {
      name: 'credentials taken; plain words, addresses and locators left out',
      passed: actual === expected,
      message: actual === expected ? expected : `expected ${expected}, got ${actual}`,
    },
  ];
}

/**
 * A secret of 12,000 characters (a PEM key, a service account's JSON): its forms are looked for as the short ones
 * are. One pattern of a term per character overflowed the regex compiler at its first use, and the SyntaxError —
 * the secret spelled out between the terms — went to stderr with a stack (outside probe 64, F21).
 */
function longSecretRedacted(): CheckResult[] {
  let seed = 64;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const secret = Array.from({ length: 12_000 }, () => alphabet[next() % alphabet.length]).join('');
  const texts: [string, string][] = [
    ['as written', `key: ${secret}`],
    ['percent-encoded', `key=${encodeURIComponent(secret).replace(/[A-Za-z0-9]/g, (c) => `%${c.charCodeAt(0).toString(16)}`)}`],
    ['typed in groups of 4', `key: ${secret.match(/.{1,4}/g)!.join(' ')}`],
    ['a zero-width space after every 100 characters', `key: ${secret.match(/.{1,100}/g)!.join('\u200b')}`],
  ];
  let redact: ((text: string) => string) | undefined;
  let refused = '';
  try {
    redact = createRedactor({ secrets: [secret] });
  } catch (error) {
    refused = String(error).slice(0, 80);
  }
  const checks = texts.map(([form, text]): CheckResult => {
    let out: string;
    try {
      out = redact ? redact(text) : `(no redactor: ${refused})`;
    } catch (error) {
      out = `(threw ${(error as Error).name})`;
    }
    const left = out.includes(secret.slice(0, 40)) || out.includes(secret.slice(6_000, 6_040)) || out.includes(secret.slice(-40));
    const passed = !out.startsWith('(') && !left && out.includes('[REDACTED]');
    return { name: `the secret ${form} is redacted`, passed, message: passed ? 'redacted' : out.startsWith('(') ? out : 'a piece of it is left' };
  });
  // A secret one character past a run's length: its last run must not be that one character, looked for everywhere
  // (review of stop 65, HIGH-1: "The quick answer: q" became "The [REDACTED]uick answer: [REDACTED]").
  const odd = `${secret.slice(0, 1_000)}q`;
  const plain = 'The quick answer: q and q again, 6d.';
  const kept = createRedactor({ secrets: [odd] })(plain);
  checks.push({
    name: 'ordinary text beside a secret of 1,001 characters is left as it is',
    passed: kept === plain,
    message: kept,
    expected: plain,
    actual: kept,
  });
  return checks;
}

function secretsFromEnvOfLength(): CheckResult[] {
  const env = { OPENAI_API_KEY: 'sk-abcdefgh123', GITHUB_TOKEN: 'tok-1234', SESSION_SECRET: 'short7', DB_PASSWORD: '', HOME: '/home/someone-long' };
  const expected = JSON.stringify(['sk-abcdefgh123', 'tok-1234']);
  const actual = JSON.stringify(secretsFromEnv(env));
  return [
    {
      name: 'values of secret-named variables, 8 characters or more; a shorter or empty one left out',
      passed: actual === expected,
      message: actual === expected ? expected : `expected ${expected}, got ${actual}`,
      expected,
      actual,
    },
  ];
}

/**
 * `holdsSecretPiece` (exported; what a caller keeping a value it cannot redact in part — an id — refuses it by): a
 * value under 4 characters is no secret and is held by nothing; a secret of 8 or fewer only whole; a longer one by
 * half of it. Mutation seed 52: the under-4 answer made `true`, and no case asked it (the redactor's own callers
 * skip such secrets before asking).
 */
function holdsSecretPieceRows(): CheckResult[] {
  const rows: [string, boolean, boolean][] = [
    ['a 3-character value in a text that holds it: no secret, held by nothing', holdsSecretPiece('code abc here', 'abc'), false],
    ['an 8-character secret whole', holdsSecretPiece('pass: Zq7!pwXk', 'Zq7!pwXk'), true],
    ['an 8-character secret in part', holdsSecretPiece('pass: Zq7!pw', 'Zq7!pwXk'), false],
    ['half of a 32-character key', holdsSecretPiece(`key ${KEY.slice(16)}`, KEY), true],
    ['a text holding none of it', holdsSecretPiece('Where is ORD-1001?', KEY), false],
  ];
  return rows.map(([name, actual, expected]) => ({
    name,
    passed: actual === expected,
    message: actual === expected ? String(actual) : `expected ${expected}, got ${actual}`,
    expected: String(expected),
    actual: String(actual),
  }));
}

/**
 * `redactorGarbles` (exported; `loopDeps` runs it on every redactor it is handed) asks a redactor about the loop's own
 * words once: a second check of the same redactor (a loop per conversation, one redactor for the process) asks it
 * only about the tool names, as its doc says (mutation seed 37, agent-settings.ts: a check that asked every word
 * again each time passed every case).
 */
function redactorAskedOnceForTheLoopsWords(): CheckResult[] {
  let asked = 0;
  const redact = (text: string): string => {
    asked++;
    return text.replaceAll('acct-9f8e7d6c5b4a3210', '[REDACTED]');
  };
  const first = redactorGarbles(redact, ['lookup_order']);
  const firstAsked = asked;
  const second = redactorGarbles(redact, ['lookup_order']);
  const secondAsked = asked - firstAsked;
  const verdicts = `${String(first)} ${String(second)}`;
  return [
    {
      name: 'a redactor of credentials garbles nothing, both times',
      passed: verdicts === 'undefined undefined',
      message: verdicts,
      expected: 'undefined undefined',
      actual: verdicts,
    },
    {
      name: 'the second check asks only about the one tool name',
      passed: firstAsked > 1 && secondAsked === 1,
      message: `first check ${firstAsked} texts, second ${secondAsked}`,
      expected: 'second check: 1 text',
      actual: String(secondAsked),
    },
  ];
}

/**
 * A recording (`loopgate contract --record`) keeps no header a key or an account travels in, whatever its case: dropped
 * by name, not left to the value's redaction, which knows only the key the recorder was given (outside probe 71,
 * recording-keeps-x-api-key: x-api-key no longer dropped passed every case). The values here are no secret and no
 * credential shape, so only the dropping hides them.
 */
const KEY_HEADERS = ['Authorization', 'x-api-key', 'Api-Key', 'Cookie', 'Set-Cookie', 'OpenAI-Organization', 'openai-project', 'anthropic-organization-id'];

function recordingDropsKeyHeaders(): CheckResult[] {
  const rawHeaders = Object.fromEntries([...KEY_HEADERS.map((name, i) => [name, `opaque-value-${i}`]), ['content-type', 'application/json']]);
  const [scrubbed] = scrubExchanges([{ scope: 'https://api.example.test', method: 'POST', path: '/v1/messages', status: 200, response: {}, rawHeaders }], []);
  const kept = Object.keys((scrubbed?.rawHeaders ?? {}) as Record<string, unknown>);
  return [
    ...KEY_HEADERS.map((name) => ({
      name: `${name} dropped`,
      passed: !kept.some((k) => k.toLowerCase() === name.toLowerCase()),
      message: `kept: ${kept.join(', ')}`,
    })),
    { name: 'other headers kept', passed: kept.includes('content-type'), message: `kept: ${kept.join(', ')}` },
  ];
}

export function redactorCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:redactor/recording-drops-key-headers',
        title: 'redactor: a recording keeps no header a key or an account travels in, dropped by name',
        file: 'src/harness/redactor-cases.ts',
      },
      recordingDropsKeyHeaders,
    ),
    checksCase(
      {
        id: 'contract:redactor/find-sorted-by-start-each-once',
        title: "redactor: find answers the secrets' spans sorted by start, a secret the patterns also match once",
        file: 'src/harness/redactor-cases.ts',
        secrets: [KEY, PASSWORD],
      },
      findSorted,
    ),
    checksCase(
      {
        id: 'contract:redactor/memo-stays-bounded',
        title: "redactor: one redactor fed 60,000 distinct short texts keeps its memo bounded (a long-running host's memory)",
        file: 'src/harness/redactor-cases.ts',
        secrets: [KEY, PASSWORD],
      },
      memoStaysBounded,
    ),
    checksCase(
      {
        id: 'contract:redactor/credentials-named-by-their-key-in-data',
        title:
          "redactor: a credential known only by its name, as an object's property (an AWS secret key, a session token), goes whole; a key that only ends like one keeps its value",
        file: 'src/harness/redactor-cases.ts',
      },
      namedValuesInData,
    ),
    checksCase(
      {
        id: 'contract:redactor/default-rules-by-their-ids',
        title: 'redactor: each default credential rule is found by its stable id and catches its kind; a rule dropped by its id lets only its kind through',
        file: 'src/harness/redactor-cases.ts',
      },
      defaultRulesByTheirIds,
    ),
    checksCase(
      {
        id: 'contract:redactor/stream-cut-leaves-overlapping-secrets-whole',
        title: 'redactor: a stream cut inside the second of two overlapping secrets moves past the first too; let out joined, the text redacted whole',
        file: 'src/harness/redactor-cases.ts',
        secrets: [OVERLAP_FIRST, OVERLAP_SECOND],
      },
      streamCutLeavesOverlappingSecretsWhole,
    ),
    checksCase(
      {
        id: 'contract:redactor/short-secret-across-the-stream-cut-let-out-whole',
        title:
          'redactor: a secret under 8 characters across a stream cut, first in the text or after a word, is let out whole and redacted, never in two pieces',
        file: 'src/harness/redactor-cases.ts',
        secrets: [SHORT_SECRET],
      },
      shortSecretAcrossTheStreamCut,
    ),
    checksCase(
      {
        id: 'contract:redactor/exact-stream-holds-back-each-secret',
        title: 'redactor: exactSecretStream given two secrets holds back a tail that may begin either one, so each, split across pieces, is let out redacted',
        file: 'src/harness/redactor-cases.ts',
        secrets: [KEY, PASSWORD],
      },
      exactStreamHoldsEachSecret,
    ),
    checksCase(
      {
        id: 'contract:redactor/exact-stream-holds-only-what-may-begin-a-secret',
        title:
          "redactor: exactSecretStream lets out a backslash that cannot escape the secret's first character (C:\\Tr for /Tr0ub…) at once, and holds \\/Tr, \\u002fTr and /Tr",
        file: 'src/harness/redactor-cases.ts',
        secrets: ['/Tr0ub4dor&3'],
      },
      exactStreamHoldsOnlyWhatMayBeginASecret,
    ),
    checksCase(
      {
        id: 'contract:redactor/case-changed-copy-is-another-string',
        title:
          'redactor: a secret upper- or lower-cased is redacted, one otherwise case-changed let out, alike with or without a % or backslash near it; an escaped copy is redacted whatever the case of its hex',
        file: 'src/harness/redactor-cases.ts',
        secrets: ['vault-Token-Q7vLm2Xc9RtB'],
      },
      caseOfASecret,
    ),
    checksCase(
      {
        id: 'contract:redactor/pieces-of-half-a-secret-or-more',
        title: 'redactor: a run of half a secret or more is replaced (typed with a space, a tail, JSON-escaped), a shorter run let out, and find says where',
        file: 'src/harness/redactor-cases.ts',
        secrets: ['telco-SECRET-abcdef0123456789', 'pass"word\\Q7vLm2Xc9'],
      },
      piecesOfASecret,
    ),
    checksCase(
      {
        id: 'contract:redactor/basic-credentials-after-any-whitespace',
        title: 'redactor: the default rules redact HTTP basic credentials after two spaces or tabs, as well as after one space',
        file: 'src/harness/redactor-cases.ts',
      },
      basicCredentialsAfterAnyWhitespace,
    ),
    checksCase(
      {
        id: 'contract:redactor/short-secret-not-looked-for',
        title: 'redactor: containsSecret and secretFinder answer false for a secret under the minimum length, even in a text holding it',
        file: 'src/harness/redactor-cases.ts',
      },
      shortSecretNotLookedFor,
    ),
    checksCase(
      {
        id: 'contract:redactor/shortest-secret-sets-what-is-skipped',
        title: 'redactor: a short secret beside longer ones (a PIN and a password, a PIN and a long key) is redacted in a text that is it and little more',
        file: 'src/harness/redactor-cases.ts',
        secrets: ['4821', 'hunter2', 'telco-SECRET-abcdef0123456789'],
      },
      shortestSecretSetsTheScan,
    ),
    checksCase(
      {
        id: 'contract:redactor/every-encoded-form-redacted',
        title:
          'redactor: a secret inside a longer value as base64 (each alignment, URL-safe), hex (either case), base64 of its UTF-16LE bytes (PowerShell -EncodedCommand) or URL-encoded twice is found and redacted',
        file: 'src/harness/redactor-cases.ts',
        secrets: [FORMS_SECRET, URL_SECRET],
      },
      everyEncodedFormRedacted,
    ),
    checksCase(
      {
        id: 'contract:redactor/grouped-secret-redacted',
        title:
          'redactor: a secret typed with a separator between its characters (a card number in groups, spaced, hyphenated or dotted) is found by both searches and redacted, whole and across a stream',
        file: 'src/harness/redactor-cases.ts',
        secrets: [CARD],
      },
      groupedSecretRedacted,
    ),
    checksCase(
      {
        id: 'contract:redactor/secret-with-invisible-characters-redacted',
        title:
          'redactor: a secret with characters no one sees between its own (zero-width spaces and joiners, soft hyphens, word joiners, a byte order mark, a bidirectional mark) is found by both searches and redacted, whole and across a stream',
        file: 'src/harness/redactor-cases.ts',
        secrets: [INVISIBLE_KEY, 'Zq7mW2pX'],
      },
      invisibleCharactersRedacted,
    ),
    checksCase(
      {
        id: 'contract:redactor/long-run-of-a-repeated-character-one-piece',
        title:
          'redactor: a long run of a character the secret repeats (200,000 `a`s against `aaaa…ab`) is one piece, found once and redacted whole, also across a stream',
        file: 'src/harness/redactor-cases.ts',
        secrets: [`${'a'.repeat(100)}b`, `${'a'.repeat(1000)}b`],
      },
      longRunOfARepeatedCharacter,
    ),
    checksCase(
      {
        id: 'contract:redactor/secrets-from-env-not-words-or-addresses',
        title:
          "redactor: secretsFromEnv leaves out a plain word (a database container's POSTGRES_PASSWORD=postgres) and a variable that names where a secret is, not one (OAUTH_TOKEN_URL, CREDENTIALS_PROVIDER)",
        file: 'src/harness/redactor-cases.ts',
      },
      secretsFromEnvNotWords,
    ),
    checksCase(
      {
        id: 'contract:redactor/secret-of-12000-characters-in-every-form',
        title: 'redactor: a secret of 12,000 characters is redacted as written, percent-encoded, typed in groups and with invisible characters',
        file: 'src/harness/redactor-cases.ts',
      },
      longSecretRedacted,
    ),
    checksCase(
      {
        id: 'contract:redactor/secrets-from-env-8-characters-or-more',
        title: 'redactor: secretsFromEnv takes the values of secret-named variables of 8 characters or more, not a shorter or empty one',
        file: 'src/harness/redactor-cases.ts',
      },
      secretsFromEnvOfLength,
    ),
    checksCase(
      {
        id: 'contract:redactor/asked-once-for-the-loops-words',
        title: "redactor: redactorGarbles asks a redactor about the loop's own words once; checked again, it asks only about the tool names",
        file: 'src/harness/redactor-cases.ts',
      },
      redactorAskedOnceForTheLoopsWords,
    ),
    checksCase(
      {
        id: 'contract:redactor/holds-secret-piece-answers',
        title: 'redactor: holdsSecretPiece holds no value under 4 characters, an 8-character secret only whole, a longer one by half of it',
        file: 'src/harness/redactor-cases.ts',
      },
      holdsSecretPieceRows,
    ),
  ];
}
