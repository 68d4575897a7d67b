import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchesPattern } from '../../harness/invariants/support/policy-reference.ts';
import { anchorDecoys, operatorArb } from './policy.ts';

/** A matcher that forgot one anchor: what each decoy is there to catch. */
function unanchored(pattern: string, name: string, at: 'start' | 'end'): boolean {
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(at === 'start' ? `${body}$` : `^${body}`).test(name);
}

describe('anchorDecoys', () => {
  it('names a tool by its start where another tool holds that start in its middle (probe 14, P06)', () => {
    expect(anchorDecoys(['delete_cluster', 'undelete_snapshot'])).toContain('delete_*');
    expect(anchorDecoys(['fetch_runbook', 'prefetch_x'])).toContain('fetch_*');
  });

  it('names a tool by its end where another tool holds that end before its end', () => {
    expect(anchorDecoys(['lookup_order', 'lookup_order_history'])).toContain('*lookup_order');
  });

  it('gives only patterns that name a tool as written and that a matcher without an anchor reads as naming another', () => {
    const names = ['query_metrics', 'fetch_runbook', 'restart_service', 'page_human', 'rollback_deploy', 'delete_cluster', 'probe'];
    const decoys = anchorDecoys(names);
    expect(decoys.length).toBeGreaterThan(0);
    for (const decoy of decoys) {
      expect(names.some((n) => matchesPattern(decoy, n))).toBe(true);
      const at = decoy.startsWith('*') ? 'end' : 'start';
      expect(names.some((n) => unanchored(decoy, n, at) && !matchesPattern(decoy, n))).toBe(true);
    }
  });

  it('gives none when no name holds another name’s start or end in its middle', () => {
    expect(anchorDecoys(['ab', 'cd'])).toEqual([]);
  });
});

describe('operatorArb', () => {
  it("draws a production host's tools.ask (always) and tools.deny, never naming one tool in both: a config the host would refuse", () => {
    const tools = ['lookup_order', 'issue_refund', 'notify_customer'].map((name) => ({ name, sideEffect: 'NONE' as const, args: fc.constant({}) }));
    const drawn = fc.sample(operatorArb(tools), { numRuns: 300, seed: 3 });
    for (const settings of drawn) {
      expect(settings.ask?.length).toBeGreaterThan(0);
      expect((settings.deny ?? []).filter((name) => settings.ask!.includes(name))).toEqual([]);
    }
    expect(drawn.some((s) => (s.deny ?? []).length > 0)).toBe(true);
    expect(new Set(drawn.flatMap((s) => s.ask ?? []))).toEqual(new Set(tools.map((t) => t.name)));
  });
});
