/**
 * A scenario's expectations, each checked and reported on its own: the outcome,
 * the persisted history, the trace's shape, and what the tools did.
 */
import { outcomeLabel, project, type LogEvent } from '../../kernel/index.ts';
import type { CheckResult } from '../../report/results.ts';
import { renderMessages, spanShape } from '../render.ts';
import type { Expectation } from '../scenario/schema.ts';
import type { ScenarioRun } from '../second-host.ts';
import { equalCheck, matchLines } from './lines.ts';

const events = <T extends LogEvent['type']>(run: ScenarioRun, type: T) =>
  run.log.events.filter((e): e is Extract<LogEvent, { type: T }> => e.type === type && !e.opaque);

export function checkExpectations(run: ScenarioRun, expect: Expectation): CheckResult[] {
  const out: CheckResult[] = [];
  const outcomes = run.results.map((r) => outcomeLabel(r.outcome));
  const last = run.results[run.results.length - 1];

  if (expect.outcome !== undefined) out.push(equalCheck('outcome', expect.outcome, outcomes[outcomes.length - 1] ?? '(no turn ran)'));
  if (expect.outcomes !== undefined) out.push(equalCheck('outcomes', expect.outcomes, outcomes));
  if (expect.reply !== undefined) {
    const text = last?.reply ?? '(no reply)';
    if (typeof expect.reply === 'string') out.push(equalCheck('reply', expect.reply, text));
    else
      out.push(
        text.includes(expect.reply.contains)
          ? { name: 'reply', passed: true, message: `contains ${JSON.stringify(expect.reply.contains)}` }
          : {
              name: 'reply',
              passed: false,
              message: `the reply does not contain ${JSON.stringify(expect.reply.contains)}`,
              expected: expect.reply.contains,
              actual: text,
            },
      );
  }
  if (expect.history) out.push(...matchLines('history', renderMessages(project(run.log.events)), expect.history));
  if (expect.lastRequest) {
    const request = run.requests[run.requests.length - 1];
    out.push(...matchLines('last request', request ? renderMessages(request.messages) : [], expect.lastRequest));
  }
  if (expect.toolCalls) {
    const started = events(run, 'tool.started')
      .filter((e) => e.payload.attempt === 1)
      .map((e) => e.payload.name);
    out.push(equalCheck('tool calls', expect.toolCalls, started));
  }
  if (expect.executions) {
    for (const [tool, count] of Object.entries(expect.executions))
      out.push(equalCheck('executions', count, run.executions.get(tool) ?? 0, `${tool} ran ${count} time(s)`));
  }
  if (expect.toolResults) {
    const actual = events(run, 'tool.result').map((e) => ({
      call: e.payload.callId,
      tool: e.payload.name,
      status: e.payload.status,
      code: e.payload.error?.error_code,
    }));
    const trimmed = actual.map((a, i) => {
      const want = expect.toolResults![i];
      return {
        ...(want?.call !== undefined ? { call: a.call } : {}),
        ...(want?.tool !== undefined ? { tool: a.tool } : {}),
        status: a.status,
        ...(want?.code !== undefined ? { code: a.code } : {}),
      };
    });
    out.push(equalCheck('tool results', expect.toolResults, trimmed));
  }
  if (expect.policy) {
    const actual = events(run, 'policy.decision').map((e, i) => ({
      tool: e.payload.tool,
      decision: e.payload.decision,
      ...(expect.policy![i]?.by !== undefined ? { by: e.payload.by } : {}),
    }));
    out.push(equalCheck('policy', expect.policy, actual));
  }
  if (expect.trace) {
    const trace = run.traces[run.traces.length - 1];
    out.push(...matchLines('trace', trace ? spanShape(trace) : [], expect.trace));
  }
  if (expect.requests !== undefined) out.push(equalCheck('requests', expect.requests, run.requests.length, `${run.requests.length} model requests`));
  if (expect.models !== undefined) {
    // The client from the log, the model from what was actually sent.
    const sent = events(run, 'model.request').map((e, i) => `${e.payload.client}: ${run.requests[i]?.model ?? '(not sent)'}`);
    out.push(equalCheck('models', expect.models, sent));
  }
  if (expect.usage) {
    const steps = run.results.reduce((n, r) => n + r.steps, 0);
    const input = run.results.reduce((n, r) => n + r.usage.inputTokens, 0);
    const output = run.results.reduce((n, r) => n + r.usage.outputTokens, 0);
    const calls = run.results.reduce((n, r) => n + r.toolCalls, 0);
    const bound = (name: string, max: number | undefined, actual: number) => {
      if (max === undefined) return;
      out.push(
        actual <= max
          ? { name: 'usage', passed: true, message: `${name} ${actual} ≤ ${max}` }
          : { name: 'usage', passed: false, message: `${name} ${actual} exceeds ${max}`, expected: `≤ ${max}`, actual },
      );
    };
    bound('steps', expect.usage.maxSteps, steps);
    bound('input tokens', expect.usage.maxInputTokens, input);
    bound('output tokens', expect.usage.maxOutputTokens, output);
    bound('tool calls', expect.usage.maxToolCalls, calls);
  }
  if (expect.inbox) {
    if (expect.inbox.pending !== undefined)
      out.push(equalCheck('inbox', expect.inbox.pending, run.log.positions.pending().length, `${expect.inbox.pending} pending`));
    if (expect.inbox.returned !== undefined) {
      const returned = events(run, 'inbox.returned').reduce((n, e) => n + e.payload.ids.length, 0);
      out.push(equalCheck('inbox', expect.inbox.returned, returned, `${returned} returned to the inbox`));
    }
  }
  if (expect.clock !== undefined) out.push(equalCheck('clock', expect.clock, run.virtualMs, `virtual time ${run.virtualMs} ms`));
  if (expect.events) {
    for (const [type, count] of Object.entries(expect.events)) {
      out.push(equalCheck('events', count, run.log.events.filter((e) => e.type === type).length, `${count} ${type}`));
    }
  }
  return out;
}
