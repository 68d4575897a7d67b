/**
 * The case generator reaches a world-changing call the model was told of only in
 * the loop's notice, then compacted away (outside probe 17, R11): a turn runs a
 * STATEFUL or CRITICAL call and fails (its steps are not kept, so the loop tells
 * the next turn in a notice), the next turn reads the notice, completes a step
 * and ends without a reply (cancelled, or interrupted by a crash), and the next
 * request overflows, so the compactor replaces both turns with a summary that
 * does not name the call. Drawn at random, fuzz never built that sequence: a
 * restatement that dropped such a call passed every seed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ProviderStep, Scenario } from '../../harness/scenario/schema.ts';
import { fuzzCaseArb } from './scenario.ts';
import { PROBE_TOOL, type FuzzTool } from './tools.ts';

const REFUND: FuzzTool = { name: 'issue_refund', sideEffect: 'STATEFUL', args: fc.constantFrom({ order_id: 'ORD-1' }, { order_id: 'ORD-2' }) };
const LOOKUP: FuzzTool = { name: 'lookup_order', sideEffect: 'NONE', args: fc.constant({ order_id: 'ORD-1' }) };
const LEVELS = new Map([
  [REFUND.name, 'STATEFUL'],
  [LOOKUP.name, 'NONE'],
]);

const cases = fc.sample(fuzzCaseArb({ tools: [LOOKUP, REFUND] }), { numRuns: 1_000, seed: 18 }).map((c) => c.scenario);

const worldChanging = (s: Scenario, tool: string): boolean => {
  const level = s.tools.find((t) => t.name === tool)?.sideEffect ?? LEVELS.get(tool) ?? (tool === PROBE_TOOL.name ? 'NONE' : undefined);
  return level === 'STATEFUL' || level === 'CRITICAL';
};

/** How a step ends its turn failed, its steps not kept (undefined: it does not). */
const failure = (step: ProviderStep | undefined): string | undefined =>
  step?.refusal !== undefined
    ? 'refusal'
    : step?.unknown !== undefined
      ? 'unknown stop reason'
      : step?.error !== undefined
        ? `error ${step.error.kind}`
        : undefined;

interface Told {
  readonly tool: string;
  readonly failed: string;
  readonly ends: 'cancel' | 'crash';
}

/**
 * The shape, read from the scenario alone: the turn ending without a reply is cut at request k (a cancel, or a crash
 * then a reopen), a message follows; the script's step k is never delivered, step k+1 overflows; before it, a step
 * calls a world-changing tool, the turn then fails (a refusal, an unknown stop reason, errors, or the step budget
 * spent by calls), and the next turn completes at least one step (a call) before request k; a compactor summary
 * that does not name the tool.
 */
function toldThenCompacted(s: Scenario): Told | undefined {
  const cut = s.inbox.findIndex((e) => (e.cancel !== undefined || e.crash === true) && e.at?.request !== undefined);
  if (cut < 0) return undefined;
  const k = s.inbox[cut]!.at!.request!;
  if (!s.inbox.slice(cut + 1).some((e) => e.say !== undefined)) return undefined;
  const script = s.provider.script;
  if (script[k]?.overflow === undefined || script[k - 2]?.tool_use === undefined) return undefined;
  const summaries = (s.compaction ?? []).flatMap((c) => (typeof c === 'object' && 'summary' in c ? [c.summary] : []));
  for (let i = 0; i < k - 2; i++) {
    const call = script[i]!.tool_use?.find((c) => worldChanging(s, c.name));
    if (!call || summaries.length === 0 || summaries.some((t) => t.includes(call.name))) continue;
    const next = failure(script[i + 1]);
    const failed =
      next ?? (s.config.maxSteps !== undefined && script.slice(i + 1, k - 1).every((step) => step.tool_use !== undefined) ? 'max steps' : undefined);
    if (failed !== undefined) return { tool: call.name, failed, ends: s.inbox[cut]!.crash === true ? 'crash' : 'cancel' };
  }
  return undefined;
}

describe('fuzzCaseArb reaches a told world-changing call compacted away', () => {
  const told = cases.flatMap((s) => {
    const t = toldThenCompacted(s);
    return t ? [{ s, t }] : [];
  });

  it('builds the sequence in a few percent of cases', () => {
    // 36 of 1,000 at seed 18 (20 at seed 17, whose draws the operator's tool backoff moved: 3 ways the first turn
    // fails, not 4). A fifth of the cases run over the wire, where no aim is drawn.
    expect(told.length).toBeGreaterThan(15);
    expect(told.length).toBeLessThan(120);
  });

  it('draws its variations: the tool, how the first turn fails, how the second ends, whether more turns are replaced', () => {
    expect(new Set(told.map(({ t }) => t.tool))).toEqual(new Set([REFUND.name, PROBE_TOOL.name]));
    expect(new Set(told.map(({ t }) => t.failed.split(' ')[0])).size).toBeGreaterThanOrEqual(4);
    expect(new Set(told.map(({ t }) => t.ends))).toEqual(new Set(['cancel', 'crash']));
    expect(told.some(({ s }) => s.tools.some((t) => t.name === PROBE_TOOL.name && t.sideEffect === 'CRITICAL'))).toBe(true);
    // Turns that replied before the failed one: the compactor's range then covers more than the two.
    expect(told.some(({ s }) => s.provider.script[0]?.reply !== undefined && s.inbox[0]?.say !== undefined)).toBe(true);
    // Through the production host (a crash needs it) and through the loop directly.
    expect(new Set(told.map(({ s }) => s.host ?? 'loop'))).toEqual(new Set(['production', 'loop']));
  });
});
