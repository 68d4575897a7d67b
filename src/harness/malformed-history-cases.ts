/**
 * The loop's last gate before a request leaves (invariant 6) as a case of
 * `loopgate run`: `contract:malformed-history/<id>`.
 *
 * Every request is checked for tool pairing before it is sent; a history that
 * breaks it ends the turn `failed{internal}`, naming the message and the
 * problem, instead of a request the provider rejects. The loop never writes
 * such a history, so no scenario reaches the gate. A stored log can hold one
 * all the same, and the log accepts it: a turn that closed `cancelled` (its
 * steps kept) whose call has no result — written by another writer, or a store
 * that lost the result's record. This case runs the next turn on such a log
 * (built through the log's one append entry point) and expects the refusal.
 */
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { reply } from '../../providers/fake/results.ts';
import { AgentLoop, EventLog, loopDeps } from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { checksCase, type Case } from './cases.ts';
import { VirtualClock } from './virtual-clock.ts';

async function orphanCallRefused(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const log = new EventLog(clock);
  log.append('inbox.received', { id: 'm0', intent: 'follow_up', text: 'Look up ORD-1001.', source: 'user' });
  log.append('turn.opened', { turn: 0, trigger: 'm0' });
  log.append('user.message', { turn: 0, id: 'm0', intent: 'follow_up', text: 'Look up ORD-1001.' });
  log.append('assistant.message', { turn: 0, step: 1, content: [{ type: 'tool_call', id: 'c1', name: 'lookup_order', args: { order_id: 'ORD-1001' } }] });
  log.append('turn.closed', {
    turn: 0,
    outcome: { kind: 'cancelled', by: 'user' },
    steps: 1,
    usage: { inputTokens: 0, outputTokens: 0 },
    toolCalls: 1,
  });
  const model = new ScriptedModelClient([reply('ORD-1001 has shipped.')], { clock });
  const loop = new AgentLoop(loopDeps({ log, model, agent: {}, clock }));
  loop.send('Any news?', { id: 'm1' });
  const [result] = await loop.drain();
  const expected = {
    kind: 'failed',
    reason: 'internal',
    detail: 'refusing to send a malformed history: message 2: tool results [] do not match the calls [c1] in order',
  };
  const actual = JSON.stringify(result?.outcome) ?? 'no outcome';
  return [
    {
      name: 'the turn ends failed{internal}, naming the message and the problem',
      passed: actual === JSON.stringify(expected),
      message: actual === JSON.stringify(expected) ? actual : `expected ${JSON.stringify(expected)}, got ${actual}`,
      expected: JSON.stringify(expected),
      actual,
    },
    {
      name: 'the request is never sent',
      passed: model.calls === 0,
      message: `the model was called ${model.calls} time(s)`,
    },
  ];
}

export function malformedHistoryCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:malformed-history/kept-call-without-result-refused-internal',
        title: 'malformed history: a stored cancelled turn whose call has no result makes the next turn fail internal, unsent, naming the problem',
        file: 'src/harness/malformed-history-cases.ts',
      },
      orphanCallRefused,
    ),
  ];
}
