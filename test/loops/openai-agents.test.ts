/** The OpenAI Agents adapter against the real `@openai/agents` 0.20 runner: the findings the report publishes, and what holds. */
import { outcomeLabel } from '../../src/kernel/index.ts';
import { describe, expect, it } from 'vitest';
import { openAiAgentsLoop } from '../../src/loops/openai-agents/adapter.ts';
import { runFile } from './peer-run.ts';

describe('the OpenAI Agents run loop behind the port', () => {
  it('replies through real tools, persisted in its own Session, and ends the trace of a run that resolves', async () => {
    const { run, violations } = await runFile('bundled/refunds/order-status-lookup.yaml', openAiAgentsLoop());
    expect(run.reports.map((r) => outcomeLabel(r.outcome))).toEqual(['replied']);
    expect(run.histories.at(-1)!.some((m) => m.content.some((b) => b.type === 'tool_result'))).toBe(true);
    expect(run.traces[0]!.violations).toEqual([]);
    expect([...violations]).toEqual([]);
  });

  it('never ends the trace of a run that throws (invariant 8)', async () => {
    const { run, violations } = await runFile('bundled/outcomes/refusal-adds-nothing.yaml', openAiAgentsLoop());
    expect(outcomeLabel(run.reports[0]!.outcome)).toBe('failed{refusal}');
    expect(violations.get('invariant-08-no-open-spans')).toBe('the peer never ended the trace of turn 0');
  });

  it('loses the question and the refund from its Session when the abort lands in a model call (invariants 9, 14)', async () => {
    const { violations } = await runFile('bundled/cancel/cancel-while-model-reads-refund.yaml', openAiAgentsLoop());
    expect(violations.get('invariant-09-inbox-delivered-once')).toMatch(/its message "Please refund ORD-1001, it arrived broken." is lost/);
    expect(violations.get('invariant-14-side-effects-told')).toMatch(/issue_refund \(call refund\) ran in turn 0/);
  });

  it('a Session write that fails rejects the run: failed{persistence}, nothing swallowed', async () => {
    const { run } = await runFile('bundled/refunds/order-status-lookup.yaml', openAiAgentsLoop(), (s) => ({ ...s, store: { failAppends: [1] } }));
    expect(run.reports.map((r) => outcomeLabel(r.outcome))).toEqual(['failed{persistence}']);
    expect(run.reports[0]!.ending).toMatchObject({ kind: 'threw', errorClass: 'SessionWriteFault' });
  });

  it('over the wire, its OpenAI models get what they ask for — a JSON body for a request that does not stream — and the turn replies', async () => {
    // The runner's run() asks without streaming (getResponse); a stream sent back is no answer a real server gives.
    for (const file of ['bundled/wire/openai-responses-odd-and-deep-arguments.yaml', 'bundled/wire/openai-chat-interleaved-parallel-calls.yaml']) {
      const { run, violations } = await runFile(file, openAiAgentsLoop());
      expect(
        run.reports.map((r) => outcomeLabel(r.outcome)),
        file,
      ).toEqual(['replied']);
      expect([...violations], file).toEqual([]);
    }
  });

  it('reads each run of a call id as that run ended: the model used c1 again, the first run threw, the second went well', async () => {
    // Outside probe 28, F2: how a call ended was remembered by id alone, so the second result read failed too.
    const { run } = await runFile('bundled/safety/call-id-used-again-after-a-failed-run.yaml', openAiAgentsLoop());
    const results = run.histories.at(-1)!.flatMap((m) => m.content.flatMap((b) => (b.type === 'tool_result' ? [`${b.callId} ${b.status}`] : [])));
    expect(results).toEqual(['c1 failed', 'c1 ok']);
  });

  it('cuts a hung tool at its declared timeoutMs, in virtual time', async () => {
    const { run } = await runFile('bundled/cancel/hanging-tool-cut-loose-on-cancel.yaml', openAiAgentsLoop());
    expect(run.unsettled).toBeUndefined();
    expect(run.virtualMs).toBe(10_000);
  });
});
