/**
 * The case generator reaches the two double executions of a world-changing call
 * that a planted bug would hide in (outside probe 15): a STATEFUL or CRITICAL
 * call that runs and is then sent again with its id, tool and arguments (P11: a
 * repeat run again), and one whose process dies as its body starts, followed by
 * a reopen and the model sending it again (P18: a start not written ahead, so the
 * new host thinks it never ran). Drawn at random, fuzz met the first in a few
 * hundred cases and the second never.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Scenario } from '../../harness/scenario/schema.ts';
import { fuzzCaseArb } from './scenario.ts';
import { PROBE_TOOL, type FuzzTool } from './tools.ts';

const REFUND: FuzzTool = { name: 'issue_refund', sideEffect: 'STATEFUL', args: fc.constantFrom({ order_id: 'ORD-1' }, { order_id: 'ORD-2' }) };
const LOOKUP: FuzzTool = { name: 'lookup_order', sideEffect: 'NONE', args: fc.constant({ order_id: 'ORD-1' }) };
const LEVELS = new Map([
  [REFUND.name, 'STATEFUL'],
  [LOOKUP.name, 'NONE'],
]);

const cases = fc.sample(fuzzCaseArb({ tools: [LOOKUP, REFUND] }), { numRuns: 1_000, seed: 15 }).map((c) => c.scenario);

const worldChanging = (s: Scenario, tool: string): boolean => {
  const level = s.tools.find((t) => t.name === tool)?.sideEffect ?? LEVELS.get(tool) ?? (tool === PROBE_TOOL.name ? 'NONE' : undefined);
  return level === 'STATEFUL' || level === 'CRITICAL';
};

/** The first call of a world-changing tool that a later step of the script sends again (same id, tool, arguments). */
function repeated(s: Scenario): string | undefined {
  const earlier = new Set<string>();
  for (const step of s.provider.script) {
    const here: string[] = [];
    for (const call of step.tool_use ?? []) {
      if (call.id === undefined || !worldChanging(s, call.name)) continue;
      const key = JSON.stringify([call.id, call.name, call.args]);
      if (earlier.has(key)) return call.name;
      here.push(key);
    }
    for (const key of here) earlier.add(key);
  }
  return undefined;
}

describe('fuzzCaseArb reaches repeated world-changing calls', () => {
  it('repeats a STATEFUL or CRITICAL call nothing keeps from running (no rule, no hidden tool) in a few percent of cases', () => {
    const open = cases.filter((s) => repeated(s) !== undefined && s.policy === undefined && s.visibility === undefined);
    expect(open.length).toBeGreaterThan(30);
  });

  it('crashes the production host as such a call starts, reopens, and has the model repeat it', () => {
    const crashed = cases.filter((s) => {
      const tool = repeated(s);
      if (tool === undefined || s.host !== 'production') return false;
      const crash = s.inbox.findIndex((e) => e.crash === true && e.at?.toolStart === tool);
      const reopen = s.inbox.findIndex((e) => e.reopen === true);
      return crash >= 0 && reopen > crash && s.inbox.slice(reopen).some((e) => e.say !== undefined);
    });
    expect(crashed.length).toBeGreaterThan(15);
  });
});

/**
 * A team fuzzes its own agent with these cases: the texts the generator writes (the user's messages, steers and
 * injects, the prompt's fragments, the model's replies, summaries, tool outputs) belong to no trade. They were the
 * shop's ("my order ORD-1001 arrived broken") for a notes agent and an IT-admin agent alike (outside probes 61, 62).
 * The tools' names and arguments are the team's own; only what the generator writes itself is read here.
 */
describe("fuzzCaseArb writes texts of no one agent's trade", () => {
  const NOTES: FuzzTool = { name: 'save_note', sideEffect: 'STATEFUL', args: fc.constant({ title: 'a' }) };
  const SEARCH: FuzzTool = { name: 'search_notes', sideEffect: 'NONE', args: fc.constant({ query: 'a' }) };
  const SHOP = /\b(orders?|customers?|refunds?|invoices?|shipped|VIP|parcels?|fragile)\b|\bORD-\d/i;

  it('names no order, customer, refund or invoice in 1,000 cases for a notes agent', () => {
    const found = new Set<string>();
    for (const { scenario } of fc.sample(fuzzCaseArb({ tools: [SEARCH, NOTES] }), { numRuns: 1_000, seed: 3 })) {
      JSON.stringify(scenario, (_key, value: unknown) => {
        if (typeof value === 'string' && SHOP.test(value)) found.add(value.slice(0, 50));
        return value;
      });
    }
    expect([...found]).toEqual([]);
  });
});
