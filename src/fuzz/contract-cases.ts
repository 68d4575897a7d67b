/**
 * The fuzzer's own contract, as cases of the bundled gate (`contract:fuzz/…`):
 * its check of what it drew (drawn.ts) must fail a run that drew a family in no
 * case, and the generators must draw every family at least at the share that
 * check assumes. A check that never reports, or a generator that stopped drawing
 * a family, would otherwise pass every run unseen (outside probe 32, N9).
 */
import fc from 'fast-check';
import type { Case } from '../harness/cases.ts';
import { checksCase } from '../harness/cases.ts';
import { runPassed, type CheckResult } from '../report/results.ts';
import { INVARIANTS, notApplicable } from '../harness/invariants/index.ts';
import { parseScenario } from '../harness/scenario/load.ts';
import { runScenario } from '../harness/second-host.ts';
import { minimizeScenario } from './minimize.ts';
import { fuzzResults } from './report.ts';
import { runFuzz } from './run-fuzz.ts';
import { FAMILIES, tallyDrawn, undrawn } from './drawn.ts';
import { fuzzCaseArb, type Arm, type FuzzCase } from './generators/scenario.ts';
import { behindThePortCases } from './behind-the-port-cases.ts';

const FILE = 'src/fuzz/contract-cases.ts';
/** Cases sampled from the generators (with their defaults); fixed seed, so the case is the same every run. */
const SAMPLE = 600;

function drawnCheckReports(): CheckResult[] {
  const all = FAMILIES.map((f) => f.id);
  const none = undrawn(new Map(), 10_000, {});
  const full = undrawn(new Map(all.map((id) => [id, 1])), 10_000, {});
  const noCrashes = undrawn(new Map(), 10_000, { crashes: false, production: 0, wire: 0 });
  const short = undrawn(new Map(), 10, {});
  return [
    {
      name: 'a long run that drew nothing names every family',
      passed: JSON.stringify(none) === JSON.stringify(all),
      message: `named ${JSON.stringify(none)}`,
    },
    { name: 'a run that drew every family names none', passed: full.length === 0, message: `named ${JSON.stringify(full)}` },
    {
      name: 'families the options leave out are not judged',
      passed:
        !noCrashes.some((id) => id === 'a crash' || id === 'the production host' || id.startsWith('a wire provider')) && noCrashes.length === all.length - 3,
      message: `named ${JSON.stringify(noCrashes)}`,
    },
    { name: 'a run of 10 cases judges nothing', passed: short.length === 0, message: `named ${JSON.stringify(short)}` },
  ];
}

function generatorsDrawEveryFamily(): CheckResult[] {
  const drawn = new Map<string, number>();
  for (const c of fc.sample(fuzzCaseArb({}), { numRuns: SAMPLE, seed: 20261205 })) tallyDrawn(drawn, c);
  return FAMILIES.map((f) => {
    const share = (drawn.get(f.id) ?? 0) / SAMPLE;
    // The rare families (a share under 1%) only need to be drawn at all here.
    const passed = f.rate >= 0.01 ? share >= f.rate : share > 0;
    return {
      name: `the generators draw ${f.id}`,
      passed,
      message: `${drawn.get(f.id) ?? 0} of ${SAMPLE} cases (${(share * 100).toFixed(1)}%; the drawn check assumes at least ${(f.rate * 100).toFixed(1)}%)`,
    };
  });
}

/** A case holding nothing but `parts` (a plain reply to one message, else): what each family is read from, alone. */
function caseWith(parts: {
  readonly scenario?: Record<string, unknown>;
  readonly script?: readonly unknown[];
  readonly crashAt?: number;
  readonly arms?: readonly Arm[];
}): FuzzCase {
  const { provider, ...scenario } = parts.scenario ?? {};
  return {
    ...(parts.arms ? { arms: parts.arms } : {}),
    scenario: {
      name: 'one feature',
      inbox: [{ say: 'hi' }],
      ...scenario,
      provider: { kind: 'scripted', script: parts.script ?? [{ reply: 'hello' }], ...(provider as object | undefined) },
    },
    crashAt: parts.crashAt,
  } as unknown as FuzzCase;
}

const FAILING_FALLBACK = [{ error: { kind: 'server_error', status: 503 } }, { reply: 'hello' }];
const SENT_TWICE = [
  { tool_use: [{ id: 'l1', name: 'lookup_order', args: {} }] },
  { tool_use: [{ id: 'l1', name: 'lookup_order', args: {} }] },
  { reply: 'hello' },
];

/**
 * The shape of a family counted from its arm (FuzzCase.arms), drawn by another arm: a plain fallback script that starts
 * with an error, an aimed repeat. Counted, they would show fuzz drawing an arm it stopped drawing (review of stop 71).
 */
const LOOKALIKES: Readonly<Record<string, FuzzCase>> = {
  'a fallback model that fails first': caseWith({ scenario: { provider: { fallback: FAILING_FALLBACK } } }),
  'a call sent again': caseWith({ script: SENT_TWICE }),
};

/** Each family's feature on its own: the case the family must be read from, and no other. */
const FEATURES: Readonly<Record<string, FuzzCase>> = {
  'a provider error with retry-after': caseWith({ script: [{ error: { kind: 'rate_limited', status: 429, retryAfterMs: 1_000 } }, { reply: 'hello' }] }),
  'a tool call': caseWith({ script: [{ tool_use: [{ id: 'l1', name: 'lookup_order', args: {} }] }, { reply: 'hello' }] }),
  'a steer': caseWith({ scenario: { inbox: [{ say: 'hi' }, { steer: 'shorter' }] } }),
  'a cancel': caseWith({ scenario: { inbox: [{ say: 'hi' }, { cancel: 'user' }] } }),
  'an inject': caseWith({ scenario: { inbox: [{ say: 'hi' }, { inject: 'the order shipped' }] } }),
  'a tool that throws': caseWith({ scenario: { tools: [{ name: 'lookup_order', behaviour: [{ throw: 'reset' }] }] } }),
  'a tool that hangs': caseWith({ scenario: { tools: [{ name: 'lookup_order', behaviour: ['hang'] }] } }),
  'a tool failure with a code': caseWith({ scenario: { tools: [{ name: 'lookup_order', behaviour: [{ fail: { code: 'NOPE' } }] }] } }),
  'a store fault': caseWith({ scenario: { store: { failAppends: [2] } } }),
  'a compactor': caseWith({ scenario: { compaction: { propose: [] } } }),
  'an approver': caseWith({ scenario: { approver: { decisions: ['approve'] } } }),
  'a fallback model': caseWith({ scenario: { provider: { fallback: [{ reply: 'hello' }] } } }),
  'a fallback model that fails first': caseWith({ scenario: { provider: { fallback: FAILING_FALLBACK } }, arms: ['fallback-fails-first'] }),
  'a call sent again': caseWith({ script: SENT_TWICE, arms: ['resent'] }),
  'a crash': caseWith({ crashAt: 3 }),
  'the production host': caseWith({ scenario: { host: 'production' } }),
  'a wire provider (an SDK over HTTP)': caseWith({ scenario: { provider: { kind: 'wire' } } }),
  'a stream cut mid-way': caseWith({ script: [{ error: { kind: 'overloaded', midStream: true } }, { reply: 'hello' }] }),
  'a secret in the system prompt': caseWith({ scenario: { prompt: [{ id: 'fragment-key', priority: 10, text: 'Payment key on file: k.' }] } }),
};

/**
 * Every family read from its own feature and no other: a tally that counts a family from another's feature (or from
 * every case) would show a generator drawing what it stopped drawing (outside probe 32, N10). A family that is a kind
 * of another (`within`: a call sent again is a tool call) is counted in that one too, and only in that one.
 */
function familiesReadTheirOwnFeature(): CheckResult[] {
  const plain = caseWith({});
  return FAMILIES.map((family) => {
    const own = FEATURES[family.id];
    if (own === undefined) return { name: family.id, passed: false, message: 'no case with this feature alone in FEATURES: add one' };
    const others = Object.entries(FEATURES)
      .filter(([id, c]) => id !== family.id && family.present(c) && FAMILIES.find((f) => f.id === id)?.within !== family.id)
      .map(([id]) => id);
    const lookalike = LOOKALIKES[family.id];
    const fromLookalike = lookalike !== undefined && family.present(lookalike);
    const passed = family.present(own) && !family.present(plain) && !fromLookalike && others.length === 0;
    const said = `its own feature: ${family.present(own) ? 'counted' : 'not counted'}; a plain case: ${family.present(plain) ? 'counted' : 'not counted'}${
      lookalike !== undefined ? `; its shape from another draw: ${fromLookalike ? 'counted' : 'not counted'}` : ''
    }`;
    return { name: family.id, passed, message: others.length > 0 ? `${said}; also counted from: ${others.join(', ')}` : said };
  });
}

/**
 * A search too short to judge anything checked nothing, and every report says so (outside probe 42, F5: `fuzz --runs 3
 * --invariant compactor-offered-widest-range` judged the invariant in no run, the drawn check "passed" saying it had
 * too few runs to judge any family, and the run read PASSED: 1 of 2, exit 0).
 */
const PLAIN_REPLY = `name: a plain reply
provider:
  script:
    - reply: Hello.
inbox:
  - say: Hi.
expect:
  outcome: replied
`;

async function tooShortASearchChecksNothing(): Promise<CheckResult[]> {
  const only = INVARIANTS.filter((i) => i.id === 'compactor-offered-widest-range');
  // Seed 5: its 3 runs draw no compactor (seed 1's did once the arguments generator drew a cut list, seed 2's once
  // calls were sent again; a generator change that moves them fails this case saying "judged", and another seed is
  // picked the same way).
  const result = await runFuzz({ runs: 3, seed: 5, invariants: only });
  const results = fuzzResults({ result, startedAt: new Date(0), finishedAt: new Date(0), version: '0.0.0-case' });
  const drawn = results.cases.find((c) => c.id === 'fuzz:generator-draws-every-fault');
  const invariant = results.cases.find((c) => c.id === 'fuzz:compactor-offered-widest-range');
  // An invariant that "holds" over a run where what it judges never happened judged nothing (review of stop 51: an
  // agent with no approvals held approvals-time-out-as-declared over 3 runs, PASSED).
  const plain = await runScenario(parseScenario(PLAIN_REPLY, `${FILE}#no-approvals`), { seed: 1 });
  const approvals = INVARIANTS.find((i) => i.id === 'approvals-time-out-as-declared')!;
  const why = notApplicable(approvals, plain);
  return [
    {
      name: 'approvals-time-out-as-declared does not apply to a run that put nothing to an approver',
      passed: why !== undefined,
      message: why ?? 'applies (would be counted as judged)',
    },
    {
      name: 'the invariant was judged in none of the 3 runs: skipped',
      passed: invariant?.status === 'skipped',
      message: `${invariant?.status}: ${invariant?.skipReason ?? ''}`,
    },
    {
      name: 'the drawn check, with too few runs to judge any family, is skipped saying so',
      passed: drawn?.status === 'skipped' && /too few runs/.test(drawn.skipReason ?? ''),
      message: `${drawn?.status}: ${drawn?.skipReason ?? drawn?.checks[0]?.message ?? ''}`,
    },
    {
      name: 'the run did not pass: nothing was checked',
      passed: !runPassed(results),
      message: `${results.summary.passed} passed, ${results.summary.skipped} skipped`,
    },
  ];
}

/**
 * The last pass over a counterexample removes every inbox entry the failure does not need, the first as well as the
 * last (plant probe of stop 52: the loop over entries stopping before index 0 kept a first message no failure needed,
 * and nothing in the gate noticed — pass and fail are the same, the counterexample only larger). A failure that needs
 * the middle message and every provider step: what is left is that message alone.
 */
async function minimizerDropsEveryUnneededMessage(): Promise<CheckResult[]> {
  const scenario = parseScenario(
    'name: m\nprovider:\n  script:\n    - reply: Hi.\n    - reply: Done.\ninbox:\n  - say: Hello there.\n  - say: Refund ORD-1.\n  - say: Thanks.\nexpect:\n  outcome: replied\n',
    'minimize.yaml',
  );
  const steps = scenario.provider.script.length;
  const { scenario: left } = await minimizeScenario(
    scenario,
    async (candidate) => candidate.inbox.some((entry) => JSON.stringify(entry).includes('Refund ORD-1')) && candidate.provider.script.length === steps,
  );
  const inbox = JSON.stringify(left.inbox);
  const want = JSON.stringify([{ say: 'Refund ORD-1.' }]);
  return [
    { name: 'the messages the failure does not need are gone, the first and the last', passed: inbox === want, message: inbox, expected: want, actual: inbox },
  ];
}

export function fuzzContractCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:fuzz/minimizer-drops-every-unneeded-message',
        title: "fuzz: the counterexample's last shrinking pass removes every inbox message the failure does not need, the first as well as the last",
        file: FILE,
      },
      minimizerDropsEveryUnneededMessage,
    ),
    checksCase(
      {
        id: 'contract:fuzz/too-short-a-search-checks-nothing',
        title: 'fuzz: a search too short to judge its invariant or any family of faults checked nothing: every case skipped, the run not passed',
        file: FILE,
      },
      tooShortASearchChecksNothing,
    ),
    checksCase(
      {
        id: 'contract:fuzz/drawn-check-names-every-family-drawn-in-none',
        title: 'fuzz: the check of what a run drew names every family a long run drew in no case, and only those it can judge',
        file: FILE,
      },
      drawnCheckReports,
    ),
    checksCase(
      {
        id: 'contract:fuzz/generators-draw-every-family',
        title: `fuzz: ${SAMPLE} generated cases draw every family at least at the share the drawn check assumes`,
        file: FILE,
      },
      generatorsDrawEveryFamily,
    ),
    checksCase(
      {
        id: 'contract:fuzz/each-family-read-from-its-own-feature',
        title: "fuzz: each family the drawn check tallies is counted from a case with its feature alone, and from no other family's",
        file: FILE,
      },
      familiesReadTheirOwnFeature,
    ),
    ...behindThePortCases(),
  ];
}
