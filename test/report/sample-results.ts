/**
 * Realistic run results for the reporter tests: the three main kinds, every
 * status, timelines with tool calls, an injected fault and a retry, and strings
 * that try to break out of every output format.
 */
import { RESULTS_SCHEMA, summarize, type CaseResult, type RunResults, type StepRequest, type TimelineEntry } from '../../src/report/results.ts';

/** A hostile string: markup, a script end tag, quotes, a pipe, backticks and control characters. */
export const HOSTILE = 'order <b>#42</b> said "</script><script>alert(1)</script>" | `rm -rf` & \u0007bell\u001b[31m';

const refundTimeline: TimelineEntry[] = [
  { at: 0, kind: 'inbox', label: 'follow-up received', detail: 'Please refund order 1042, it arrived broken.' },
  { at: 0, kind: 'turn', turn: 1, label: 'turn 1 opened' },
  { at: 0, kind: 'step', turn: 1, step: 1, label: 'step 1' },
  { at: 0, kind: 'model_call', turn: 1, step: 1, label: 'model call #1', durationMs: 120, status: 'ok' },
  { at: 120, kind: 'model_result', turn: 1, step: 1, label: 'tool_use: lookup_order', data: { usage: { inputTokens: 812, outputTokens: 41 } } },
  { at: 120, kind: 'tool_call', turn: 1, step: 1, label: 'lookup_order', data: { arguments: { orderId: '1042' } }, durationMs: 35, status: 'ok' },
  { at: 155, kind: 'tool_result', turn: 1, step: 1, label: 'lookup_order → ok', data: { result: { orderId: '1042', total: 59.9, status: 'delivered' } } },
  { at: 155, kind: 'step', turn: 1, step: 2, label: 'step 2' },
  { at: 155, kind: 'model_call', turn: 1, step: 2, label: 'model call #2', durationMs: 90, status: 'ok' },
  { at: 245, kind: 'model_result', turn: 1, step: 2, label: 'tool_use: issue_refund' },
  { at: 245, kind: 'policy', turn: 1, step: 2, label: 'issue_refund: ask → approved', detail: 'approver: support-lead' },
  {
    at: 245,
    kind: 'tool_call',
    turn: 1,
    step: 2,
    label: 'issue_refund (STATEFUL)',
    data: { arguments: { orderId: '1042', amount: 59.9 } },
    durationMs: 400,
    status: 'ok',
  },
  { at: 645, kind: 'tool_result', turn: 1, step: 2, label: 'issue_refund → ok', data: { result: { refundId: 'rf_77' } } },
  { at: 645, kind: 'step', turn: 1, step: 3, label: 'step 3' },
  { at: 645, kind: 'model_call', turn: 1, step: 3, label: 'model call #3', durationMs: 80, status: 'ok' },
  { at: 725, kind: 'model_result', turn: 1, step: 3, label: 'reply', detail: 'Your refund rf_77 is on its way.' },
  { at: 725, kind: 'outcome', turn: 1, label: 'replied', status: 'ok' },
];

const failedTimeline: TimelineEntry[] = [
  { at: 0, kind: 'inbox', label: 'follow-up received', detail: HOSTILE },
  { at: 0, kind: 'turn', turn: 1, label: 'turn 1 opened' },
  { at: 0, kind: 'step', turn: 1, step: 1, label: 'step 1' },
  {
    at: 0,
    kind: 'fault',
    turn: 1,
    step: 1,
    label: 'fault injected: rate_limited',
    detail: 'retry-after: 2 s',
    data: { fault: 'rate_limited', retryAfterMs: 2000 },
  },
  { at: 0, kind: 'model_call', turn: 1, step: 1, label: 'model call #1', durationMs: 15, status: 'error', detail: 'transport_error{rate_limited}', request: 0 },
  { at: 15, kind: 'retry', turn: 1, step: 1, label: 'retry 1 after 2 s (retry-after honoured)', durationMs: 2000 },
  { at: 2015, kind: 'model_call', turn: 1, step: 1, label: 'model call #2', durationMs: 110, status: 'ok', request: 1 },
  { at: 2125, kind: 'model_result', turn: 1, step: 1, label: 'tool_use: issue_refund' },
  {
    at: 2125,
    kind: 'tool_call',
    turn: 1,
    step: 1,
    label: 'issue_refund (STATEFUL)',
    data: { arguments: { orderId: '1042', amount: 59.9, note: HOSTILE } },
    durationMs: 5000,
    status: 'unknown',
    detail: 'timed out after 5 s',
  },
  {
    at: 7125,
    kind: 'tool_result',
    turn: 1,
    step: 1,
    label: 'issue_refund → unknown',
    data: { result: { state: 'unknown', reason: 'timeout' } },
    status: 'unknown',
  },
  { at: 7125, kind: 'step', turn: 1, step: 2, label: 'step 2' },
  { at: 7125, kind: 'model_call', turn: 1, step: 2, label: 'model call #3', durationMs: 95, status: 'ok', request: 2 },
  { at: 7220, kind: 'model_result', turn: 1, step: 2, label: 'tool_use: issue_refund' },
  { at: 7220, kind: 'outcome', turn: 1, label: 'failed{max_steps}', status: 'error', detail: 'step limit 2 reached before tools ran' },
];

const FIRST_REQUEST = [
  'model: claude-sonnet-4-6 · max tokens 1024',
  'system: You are the after-sales support agent of a small online shop.',
  'tools: lookup_order, issue_refund',
  `user: Please refund order 1042, it arrived broken. ${HOSTILE}`,
];

/** What the model saw at each of the failed case's three requests (step 1 twice: a rate-limit retry). */
export const FAILED_REQUESTS: StepRequest[] = [
  { turn: 1, step: 1, attempt: 1, seq: 5, lines: FIRST_REQUEST },
  { turn: 1, step: 1, attempt: 2, seq: 8, lines: FIRST_REQUEST },
  {
    turn: 1,
    step: 2,
    attempt: 1,
    seq: 14,
    lines: [
      ...FIRST_REQUEST,
      'assistant: call issue_refund#rf1 {"orderId":"1042","amount":59.9}',
      'user: result#rf1 unknown: {"failed_tool":"issue_refund","error_code":"TIMEOUT","error_message":"issue_refund timed out after 5000 ms; it may have run"}',
    ],
  },
];

export function sampleCases(): CaseResult[] {
  return [
    {
      id: 'table:tool_use@MODEL_CALL',
      kind: 'table',
      title: 'tool_use while waiting for the model → TOOLS',
      file: 'state-tables/loop.yaml',
      status: 'passed',
      outcome: 'replied',
      durationMs: 3.4,
      virtualMs: 150,
      checks: [
        { name: 'outcome', passed: true, message: 'replied' },
        { name: 'history', passed: true, message: '4 messages as expected' },
        { name: 'trace', passed: true, message: 'turn > model_call, tool_execution' },
      ],
      metrics: { turns: 1, steps: 2, toolCalls: 1, inputTokens: 600, outputTokens: 60, modelRequests: 2 },
    },
    {
      id: 'table:cancel@TOOL_RUNNING',
      kind: 'table',
      title: 'user cancel while a tool runs → cancelled{user}, tool result recorded',
      file: 'state-tables/loop.yaml',
      status: 'failed',
      outcome: 'cancelled{user}',
      durationMs: 5.1,
      virtualMs: 300,
      failure: 'invariant 6: tool pairing: tool call call_1 has no result in the next request',
      checks: [
        { name: 'outcome', passed: true, message: 'cancelled{user}' },
        { name: 'history', passed: false, message: 'tool call call_1 has no result', expected: [{ role: 'user', toolResults: ['call_1'] }], actual: [] },
        {
          name: 'invariant 6: tool pairing',
          passed: false,
          message: 'tool call call_1 has no result in the next request',
          expected: 'one result for call_1',
          actual: 'none',
        },
      ],
      metrics: { turns: 1, steps: 1, toolCalls: 1, inputTokens: 300, outputTokens: 20, modelRequests: 1 },
      timeline: [
        { at: 0, kind: 'turn', turn: 1, label: 'turn 1 opened' },
        { at: 0, kind: 'tool_call', turn: 1, step: 1, label: 'lookup_order', durationMs: 300, status: 'cancelled', data: { arguments: { orderId: '7' } } },
        { at: 100, kind: 'cancel', turn: 1, label: 'cancel by user' },
        { at: 300, kind: 'outcome', turn: 1, label: 'cancelled{user}', status: 'cancelled' },
      ],
    },
    {
      id: 'contract:anthropic/reply',
      kind: 'contract',
      title: 'a plain reply ends with exactly one reply result',
      status: 'passed',
      outcome: 'reply',
      durationMs: 12.7,
      checks: [{ name: 'result', passed: true, message: 'one reply result, usage reported' }],
    },
    {
      id: 'contract:openai-chat/rate-limited',
      kind: 'contract',
      title: '429 with retry-after becomes transport_error{rate_limited}',
      status: 'passed',
      outcome: 'transport_error{rate_limited}',
      durationMs: 8.2,
      checks: [{ name: 'result', passed: true, message: 'retryAfter 2000 ms' }],
    },
    {
      id: 'scenario:live/refund-approval',
      kind: 'scenario',
      title: 'live: refund with approval against a real model',
      file: 'scenarios/live/refund-approval.yaml',
      status: 'skipped',
      durationMs: 0,
      skipReason: 'live scenario: ANTHROPIC_API_KEY is not set',
      checks: [],
      tags: ['live'],
    },
    {
      id: 'scenario:refunds/approval-granted',
      kind: 'scenario',
      title: 'refund needs approval; approver says yes; refund issued once',
      file: 'scenarios/refunds/approval-granted.yaml',
      status: 'passed',
      outcome: 'replied',
      durationMs: 21.5,
      virtualMs: 725,
      checks: [
        { name: 'outcome', passed: true, message: 'replied' },
        { name: 'history', passed: true, message: '6 messages' },
        { name: 'tool-calls', passed: true, message: 'lookup_order, issue_refund' },
        { name: 'trace', passed: true, message: 'spans closed, parents linked' },
      ],
      metrics: { turns: 1, steps: 3, toolCalls: 2, inputTokens: 2500, outputTokens: 180, modelRequests: 3 },
      timeline: refundTimeline,
      tags: ['refunds', 'approval'],
    },
    {
      id: 'scenario:refunds/rate-limited-then-timeout',
      kind: 'scenario',
      title: `rate limited, then the refund times out (${HOSTILE})`,
      file: 'scenarios/refunds/rate-limited-then-timeout.yaml',
      status: 'failed',
      outcome: 'failed{max_steps}',
      durationMs: 33.9,
      virtualMs: 7220,
      failure: `outcome: expected replied, got failed{max_steps} — ${HOSTILE}`,
      checks: [
        { name: 'outcome', passed: false, message: `expected replied, got failed{max_steps} — ${HOSTILE}`, expected: 'replied', actual: 'failed{max_steps}' },
        { name: 'history', passed: true, message: 'failed turn added nothing to the projection' },
        {
          name: 'tool-calls',
          passed: false,
          message: `issue_refund called with an unexpected note: ${HOSTILE}`,
          expected: [{ name: 'issue_refund', arguments: { orderId: '1042', amount: 59.9 } }],
          actual: [{ name: 'issue_refund', arguments: { orderId: '1042', amount: 59.9, note: HOSTILE } }],
        },
        { name: 'trace', passed: true, message: 'no undetermined spans' },
      ],
      metrics: { turns: 1, steps: 2, toolCalls: 1, inputTokens: 2100, outputTokens: 150, modelRequests: 3 },
      requests: FAILED_REQUESTS,
      timeline: failedTimeline,
      tags: ['refunds', 'faults'],
    },
    {
      id: 'fuzz:seed-42/run-17',
      kind: 'fuzz',
      title: 'random inbox and faults, 25 turns',
      status: 'passed',
      outcome: 'replied',
      durationMs: 48,
      virtualMs: 91_000,
      checks: [{ name: 'invariants 1–13', passed: true, message: 'all held over 25 turns' }],
      metrics: { turns: 25, steps: 61, toolCalls: 40, inputTokens: 50_000, outputTokens: 4000, modelRequests: 70 },
    },
  ];
}

export function sampleResults(cases: readonly CaseResult[] = sampleCases()): RunResults {
  return {
    schema: RESULTS_SCHEMA,
    tool: { name: 'loopgate', version: '0.1.0' },
    startedAt: '2025-06-01T10:00:00.000Z',
    finishedAt: '2025-06-01T10:00:02.500Z',
    durationMs: 2500,
    seed: 42,
    summary: summarize(cases),
    cases,
  };
}

/** The sample results with one case whose second turn made a call of 2^53 − 1 tokens or more: its cost is unknown. */
export function withUncountedCost(): RunResults {
  const cases = sampleCases().map((c) =>
    c.id === 'scenario:refunds/approval-granted' && c.metrics
      ? {
          ...c,
          metrics: {
            ...c.metrics,
            cost: {
              currency: 'USD',
              amount: 0.0042,
              unpricedCalls: 0,
              uncountedCalls: 1,
              turns: [
                { turn: 0, amount: 0.0042, unpricedCalls: 0 },
                { turn: 1, amount: 0, unpricedCalls: 0, uncountedCalls: 1 },
              ],
            },
          },
        }
      : c,
  );
  return sampleResults(cases);
}
