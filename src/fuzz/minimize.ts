/**
 * A last pass over a counterexample fast-check has shrunk: greedy removal of
 * single parts of the scenario — an inbox entry, a provider step, a tool
 * override, a config key, a rule, an optional section, a key of a call's
 * arguments — kept whenever the same
 * property still fails. fast-check's command shrinker cannot drop trailing inbox
 * commands that ran (they all "run" when the inbox is built), and its record
 * shrinking keeps keys it never needed; this pass removes them. Deterministic:
 * replaying fast-check's path ends in the same scenario.
 */
import { scenarioSchema, type Scenario } from '../harness/scenario/schema.ts';

type Candidate = Scenario;

function without<T>(list: readonly T[], index: number): T[] {
  return list.filter((_, i) => i !== index);
}

function dropKey<T extends object>(o: T, key: keyof T): T {
  const copy = { ...o };
  delete copy[key];
  return copy;
}

function stallsOnTheWire(s: Scenario): boolean {
  return s.provider.kind === 'wire' && [...s.provider.script, ...(s.provider.fallback ?? [])].some((step) => step.error?.kind === 'timeout');
}

/** Smaller variants of a scenario, one removal each, biggest removals first. */
export function* smaller(s: Scenario): Generator<Candidate> {
  for (const key of ['compaction', 'checkpoints', 'claim', 'store', 'secrets', 'approver', 'visibility', 'policy'] as const) {
    if (s[key] !== undefined) yield dropKey(s, key);
  }
  if (s.provider.fallback !== undefined) yield { ...s, provider: dropKey(s.provider, 'fallback') };
  for (let i = s.inbox.length - 1; i >= 0; i--) if (s.inbox.length > 1) yield { ...s, inbox: without(s.inbox, i) };
  for (let i = s.provider.script.length - 1; i >= 0; i--) yield { ...s, provider: { ...s.provider, script: without(s.provider.script, i) } };
  // A tool the scenario declares stays (rules, layers and triggers may name it); a script of an own tool may go.
  for (let i = 0; i < s.tools.length; i++) if (s.tools[i]!.description === undefined) yield { ...s, tools: without(s.tools, i) };
  for (const key of Object.keys(s.config) as (keyof Scenario['config'])[]) {
    // A stream that stalls on the wire ends only at the model timeout: without it the case hangs for a reason of
    // this pass's making, and the counterexample would show that hang, not the failure found.
    if (key === 'modelTimeoutMs' && stallsOnTheWire(s)) continue;
    if (key !== 'retry') yield { ...s, config: dropKey(s.config, key) };
  }
  // Jitter off before the other retry keys: a counterexample that does not need it replays the same under any seed.
  if (s.config.retry?.jitter !== undefined && s.config.retry.jitter !== 0) yield { ...s, config: { ...s.config, retry: { ...s.config.retry, jitter: 0 } } };
  for (const key of Object.keys(s.config.retry ?? {}) as (keyof NonNullable<Scenario['config']['retry']>)[]) {
    if (key !== 'jitter') yield { ...s, config: { ...s.config, retry: dropKey(s.config.retry!, key) } };
  }
  if (s.policy) for (let i = 0; i < s.policy.rules.length; i++) yield { ...s, policy: { ...s.policy, rules: without(s.policy.rules, i) } };
  if (s.visibility) for (let i = 0; i < s.visibility.length; i++) if (s.visibility.length > 1) yield { ...s, visibility: without(s.visibility, i) };
  for (let t = 0; t < s.tools.length; t++) {
    const tool = s.tools[t]!;
    for (const key of ['sideEffect', 'parallelSafe', 'timeoutMs', 'maxRetries', 'behaviour'] as const) {
      if (tool[key] !== undefined) yield { ...s, tools: s.tools.map((x, i) => (i === t ? dropKey(x, key) : x)) };
    }
  }
  for (let i = 0; i < s.provider.script.length; i++) {
    const step = s.provider.script[i]!;
    for (const key of ['latencyMs', 'usage', 'text'] as const) {
      if (step[key] !== undefined && !(key === 'text' && step.tool_use === undefined)) {
        yield { ...s, provider: { ...s.provider, script: s.provider.script.map((x, j) => (j === i ? dropKey(x, key) : x)) } };
      }
    }
    // A call's argument keys, one at a time (the fuzzer adds keys such as a planted passphrase that most failures never need).
    for (let c = 0; c < (step.tool_use ?? []).length; c++) {
      const args = step.tool_use![c]!.args;
      if (args === null || typeof args !== 'object' || Array.isArray(args)) continue;
      for (const key of Object.keys(args)) {
        const call = { ...step.tool_use![c]!, args: dropKey(args as Record<string, unknown>, key) };
        yield {
          ...s,
          provider: {
            ...s.provider,
            script: s.provider.script.map((x, j) => (j === i ? { ...x, tool_use: x.tool_use!.map((y, k) => (k === c ? call : y)) } : x)),
          },
        };
      }
    }
    if (step.tool_use && step.tool_use.length > 1) {
      for (let c = 0; c < step.tool_use.length; c++) {
        yield { ...s, provider: { ...s.provider, script: s.provider.script.map((x, j) => (j === i ? { ...x, tool_use: without(step.tool_use!, c) } : x)) } };
      }
    }
  }
  for (let i = 0; i < s.inbox.length; i++) if (s.inbox[i]!.at !== undefined) yield { ...s, inbox: s.inbox.map((e, j) => (j === i ? dropKey(e, 'at') : e)) };
}

/** Smaller variants of a scenario with an inbox entry and a provider step removed together. */
export function* pairsSmaller(s: Scenario): Generator<Candidate> {
  if (s.inbox.length < 2) return;
  for (let i = s.inbox.length - 1; i >= 0; i--) {
    for (let j = s.provider.script.length - 1; j >= 0; j--) {
      yield { ...s, inbox: without(s.inbox, i), provider: { ...s.provider, script: without(s.provider.script, j) } };
    }
  }
}

/**
 * Removes parts while `stillFails` holds, up to `budget` tries. Returns the smallest scenario found and the removals kept.
 * A removal that leaves no valid scenario (a disconnect naming a message no longer posted, a crash without its reopen)
 * is never tried: such a case fails to build, which is not the failure being minimized.
 */
export async function minimizeScenario(
  scenario: Scenario,
  stillFails: (candidate: Scenario) => Promise<boolean>,
  budget = 400,
): Promise<{ scenario: Scenario; removals: number; tries: number }> {
  let current = scenario;
  let removals = 0;
  let tries = 0;
  /** The first of `candidates` that is valid and still fails, within the budget. */
  const firstFailing = async (candidates: Iterable<Candidate>): Promise<Candidate | undefined> => {
    for (const candidate of candidates) {
      if (tries >= budget) return undefined;
      if (!scenarioSchema.safeParse(candidate).success) continue;
      tries++;
      if (await stillFails(candidate)) return candidate;
    }
    return undefined;
  };
  while (tries < budget) {
    // One part at a time; when no single removal keeps the failure, an inbox entry and a provider step together
    // (a cancel and the answer it cut short: either alone changes which request reaches the bug).
    const next = (await firstFailing(smaller(current))) ?? (await firstFailing(pairsSmaller(current)));
    if (next === undefined) break;
    current = next;
    removals++;
  }
  return { scenario: current, removals, tries };
}
