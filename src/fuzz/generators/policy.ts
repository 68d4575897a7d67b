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
 * case: a name that matches none is refused before anything runs). And patterns
 * held by one letter at one end (`l*`, `*e`) or floating (`*o*`): each matches
 * some names, and a matcher that forgets an anchor matches more (`*e`, unanchored
 * at the end, takes every name holding an `e`) — over-denying that
 * `policy-decides-as-written` reads (P21). One draw in three is an anchor
 * decoy (`anchorDecoys`): a pattern that names one tool and that another tool
 * holds in its middle, the only kind a matcher that forgets an anchor misreads.
 */
function patternsArb(tools: readonly FuzzTool[]): fc.Arbitrary<string[]> {
  const names = tools.map((t) => t.name);
  const prefixes = [...new Set(names.filter((n) => n.includes('_')).map((n) => `${n.split('_')[0]}_*`))];
  const anchored = [...new Set(names.flatMap((n) => [`${n[0]}*`, `*${n.at(-1)}`, `*${n[Math.floor(n.length / 2)]}*`]))];
  const plain = fc.constantFrom(...names, ...prefixes, ...anchored, '*');
  const decoys = anchorDecoys(names);
  const pattern = decoys.length > 0 ? fc.oneof({ weight: 2, arbitrary: plain }, { weight: 1, arbitrary: fc.constantFrom(...decoys) }) : plain;
  return fc.uniqueArray(pattern, { minLength: 0, maxLength: 3 });
}

/**
 * Patterns a matcher that forgets an anchor misreads, from the tools' own names
 * (outside probe 14, P06: `delete_*` denied undelete_snapshot): for each two
 * tools A and B, the longest start of A that B holds past its start (`p*`,
 * which names A and, unanchored at the start, B too), and the longest end of A
 * that B holds before its end (`*s`). With the names of an agent whose tools
 * share no such text (a user's tools and the scripted probe) the one-letter
 * patterns above are misread only when some other name holds that letter, and
 * a run seldom meets that call: fuzz on such an agent passed 500 runs with the
 * start anchor gone.
 */
export function anchorDecoys(names: readonly string[]): string[] {
  const decoys = new Set<string>();
  for (const a of names)
    for (const b of names) {
      if (a === b) continue;
      for (let k = a.length; k >= 1; k--) {
        const start = a.slice(0, k);
        if (!b.startsWith(start) && b.includes(start)) {
          decoys.add(`${start}*`);
          break;
        }
      }
      for (let k = a.length; k >= 1; k--) {
        const end = a.slice(-k);
        if (!b.endsWith(end) && b.includes(end)) {
          decoys.add(`*${end}`);
          break;
        }
      }
    }
  return [...decoys].sort();
}

export function visibilityArb(tools: readonly FuzzTool[]): fc.Arbitrary<Layer[]> {
  const layer = fc.record({ allow: patternsArb(tools), deny: patternsArb(tools) }, { requiredKeys: [] });
  const names = ['global', 'mode', 'subagent'];
  return fc.array(layer, { minLength: 1, maxLength: 3 }).map((layers) => layers.map((l, i): Layer => ({ name: names[i]!, ...l })));
}

const DECISIONS = ['deny', 'ask', 'allow'] as const;

export function policyArb(tools: readonly FuzzTool[]): fc.Arbitrary<Policy> {
  const rule = fc
    .tuple(
      fc.record(
        {
          decision: fc.constantFrom<'allow' | 'deny' | 'ask'>('deny', 'ask', 'allow'),
          tools: patternsArb(tools).filter((p) => p.length > 0),
          sideEffects: fc.uniqueArray(fc.constantFrom(...SIDE_EFFECTS), { minLength: 1, maxLength: 2 }),
          reason: fc.constant('fuzz rule'),
        },
        { requiredKeys: ['decision'] },
      ),
      // One rule in eight has a predicate that throws: it must match as a deny or ask, never as an allow.
      sometimes(fc.constant<'throws'>('throws'), 12),
    )
    .map(([r, when]) => (when ? { ...r, when } : r));
  // Often a rule's twins: the same match with one or both other decisions, each at its own place in the list.
  // Rules combine most-restrictive-first whatever their order, so only rules that match the same calls test
  // that; with all three decisions on one match, any two ranks swapped change a decision (invariant 7 reads it).
  const twins = fc.record({
    of: fc.nat(),
    // Two thirds of the time both other decisions: all three on one match.
    shifts: fc.constantFrom([1], [2], [1, 2], [2, 1], [1, 2], [2, 1]),
    at: fc.array(fc.nat(), { minLength: 2, maxLength: 2 }),
    // Half the time at every side-effect level, and a quarter of the time for every tool too: more of the
    // calls the script makes meet the twins (a call with bad arguments, or hidden by a layer, is never decided).
    wider: fc.constantFrom('no', 'no', 'levels', 'all'),
  });
  const rules = fc.tuple(fc.array(rule, { minLength: 0, maxLength: 3 }), sometimes(twins, 85)).map(([list, t]) => {
    if (!t || list.length === 0) return list;
    const i = t.of % list.length;
    const { sideEffects, tools: named, ...everything } = list[i]!;
    const base = t.wider === 'all' ? everything : t.wider === 'levels' && named ? { ...everything, tools: named } : list[i]!;
    const out = list.map((r, k) => (k === i ? base : r));
    t.shifts.forEach((shift, k) => {
      const copy = { ...base, decision: DECISIONS[(DECISIONS.indexOf(base.decision) + shift) % 3]! };
      out.splice(t.at[k]! % (out.length + 1), 0, copy);
    });
    return out;
  });
  return fc.record(
    {
      rules,
      default: fc.constantFrom<'allow' | 'deny' | 'ask'>('allow', 'ask', 'deny', 'ask'),
      onAskWithoutApprover: fc.constantFrom<'allow' | 'deny'>('deny', 'allow'),
      approvalTimeoutMs: fc.integer({ min: 1, max: 60_000 }),
    },
    { requiredKeys: ['rules'] },
  );
}

export const approverArb: fc.Arbitrary<Approver> = fc.record({
  // Now and then a broken approver: an answer that is neither approve nor deny, or a throw (both must deny). One
  // answer in four: an agent whose own policy asks about one tool meets few approvals, and at one in thirteen fuzz
  // never put an invalid answer to it (probe 14, P23: an invalid answer read as allow passed 1000 cases).
  answers: fc.array(
    fc.oneof(
      { withCrossShrink: true },
      { arbitrary: fc.constantFrom<'approve' | 'deny'>('approve', 'deny'), weight: 12 },
      { arbitrary: fc.constantFrom<'invalid' | 'throw'>('invalid', 'throw'), weight: 4 },
    ),
    { minLength: 1, maxLength: 3 },
  ),
  // A third of the time slower than the 3 s in which fuzz sends an early cancel (inbox.ts): the call waits, cancelled.
  delayMs: fc.oneof({ withCrossShrink: true }, fc.constant(0), fc.integer({ min: 1, max: 120_000 }), fc.integer({ min: 3_000, max: 120_000 })),
});

/**
 * The operator's tool settings, as a production host's YAML writes them: `tools.deny` and `tools.ask` by
 * name, never naming one tool in both (a config the host refuses). Through the production host they are its
 * config; driven directly, the layer and rule the host would add (policy-decides-as-written reads both).
 */
export function operatorArb(tools: readonly FuzzTool[]): fc.Arbitrary<{ deny?: string[]; ask?: string[] }> {
  const names = tools.map((t) => t.name);
  return fc
    .record({
      deny: fc.uniqueArray(fc.constantFrom(...names), { maxLength: 2 }),
      ask: fc.uniqueArray(fc.constantFrom(...names), { minLength: 1, maxLength: 2 }),
    })
    .map(({ deny, ask }) => {
      const denied = deny.filter((name) => !ask.includes(name));
      return { ...(denied.length > 0 ? { deny: denied } : {}), ask };
    });
}
