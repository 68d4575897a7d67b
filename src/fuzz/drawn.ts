/**
 * What the fuzzer drew: per family of faults and features, in how many generated
 * cases it appeared. A generator that silently stops drawing one (a retry-after
 * no longer attached, crashes never placed) changes nothing a passing run shows:
 * every invariant still holds, over cases that no longer reach the bug. So a run
 * long enough to expect a family many times over, and that drew it in no case,
 * fails — the fuzzer itself is broken (outside probe 31, F15).
 *
 * `rate` is a floor under the share of cases a family appears in with the
 * generators' defaults (measured over 2,000 cases, then halved); a family is
 * judged only once the run expects it at least `EXPECTED_AT_LEAST` times, where
 * drawing none by chance is below one in a billion.
 */
import { sentAgain } from './generators/provider.ts';
import type { Arm, FuzzCase, FuzzCaseOptions } from './generators/scenario.ts';
import type { Capability } from '../harness/loop-port/capabilities.ts';

export const EXPECTED_AT_LEAST = 25;

export interface Family {
  readonly id: string;
  readonly rate: number;
  readonly present: (c: FuzzCase) => boolean;
  /** False when the run's options leave the family out (no crashes asked for, no production host). */
  readonly enabled?: (options: FuzzCaseOptions) => boolean;
  /**
   * Behind the port (a loop that declares what it supports): the family is cut from every case of a loop lacking
   * this (behind-the-port.ts), so it is judged only for a loop that declares it.
   */
  readonly needs?: Capability | readonly Capability[];
  /** The family every case of this one is a case of too (a call sent again is a tool call): counted there as well. */
  readonly within?: string;
}

type Step = { readonly error?: { readonly retryAfterMs?: unknown; readonly midStream?: unknown }; readonly tool_use?: unknown };
type InboxEntry = Readonly<Record<string, unknown>>;
type ToolEntry = { readonly behaviour?: readonly unknown[] };

const steps = (c: FuzzCase): readonly Step[] => (c.scenario.provider as { script?: readonly Step[] }).script ?? [];
const inbox = (c: FuzzCase): readonly InboxEntry[] => (c.scenario.inbox ?? []) as readonly InboxEntry[];
const behaviours = (c: FuzzCase): unknown[] => ((c.scenario.tools ?? []) as readonly ToolEntry[]).flatMap((t) => [...(t.behaviour ?? [])]);
const scenarioHas = (c: FuzzCase, key: string): boolean => (c.scenario as unknown as Record<string, unknown>)[key] !== undefined;
/** Drawn by this arm of the generators (FuzzCase.arms), where other draws make the same shape. */
const drew = (c: FuzzCase, arm: Arm): boolean => c.arms?.includes(arm) === true;
const behaviourOf = (kind: string) => (c: FuzzCase) => behaviours(c).some((b) => b === kind || (typeof b === 'object' && b !== null && kind in b));

export const FAMILIES: readonly Family[] = [
  { id: 'a provider error with retry-after', rate: 0.15, present: (c) => steps(c).some((s) => s.error?.retryAfterMs !== undefined) },
  { id: 'a tool call', rate: 0.4, present: (c) => steps(c).some((s) => s.tool_use !== undefined) },
  { id: 'a steer', rate: 0.3, present: (c) => inbox(c).some((m) => 'steer' in m), needs: 'steer' },
  { id: 'a cancel', rate: 0.3, present: (c) => inbox(c).some((m) => 'cancel' in m) },
  { id: 'an inject', rate: 0.08, present: (c) => inbox(c).some((m) => 'inject' in m), needs: 'inject' },
  { id: 'a tool that throws', rate: 0.15, present: behaviourOf('throw') },
  // Behind the port a hang is a slow body, unless the loop times tools out itself.
  { id: 'a tool that hangs', rate: 0.08, present: behaviourOf('hang'), needs: 'tool-timeout' },
  { id: 'a tool failure with a code', rate: 0.06, present: behaviourOf('fail') },
  { id: 'a store fault', rate: 0.15, present: (c) => scenarioHas(c, 'store'), needs: 'store-faults' },
  { id: 'a compactor', rate: 0.2, present: (c) => scenarioHas(c, 'compaction'), needs: 'compaction' },
  { id: 'an approver', rate: 0.2, present: (c) => scenarioHas(c, 'approver'), needs: 'approver' },
  {
    id: 'a fallback model',
    rate: 0.1,
    present: (c) => (c.scenario.provider as { fallback?: unknown }).fallback !== undefined,
    needs: 'fallback',
  },
  // The fallback's first answer an error the retry tiers take: the chain must move past it (probe 69, fallback-from-start).
  // Counted from its own arm: a plain fallback script may start with an error too, and would hide that arm's loss.
  // Measured 4.5%; the floor a little above half of it, so that a run of 1,000 cases (the default) judges it.
  {
    id: 'a fallback model that fails first',
    rate: 0.025,
    present: (c) => drew(c, 'fallback-fails-first') && (c.scenario.provider as { fallback?: readonly Step[] }).fallback?.[0]?.error !== undefined,
    needs: 'fallback',
    within: 'a fallback model',
  },
  // A step's calls sent again later, ids and arguments as they were: repeats (probe 69, journal-repeat-started).
  // Counted from its own arm: the aimed repeats send a call twice too, and would hide that arm's loss.
  { id: 'a call sent again', rate: 0.04, present: (c) => drew(c, 'resent') && sentAgain(steps(c)), within: 'a tool call' },
  {
    id: 'a crash',
    rate: 0.05,
    present: (c) => c.crashAt !== undefined || inbox(c).some((m) => 'crash' in m),
    enabled: (o) => o.crashes !== false,
    needs: 'crash',
  },
  {
    id: 'the production host',
    rate: 0.15,
    present: (c) => c.scenario.host === 'production',
    enabled: (o) => o.production !== 0,
    needs: 'host:production',
  },
  {
    id: 'a wire provider (an SDK over HTTP)',
    rate: 0.1,
    present: (c) => c.scenario.provider.kind === 'wire',
    enabled: (o) => o.wire !== 0,
    // Drawn over the three providers alike: a loop that speaks one meets a third of them.
    needs: ['wire:anthropic', 'wire:openai-chat', 'wire:openai-responses'],
  },
  { id: 'a stream cut mid-way', rate: 0.003, present: (c) => steps(c).some((s) => s.error?.midStream !== undefined) },
  // A secret pasted into the system prompt: only the log's own redaction keeps it out of prompt.assembled (probe 65, P10).
  {
    id: 'a secret in the system prompt',
    rate: 0.065,
    // An exclusive fragment takes the prompt over, the key's fragment with it: then the secret never reached the prompt.
    present: (c) => (c.scenario.prompt ?? []).some((f) => f.id === 'fragment-key') && !(c.scenario.prompt ?? []).some((f) => f.exclusive === true),
    needs: 'prompt-fragments',
  },
];

/** Counts the families `fuzzCase` draws into `drawn`. */
export function tallyDrawn(drawn: Map<string, number>, fuzzCase: FuzzCase): void {
  for (const family of FAMILIES) if (family.present(fuzzCase)) drawn.set(family.id, (drawn.get(family.id) ?? 0) + 1);
}

/** The families a run of `runs` cases should have drawn many times over and drew in none (`supports`: of a loop behind the port). */
export function undrawn(drawn: ReadonlyMap<string, number>, runs: number, options: FuzzCaseOptions, supports?: readonly Capability[]): string[] {
  return judgedFamilies(options, supports)
    .filter((f) => runs * f.rate >= EXPECTED_AT_LEAST && (drawn.get(f.id) ?? 0) === 0)
    .map((f) => f.id);
}

/** The families a run with these options draws (`supports`: of a loop behind the port, which draws only what it declares). */
export function judgedFamilies(options: FuzzCaseOptions, supports?: readonly Capability[]): Family[] {
  const declared = (f: Family) => supports === undefined || f.needs === undefined || [f.needs].flat().every((n) => supports.includes(n));
  return FAMILIES.filter((f) => (f.enabled?.(options) ?? true) && declared(f));
}

/** The fewest runs from which a family is judged. */
export function runsToJudge(family: Family): number {
  return Math.ceil(EXPECTED_AT_LEAST / family.rate);
}
