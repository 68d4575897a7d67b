/**
 * The AI SDK adapter against the real `ai` 6 loop: what the field-failure report
 * publishes must come out of these runs — and where the peer behaves, the checks
 * must say it holds (a check that fails everything proves nothing).
 */
import { outcomeLabel } from '../../src/kernel/index.ts';
import { describe, expect, it } from 'vitest';
import { aiSdkLoop } from '../../src/loops/ai-sdk/adapter.ts';
import type { Scenario } from '../../src/harness/scenario/schema.ts';
import { runFile } from './peer-run.ts';

/** The scenario with its first model answer taking `ms` of virtual time. */
const firstAnswerTakes =
  (ms: number) =>
  (s: Scenario): Scenario => ({ ...s, provider: { ...s.provider, script: s.provider.script.map((step, i) => (i === 0 ? { ...step, latencyMs: ms } : step)) } });

describe('the AI SDK generateText loop behind the port', () => {
  it('replies through real tools, persisted by the on-success glue, with one turn span per turn and every invariant holding', async () => {
    const { run, violations } = await runFile('bundled/refunds/order-status-lookup.yaml', aiSdkLoop());
    expect(run.reports.map((r) => outcomeLabel(r.outcome))).toEqual(['replied']);
    expect(run.histories.at(-1)!.length).toBeGreaterThan(1);
    expect(run.traces[0]!.spans.filter((s) => s.kind === 'turn')).toHaveLength(1);
    expect(run.traces[0]!.spans.every((s) => s.status === 'ok')).toBe(true);
    expect([...violations]).toEqual([]);
  });

  it('runs a team’s generateText timeout on the case’s clock: a model slower than it ends the turn as in production, in every form', async () => {
    for (const timeout of [5_000, { totalMs: 5_000 }, { stepMs: 5_000 }]) {
      const { run } = await runFile('bundled/replies/reply-matches-a-pattern.yaml', aiSdkLoop({ options: { timeout } }), firstAnswerTakes(60_000));
      expect(outcomeLabel(run.reports[0]!.outcome), JSON.stringify(timeout)).toBe('failed{provider_unavailable}');
      expect(run.reports[0]!.ending).toMatchObject({ kind: 'threw', errorClass: 'TimeoutError' });
      expect(run.executions.get('lookup_order') ?? 0).toBe(0);
      expect(run.virtualMs).toBeLessThan(60_000);
    }
    // A model within the timeout: the turn replies, as without one.
    const { run } = await runFile('bundled/replies/reply-matches-a-pattern.yaml', aiSdkLoop({ options: { timeout: 5_000 } }), firstAnswerTakes(4_000));
    expect(run.reports.map((r) => outcomeLabel(r.outcome))).toEqual(['replied']);
  });

  it('re-runs a STATEFUL refund when the model repeats its call id (invariant 13)', async () => {
    const { violations } = await runFile('bundled/safety/colliding-call-ids-each-run-once.yaml', aiSdkLoop());
    expect(violations.get('invariant-13-side-effects-once')).toMatch(/issue_refund \(STATEFUL\) ran 2 times for call r/);
  });

  it('never ends a turn whose tool ignores its abort signal: unsettled, spans left open (invariants 4, 8, 12)', async () => {
    const { run, violations } = await runFile('peers/hanging-tool-without-timeout-on-cancel.yaml', aiSdkLoop());
    expect(run.unsettled).toEqual({ turn: 0, waitingOn: 'tool export_report (call export)' });
    expect(violations.get('invariant-12-nothing-throws')).toMatch(/never settled/);
    expect(violations.get('invariant-08-no-open-spans')).toMatch(/never ended/);
  });

  it('a team glue that keeps a turn twice is caught: the next request carries a message twice, or a call id twice (outside probe 28, F3)', async () => {
    // Text only: the user's message kept twice.
    const twiceInput = aiSdkLoop({ glue: ({ kept, input, result }) => (result ? { history: [...input, ...input, ...result.response.messages] } : kept) });
    const text = await runFile('bundled/outcomes/failed-turn-between-replies.yaml', twiceInput);
    expect(text.violations.get('invariant-09-inbox-delivered-once')).toMatch(/request 2 carries the message "Where is ORD-1001\?" 2 times; it was sent once/);
    // With a tool call: the response kept twice sends call and result twice, which a provider refuses.
    const twiceResponse = aiSdkLoop({
      glue: ({ kept, input, result }) => (result ? { history: [...input, ...result.response.messages, ...result.response.messages] } : kept),
    });
    const calls = await runFile('bundled/refunds/full-resolution.yaml', twiceResponse);
    expect([...calls.violations.values()].join('\n')).toMatch(/is used again \(a provider refuses a request that repeats a call id\)|carries the message/);
  });

  it('runs the tools of the last allowed step (invariant 11), and the success-only glue keeps the failed turn (invariant 5)', async () => {
    const { run, violations } = await runFile('bundled/loop/max-steps-before-tools.yaml', aiSdkLoop());
    expect(outcomeLabel(run.reports[0]!.outcome)).toBe('failed{max_steps}');
    expect(violations.get('invariant-11-budgets-before-work')).toMatch(/issue_refund .* ran in the last step/);
    expect(violations.get('invariant-05-failed-turns-add-nothing')).toMatch(/ended failed\{max_steps\}/);
  });

  it('the per-step glue keeps the cancelled turn’s question and refund, so the next turn is told (invariants 9, 14 hold)', async () => {
    const onSuccess = await runFile('bundled/cancel/cancel-while-model-reads-refund.yaml', aiSdkLoop());
    expect(onSuccess.violations.get('invariant-14-side-effects-told')).toMatch(/ran in turn 0, which ended cancelled\{user\}/);
    const perStep = await runFile('bundled/cancel/cancel-while-model-reads-refund.yaml', aiSdkLoop({ glue: 'per-step' }));
    expect(perStep.violations.has('invariant-14-side-effects-told')).toBe(false);
    expect(perStep.violations.has('invariant-09-inbox-delivered-once')).toBe(false);
  });

  it('asks again after max_tokens cuts a call, over the wire through @ai-sdk/anthropic', async () => {
    const { run } = await runFile('peers/anthropic-max-tokens-cuts-tool-call.yaml', aiSdkLoop());
    expect(run.wire).toBe(true);
    expect(run.wireRequests).toBe(4);
    expect(run.executions.get('issue_refund') ?? 0).toBe(0);
  });

  it('sends the "\\n\\n" Claude writes before a call back over the wire, which Anthropic refuses (400), failing the turn (finding F9)', async () => {
    const { run } = await runFile('peers/anthropic-blank-text-before-a-call.yaml', aiSdkLoop());
    expect(run.wire).toBe(true);
    expect(run.reports.map((r) => outcomeLabel(r.outcome))).toEqual(['failed{invalid_request}', 'replied']);
    expect(run.executions.get('lookup_order')).toBe(1);
  });
});
