/**
 * Tools the generated model calls, and how each one behaves when it runs: ok,
 * failed, throwing, hanging until its timeout, slow, at every side-effect level.
 *
 * A `FuzzTool` names a tool the agent has (or a scripted one the scenario adds)
 * and the arguments the model may send it — valid, invalid and raw text — so the
 * same generators serve the example agent and a user's own tools.
 */
import { CREDENTIAL_SAMPLES } from '../../harness/invariants/support/credential-samples.ts';
import fc from 'fast-check';
import { DEFAULT_MAX_OUTPUT_CHARS } from '../../kernel/index.ts';
import { EXECUTOR_FAULTS, type Behaviour, type ScenarioTool } from '../../harness/scenario/schema.ts';
import { sometimes } from './optional.ts';
import { FUZZ_PASSPHRASE, FUZZ_PIN, FUZZ_SECRET, SECRET_ENCODED_OUTPUT, secretNearCut } from './secret.ts';

export const SIDE_EFFECTS = ['NONE', 'IDEMPOTENT', 'STATEFUL', 'CRITICAL'] as const;
export type SideEffectLevel = (typeof SIDE_EFFECTS)[number];

export interface FuzzTool {
  readonly name: string;
  /** Arguments the model sends: valid ones first (fast-check shrinks towards the first). */
  readonly args: fc.Arbitrary<unknown>;
  /** The level the tool declares (default NONE). */
  readonly sideEffect?: SideEffectLevel;
  /** Given no `fuzz.args` and an input schema nothing can be drawn from: it gets only `{}` and text that is not JSON. */
  readonly undrawn?: true;
  /** For a tool the agent does not have: the scenario declares it (`tools:` with a description). */
  readonly scripted?: { readonly description: string; readonly input?: Readonly<Record<string, string>> };
}

/** A scripted tool the fuzzer adds to every agent: a stub at a generated side-effect level, whatever the agent's own tools are. */
export const PROBE_TOOL: FuzzTool = {
  name: 'probe',
  // Now and then a nested `detail` (objects, an array, a null): `arguments-validated` checks the body gets it frozen all the way down.
  // And a typed list `labels` (`string[]`): valid, or with one item of the wrong type, an issue whose path is nested
  // (`labels[i]`), never a top-level one: a validator that ignores nested issues runs the tool on them (P10).
  args: fc.oneof(
    { withCrossShrink: true },
    { weight: 3, arbitrary: fc.constant({}) },
    {
      weight: 1,
      arbitrary: fc.record({
        detail: fc.record({ note: fc.constantFrom(null, 'pending'), items: fc.array(fc.record({ id: fc.integer({ min: 1, max: 9 }) }), { maxLength: 2 }) }),
      }),
    },
    { weight: 1, arbitrary: fc.record({ labels: fc.array(fc.constantFrom('pending', 'late', 'JOB-1001'), { maxLength: 3 }) }) },
    {
      weight: 1,
      arbitrary: fc
        .record({
          labels: fc.array(fc.constantFrom('pending', 'late'), { maxLength: 2 }),
          at: fc.nat(),
          wrong: fc.constantFrom<unknown>(1002, true, null, { id: 'JOB-1002' }, ['late']),
        })
        .map(({ labels, at, wrong }) => {
          const list: unknown[] = [...labels];
          list.splice(at % (labels.length + 1), 0, wrong);
          return { labels: list };
        }),
    },
  ),
  scripted: {
    description: 'A scripted tool the fuzzer adds: it does nothing unless its behaviour says so.',
    input: { detail: 'object?', labels: 'string[]?' },
  },
};

/** A name no agent declares: calls to it must be refused as not available. */
export const UNKNOWN_TOOL = 'no_such_tool';

/**
 * Output longer than the model may read — past a generated `toolMaxOutputChars`,
 * or past the 20,000-character default — as text or as JSON, with a surrogate
 * pair where a cut may fall; and text exactly as long as the default cap, and
 * one unit longer (an off-by-one in the cap passed everything else), each
 * ending in an emoji whose pair ends at the default cap;
 * `tool-output-capped` checks what the model got.
 */
const longOutputArb: fc.Arbitrary<unknown> = fc.oneof(
  fc
    .record({ size: fc.constantFrom(300, 2_500, 21_000), json: fc.boolean() })
    .map(({ size, json }) => (json ? { events: [...longOutputChunks(size)] } : longOutputText(size))),
  fc.constantFrom(DEFAULT_MAX_OUTPUT_CHARS, DEFAULT_MAX_OUTPUT_CHARS + 1).map(boundaryText),
);

/**
 * Text of exactly `length` UTF-16 units (the unit the cap counts) whose units `length - 3` and `length - 2` are an
 * emoji, a surrogate pair: one unit over the default cap, the pair ends exactly at the cut, and must be kept whole (a
 * cut that took the pair's second half for a first half dropped it, outside probe 71, truncate-surrogate-range).
 */
const boundaryTexts = new Map<number, string>();
function boundaryText(length: number): string {
  let text = boundaryTexts.get(length);
  if (text === undefined) {
    text = `${'batch event 0001 handled; '.repeat(Math.ceil(length / 26)).slice(0, length - 3)}📦.`;
    boundaryTexts.set(length, text);
  }
  return text;
}

/** The texts, built once per size (three sizes; the array of chunks is copied per case). */
const longTexts = new Map<number, { text: string; chunks: readonly string[] }>();
function longOutput(size: number): { text: string; chunks: readonly string[] } {
  let built = longTexts.get(size);
  if (!built) {
    const text = [...'batch event 0001 handled; 📦 '.repeat(Math.ceil(size / 27))].slice(0, size).join(''); // whole characters only
    built = { text, chunks: text.match(/.{1,40}/gu) ?? [] };
    longTexts.set(size, built);
  }
  return built;
}
const longOutputText = (size: number): string => longOutput(size).text;
const longOutputChunks = (size: number): readonly string[] => longOutput(size).chunks;

/** One execution attempt's behaviour. `ok` first: it shrinks towards a tool that just works. */
export const behaviourArb: fc.Arbitrary<Behaviour> = fc.oneof(
  { withCrossShrink: true },
  { weight: 6, arbitrary: fc.constant<Behaviour>('ok') },
  // Now and then from another copy of loopgate's module (instanceof does not hold), or a look-alike with no retryable
  // field at all, which does not say it may be retried (outside probes 59 P03 and 61 P15: a loop retrying such a
  // look-alike passed fuzz, which never threw one; `failures-not-retried-when-told` holds it).
  {
    weight: 2,
    arbitrary: fc
      .record({
        code: fc.constantFrom('E_FUZZ', 'UPSTREAM_DOWN'),
        retryable: fc.boolean(),
        copy: fc.constantFrom(false, false, false, true, 'without-retryable' as const),
      })
      .map(
        ({ code, retryable, copy }): Behaviour => ({
          fail: copy === 'without-retryable' ? { code, fromAnotherCopy: copy } : { code, retryable, ...(copy ? { fromAnotherCopy: true } : {}) },
        }),
      ),
  },
  { weight: 1, arbitrary: fc.constant<Behaviour>({ throw: 'fuzz: the tool threw' }) },
  // A throw whose text quotes the passphrase over and over, as an upstream's error log echoes the credential it was
  // given: an error message is cut to half the output cap, inside a copy. Cut before it is redacted, the log's own
  // redaction then shortens what the cut's marker counted: `tool-output-capped`, when the case lists the secrets (outside
  // probe 67, tool-err-redact: error messages cut unredacted passed fuzz, whose throws never held a secret).
  {
    weight: 1,
    arbitrary: fc
      .record({ size: fc.constantFrom(440, DEFAULT_MAX_OUTPUT_CHARS + 40), lead: fc.integer({ min: 0, max: 40 }) })
      .map(({ size, lead }): Behaviour => ({ throw: `upstream refused: ${secretNearCut(size, lead)}` })),
  },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 30_000 }).map((slow): Behaviour => ({ slow })) },
  { weight: 1, arbitrary: fc.constant<Behaviour>('hang') },
  { weight: 1, arbitrary: fc.constant<Behaviour>({ return: { ok: true, note: 'scripted output' } }) },
  { weight: 1, arbitrary: longOutputArb.map((text): Behaviour => ({ return: text })) },
  // The passphrase over and over, past the generated cap and past the default one: the cut falls inside a copy
  // (output cut before it is redacted: the log's redaction of a copy's head, half of it or more, shortens what the cut's
  // marker counted, `tool-output-capped`; a shorter head is no piece the redactor or `secret-fragments-never-leave` know).
  {
    weight: 1,
    arbitrary: fc
      .record({ size: fc.constantFrom(440, DEFAULT_MAX_OUTPUT_CHARS + 40), lead: fc.integer({ min: 0, max: 40 }) })
      .map(({ size, lead }): Behaviour => ({ return: secretNearCut(size, lead) })),
  },
  // Credentials nobody configured, of the shapes the default rules know (`credential-shapes-redacted` checks none
  // leaves): every sample, one a line, starting at a drawn one (what a cut to the drawn output limit keeps varies). One
  // sample a draw, a rule that stopped matching one kind of its shapes met it once in 41 credential draws: fuzz seeds 1
  // and 2 passed GitHub refresh tokens (`ghr_`) left unredacted (outside probe 70, secret-ghr-token).
  {
    weight: 1,
    arbitrary: fc.constantFrom<Behaviour>(
      ...CREDENTIAL_SAMPLES.map(
        (_, i): Behaviour => ({
          return: `settings in use:\n${[...CREDENTIAL_SAMPLES.slice(i), ...CREDENTIAL_SAMPLES.slice(0, i)].map((s) => s.text).join('\n')}`,
        }),
      ),
    ),
  },
  // The case's own secrets encoded (invariant 15, when the case lists them): an arm of its own, not one sample among
  // the credential shapes, where it came up in one behaviour in 300 and fuzz met it too rarely (probe 14, P15).
  { weight: 1, arbitrary: fc.constant<Behaviour>({ return: SECRET_ENCODED_OUTPUT }) },
);

/** Attempts that each call for a retry: plain throws, now and then a hang (a timeout); sometimes the last one works. */
const retryableFailuresArb: fc.Arbitrary<Behaviour[]> = fc
  .record({
    failures: fc.array(
      fc.oneof({ weight: 3, arbitrary: fc.constant<Behaviour>({ throw: 'fuzz: the tool threw' }) }, { weight: 1, arbitrary: fc.constant<Behaviour>('hang') }),
      {
        minLength: 1,
        maxLength: 4,
      },
    ),
    thenOk: fc.boolean(),
  })
  .map(({ failures, thenOk }): Behaviour[] => (thenOk ? [...failures, 'ok'] : failures));

/**
 * Scripts for some of the tools. An agent's own tool gets a behaviour script only
 * (one entry per attempt; the last repeats): its declaration is what ships, and a
 * scenario may not change it. A scripted tool (the probe) is declared by the
 * scenario, at a generated side-effect level, parallel safety, timeout and retries.
 */
export function toolOverridesArb(tools: readonly FuzzTool[]): fc.Arbitrary<ScenarioTool[]> {
  // Now and then a tool that fails retryably on every attempt but maybe the last: a plain throw or a timeout
  // (a hang) again and again, the retries all spent (outside probe 13, Q04, Q05: a loop that ran one attempt
  // fewer, or never retried a plain throw, passed every invariant; `tool-retries-follow-policy` counts them).
  const behaviour = fc.oneof(
    { withCrossShrink: true },
    { weight: 3, arbitrary: fc.array(behaviourArb, { minLength: 1, maxLength: 3 }) },
    { weight: 1, arbitrary: retryableFailuresArb },
  );
  // Now and then the tool executor breaks its contract for the tool's calls (executor: drops-result | throws-after-start).
  // The first three faults only: drawing from a longer list would redraw every seed's cases (leaves-span-open is drawn by withSpanMisuse).
  const executor = sometimes(fc.constantFrom(...EXECUTOR_FAULTS.slice(0, 3)), 4);
  const ownScript = (tool: FuzzTool): fc.Arbitrary<ScenarioTool> =>
    fc.tuple(behaviour, executor).map(([b, fault]) => ({ name: tool.name, behaviour: b, ...(fault ? { executor: fault } : {}) }));
  const declared = (tool: FuzzTool): fc.Arbitrary<ScenarioTool> =>
    fc
      .record(
        {
          sideEffect: fc.constantFrom(...SIDE_EFFECTS),
          parallelSafe: fc.boolean(),
          timeoutMs: fc.integer({ min: 100, max: 20_000 }),
          maxRetries: fc.integer({ min: 0, max: 3 }),
          behaviour,
        },
        { requiredKeys: [] },
      )
      .map(({ maxRetries, ...o }) => {
        // The registry refuses retries for tools that must never run twice.
        const level = o.sideEffect ?? tool.sideEffect ?? 'NONE';
        const retries = maxRetries !== undefined && (level === 'NONE' || level === 'IDEMPOTENT') ? { maxRetries } : {};
        return {
          name: tool.name,
          description: tool.scripted!.description,
          ...(tool.scripted!.input ? { input: { ...tool.scripted!.input } } : {}),
          ...o,
          ...retries,
        };
      });
  const withExecutor = (tool: fc.Arbitrary<ScenarioTool>): fc.Arbitrary<ScenarioTool> =>
    fc.tuple(tool, executor).map(([t, fault]) => (fault ? { ...t, executor: fault } : t));
  // The agent's own tools are scripted only sometimes. A scripted tool is always declared: policy rules,
  // visibility layers and toolStart triggers name it, and a name that names no tool is refused (fail
  // closed). Calls to a tool nobody declares are UNKNOWN_TOOL's (see provider.ts).
  const own = tools.filter((t) => !t.scripted).map((t) => sometimes(ownScript(t), 50));
  const scripted = tools.filter((t) => t.scripted).map((t) => withExecutor(declared(t)));
  return fc
    .tuple(fc.tuple(...own), fc.tuple(...scripted))
    .map(([overridden, declaredOnes]) => [...overridden, ...declaredOnes].filter((o): o is ScenarioTool => o !== undefined));
}

/** The scripts with every tool's calls going through an executor that breaks its contract the same way (one executor serves them all). */
export function withBrokenExecutor(scripts: readonly ScenarioTool[], tools: readonly FuzzTool[], fault: ScenarioTool['executor']): ScenarioTool[] {
  const named = new Set(scripts.map((t) => t.name));
  return [...scripts.map((t) => ({ ...t, executor: fault })), ...tools.filter((t) => !named.has(t.name)).map((t) => ({ name: t.name, executor: fault }))];
}

/**
 * With `misuse`, every tool whose executor is not broken otherwise goes through one that misuses its span: the
 * first such tool `misuses-span`, the next `leaves-span-open`, and so on by turns (no draw of its own, so every
 * other part of a seed's cases stays as it was).
 */
export function withSpanMisuse(scripts: readonly ScenarioTool[], tools: readonly FuzzTool[], misuse: boolean): ScenarioTool[] {
  if (!misuse) return [...scripts];
  const named = new Set(scripts.map((t) => t.name));
  let n = 0;
  const fault = () => (n++ % 2 === 0 ? ('misuses-span' as const) : ('leaves-span-open' as const));
  return [
    ...scripts.map((t) => (t.executor ? t : { ...t, executor: fault() })),
    ...tools.filter((t) => !named.has(t.name)).map((t) => ({ name: t.name, executor: fault() })),
  ];
}

/** What the probe returns first when its executor skips redaction: both of the case's secrets, in plain text. */
export const SECRETS_UNREDACTED_OUTPUT = `diagnostics: key in use ${FUZZ_SECRET}, passphrase ${FUZZ_PASSPHRASE}, PIN ${FUZZ_PIN}`;

/**
 * With `on`, every tool whose executor is sound otherwise is answered by one built without the redactor
 * (`skips-redaction`): its output reaches the log as the tool returned it, secrets in plain text, and the log's own
 * redaction must keep them out (no draw of its own). The probe's first attempt then returns the case's secrets, so
 * there is one to keep out.
 */
export function withSkippedRedaction(scripts: readonly ScenarioTool[], tools: readonly FuzzTool[], on: boolean): ScenarioTool[] {
  if (!on) return [...scripts];
  const named = new Set(scripts.map((t) => t.name));
  const leaky = (t: ScenarioTool): ScenarioTool =>
    t.name === PROBE_TOOL.name ? { ...t, behaviour: [{ return: SECRETS_UNREDACTED_OUTPUT }, ...(t.behaviour ?? []).slice(1)] } : t;
  return [
    ...scripts.map((t) => (t.executor ? t : leaky({ ...t, executor: 'skips-redaction' as const }))),
    ...tools.filter((t) => !named.has(t.name)).map((t) => ({ name: t.name, executor: 'skips-redaction' as const })),
  ];
}
