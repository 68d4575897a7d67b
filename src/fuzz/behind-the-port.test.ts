/**
 * A fuzz search of a loop behind the port whose agent makes every case one the loop cannot run (a claim policy that
 * refuses, with no `claim` capability): no case ran, so nothing was drawn or judged, and the reports say nothing was
 * checked (review of stop 55, H2: the drawn check counted the skipped cases and passed, and the search exited 0).
 */
import { describe, expect, it } from 'vitest';
import { handWritten } from '../harness/hand-written-loop.ts';
import type { AgentRegistry } from '../harness/world/agent-under-test.ts';
import { nothingChecked } from '../report/results.ts';
import { fuzzResults } from './report.ts';
import { runFuzz } from './run-fuzz.ts';

const REFUSING: AgentRegistry = {
  agents: new Map([['shop', () => ({ system: 'You help.', tools: [], claim: { claim: () => ({ decision: 'deny' as const, reason: 'closed' }) } })]]),
  defaultAgent: 'shop',
};

describe('fuzz behind the port, every case one the loop cannot run', () => {
  it('draws and judges nothing, and its reports say nothing was checked', async () => {
    const result = await runFuzz({ runs: 80, seed: 1, cases: { agent: 'shop' }, loop: { factory: handWritten(), agents: REFUSING } });
    expect(result.skipped?.runs).toBe(80);
    expect(result.skipped?.reason).toMatch(/hand-written has no claim .*its claim policy refuses one of the messages/);
    expect(result.drawn.size).toBe(0);
    expect(result.undrawn).toEqual([]);
    const results = fuzzResults({ result, startedAt: new Date(), finishedAt: new Date(), version: 'test' });
    expect(results.summary.passed).toBe(0);
    expect(nothingChecked(results)).toBe(true);
  });
});
