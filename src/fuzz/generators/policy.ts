/**
 * Permissions: visibility layers (allow and deny lists, exact names and `*`
 * patterns), policy rules (allow / deny / ask, per tool and per side-effect
 * level), the default and the no-approver fallback, and a scripted approver's
 * answers and delay.
 */
import fc from 'fast-check';
import type { Scenario } from '../../harness/scenario/schema.ts';
import { sometimes } from './optional.ts';
import { SIDE_EFFECTS, type FuzzTool } from './tools.ts';

type Policy = NonNullable<Scenario['policy']>;
type Approver = NonNullable<Scenario['approver']>;
type Layer = NonNullable<Scenario['visibility']>[number];

/**
 * Names and patterns a list may hold: the tools, a prefix pattern, everything —
 * each matching at least one of the tools (every tool given is declared in the
 * case: a name that matches none is refused before anything runs).
 */
function patternsArb(tools: readonly FuzzTool[]): fc.Arbitrary<string[]> {
  const names = tools.map((t) => t.name);
  const prefixes = [...new Set(names.filter((n) => n.includes('_')).map((n) => `${n.split('_')[0]}_*`))];
  return fc.uniqueArray(fc.constantFrom(...names, ...prefixes, '*'), { minLength: 0, maxLength: 3 });
}

export function visibilityArb(tools: readonly FuzzTool[]): fc.Arbitrary<Layer[]> {
  const layer = fc.record({ allow: patternsArb(tools), deny: patternsArb(tools) }, { requiredKeys: [] });
  const names = ['global', 'mode', 'subagent'];
  return fc.array(layer, { minLength: 1, maxLength: 3 }).map((layers) => layers.map((l, i): Layer => ({ name: names[i]!, ...l })));
}

const DECISIONS = ['deny', 'ask', 'allow'] as const;

export function policyArb(tools: readonly FuzzTool[]): fc.Arbitrary<Policy> {
  const rule = fc.record(
    {
      decision: fc.constantFrom<'allow' | 'deny' | 'ask'>('deny', 'ask', 'allow'),
      tools: patternsArb(tools).filter((p) => p.length > 0),
      sideEffects: fc.uniqueArray(fc.constantFrom(...SIDE_EFFECTS), { minLength: 1, maxLength: 2 }),
      reason: fc.constant('fuzz rule'),
    },
    { requiredKeys: ['decision'] },
  );
  // Sometimes a rule's twin: the same match with another decision, before or after it. Rules combine
  // most-restrictive-first whatever their order, so only rules that match the same calls test that.
  const twin = fc.record({ of: fc.nat(), shift: fc.constantFrom(1, 2), before: fc.boolean() });
  const rules = fc.tuple(fc.array(rule, { minLength: 0, maxLength: 3 }), sometimes(twin, 50)).map(([list, t]) => {
    if (!t || list.length === 0) return list;
    const i = t.of % list.length;
    const copy = { ...list[i]!, decision: DECISIONS[(DECISIONS.indexOf(list[i]!.decision) + t.shift) % 3]! };
    return t.before ? [...list.slice(0, i), copy, ...list.slice(i)] : [...list.slice(0, i + 1), copy, ...list.slice(i + 1)];
  });
  return fc.record(
    {
      rules,
      default: fc.constantFrom<'allow' | 'deny' | 'ask'>('allow', 'ask', 'deny'),
      onAskWithoutApprover: fc.constantFrom<'allow' | 'deny'>('deny', 'allow'),
      approvalTimeoutMs: fc.integer({ min: 1, max: 60_000 }),
    },
    { requiredKeys: ['rules'] },
  );
}

export const approverArb: fc.Arbitrary<Approver> = fc.record({
  answers: fc.array(fc.constantFrom<'approve' | 'deny'>('approve', 'deny'), { minLength: 1, maxLength: 3 }),
  // A third of the time slower than the 3 s in which fuzz sends an early cancel (inbox.ts): the call waits, cancelled.
  delayMs: fc.oneof({ withCrossShrink: true }, fc.constant(0), fc.integer({ min: 1, max: 120_000 }), fc.integer({ min: 3_000, max: 120_000 })),
});
