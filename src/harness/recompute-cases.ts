/**
 * Rebuilding a request from the log as a case of `loopgate run`:
 * `contract:recompute/<id>`.
 *
 * `recomputeRequest` (exported; `loopgate replay --at` and invariant 1 use it)
 * reads a log it did not write: one from another version, a store edited by
 * hand, a team's own store. A seq that is not a request, or a request whose
 * `tools` seq does not hold a `tools.declared` event, must be refused with a
 * RecomputeError that says which seq and what it is — not answered with a
 * request whose tools are whatever that other event holds, and not with an
 * empty message. Every log the scenarios write is well formed, so no scenario
 * can reach these refusals: these cases hand the function such a log. And a
 * log another version of the agent wrote, reopened with its tools changed,
 * records the new tools before its next request.
 */
import { reply } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { z } from 'zod';
import { AgentLoop, defineTool, EventLog, loopDeps, recomputeRequest, RecomputeError, requestSeqs, type Agent, type AnyEvent } from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { checksCase, type Case } from './cases.ts';
import { VirtualClock } from './virtual-clock.ts';

const AT = 1_700_000_000_000;

/** A log whose request at seq 3 names `promptSeq` (1 unless told) for its prompt and `toolsSeq` for its tools. */
function logWithRequest(toolsSeq: number, promptSeq = 1): AnyEvent[] {
  const event = (seq: number, type: string, payload: Record<string, unknown>) => ({ seq, type, v: 1, at: AT, ignorable: false, payload });
  return [
    event(0, 'inbox.received', { id: 'm1', intent: 'follow_up', text: 'Book me a call.', source: 'user' }),
    event(1, 'prompt.assembled', { system: 'You book calls.' }),
    event(2, 'tools.declared', { tools: [{ name: 'book_call', description: 'Books a call.', inputSchema: { type: 'object' } }] }),
    event(3, 'model.request', { turn: 0, step: 1, attempt: 1, model: 'm', prompt: promptSeq, tools: toolsSeq, upTo: 0, maxTokens: 100 }),
  ] as unknown as AnyEvent[];
}

function refusal(events: readonly AnyEvent[], seq: number, expected: string): CheckResult[] {
  let error: unknown;
  let answer: unknown;
  try {
    answer = recomputeRequest(events, seq);
  } catch (e) {
    error = e;
  }
  const message = error instanceof Error ? error.message : String(error);
  return [
    {
      name: 'refused',
      passed: error instanceof RecomputeError,
      message: error === undefined ? `recomputed a request: ${JSON.stringify(answer)}` : `${error instanceof Error ? error.name : typeof error}: ${message}`,
    },
    {
      name: 'the refusal names the seq and what it holds',
      passed: message === expected,
      message: message === expected ? expected : `expected "${expected}", got "${message}"`,
      expected,
      actual: message,
    },
  ];
}

function check(name: string, expected: string, actual: string): CheckResult {
  return { name, passed: actual === expected, message: actual === expected ? actual : `expected ${expected}, got ${actual}`, expected, actual };
}

/** An agent with a lookup and a refund; the refund's description is the one thing two versions of it change. */
function agentWithRefund(refundDescription: string): Agent {
  return {
    system: 'You help with orders.',
    tools: [
      defineTool({
        name: 'lookup_order',
        description: 'Look an order up.',
        input: z.object({ order_id: z.string() }),
        sideEffect: 'NONE',
        run: () => ({ status: 'delivered' }),
      }),
      defineTool({
        name: 'refund',
        description: refundDescription,
        input: z.object({ order_id: z.string() }),
        sideEffect: 'STATEFUL',
        run: () => ({ refunded: true }),
      }),
    ],
  };
}

/**
 * A conversation reopened by a new version of the agent (a deploy, then a restart) whose refund is described anew and
 * whose lookup is not: the next request sends the new tools, so the log records them anew and recomputes them. The
 * loop compares the tools with the last ones recorded only when a new loop (or a new tool list) meets the log, and the
 * scenarios reopen a conversation with the same tools; a comparison that took one matching tool for the whole list
 * kept the old refund on record, so the request recomputed from the log was not the one sent (mutation seed 44,
 * request.ts: `every` → `some`).
 */
async function reopenedWithOneToolChangedRecordsTheNewTools(): Promise<CheckResult[]> {
  const { log, model, seqs } = await reopenedWithRefund('Refund a delivered order in full.');
  const describe = (tools: readonly { readonly name: string; readonly description: string }[] | undefined) =>
    (tools ?? []).map((t) => `${t.name}: ${t.description}`).join('; ');
  let recomputed: string;
  try {
    recomputed = describe(recomputeRequest(log.events, seqs[seqs.length - 1]!).tools);
  } catch (error) {
    recomputed = `threw: ${error instanceof Error ? error.message : String(error)}`;
  }
  return [
    check('requests, in the log', '2', String(seqs.length)),
    check('the tools the reopened loop sent', 'lookup_order: Look an order up.; refund: Refund a delivered order in full.', describe(model.requests[0]?.tools)),
    check('the tools recomputed from the log for that request', describe(model.requests[0]?.tools), recomputed),
    check('tools.declared events in the log', '2', String(log.events.filter((e) => e.type === 'tools.declared').length)),
  ];
}

/**
 * A conversation reopened by a new loop with the same tools (a restart, a host that built the loop anew): the tools
 * did not change, so the log keeps the one `tools.declared` it has and the reopened loop's request points at it
 * ("written only when they change"). A comparison that never found the tools the same recorded the whole list again at
 * every reopen (mutation seed 51, request.ts:64: `sameSpecs`' body → `{}`); no case counted them after a reopen.
 */
async function reopenedWithTheSameToolsRecordsThemOnce(): Promise<CheckResult[]> {
  const { log, seqs } = await reopenedWithRefund('Refund an order.');
  const declared = log.events.filter((e) => e.type === 'tools.declared').map((e) => e.seq);
  const pointed = seqs.map((seq) => String((log.at(seq)?.payload as { tools?: number } | undefined)?.tools)).join(', ');
  return [
    check('requests, in the log', '2', String(seqs.length)),
    check('tools.declared events in the log', '1', String(declared.length)),
    check('the tools seq each request points at', `${declared[0]}, ${declared[0]}`, pointed),
  ];
}

/**
 * A conversation whose first turn ran with the refund tool described "Refund an order.", reopened by a new loop whose
 * refund tool says `description`, and asked once more: its log, the second loop's model and the requests' seqs.
 */
async function reopenedWithRefund(description: string): Promise<{ log: EventLog; model: ScriptedModelClient; seqs: number[] }> {
  const clock = new VirtualClock();
  const log = new EventLog(clock);
  const first = new AgentLoop(
    loopDeps({ log, agent: agentWithRefund('Refund an order.'), clock, model: new ScriptedModelClient([reply('ORD-1001 was delivered.')], { clock }) }),
  );
  first.send('Where is ORD-1001?', { id: 'q1' });
  await clock.run(first.drain());
  const model = new ScriptedModelClient([reply('ORD-1002 was refunded.')], { clock });
  const second = new AgentLoop(loopDeps({ log, agent: agentWithRefund(description), clock, model }));
  second.send('Refund ORD-1002, please.', { id: 'q2' });
  await clock.run(second.drain());
  return { log, model, seqs: [...requestSeqs(log.events)] };
}

export function recomputeCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:recompute/seq-not-a-request-refused-naming-it',
        title: 'recompute: a seq that holds no model.request is refused, naming the seq and the event it holds',
        file: 'src/harness/recompute-cases.ts',
      },
      () => refusal(logWithRequest(2), 0, 'seq 0 is not a model.request event (it is inbox.received)'),
    ),
    checksCase(
      {
        id: 'contract:recompute/request-tools-seq-not-tools-refused',
        title: "recompute: a request whose tools seq holds no tools.declared event is refused, not given that event's data",
        file: 'src/harness/recompute-cases.ts',
      },
      () => refusal(logWithRequest(1), 3, 'request 3: seq 1 is not a tools.declared event'),
    ),
    // A prompt seq past the end of the log (a store that lost its tail, a log cut by hand): refused as the others.
    // Mutation seed 48: src/kernel/loop/request.ts:90:7 `promptEvent?.type` → `promptEvent.type` threw a TypeError
    // reading `type` of undefined instead; no case named a seq the log does not hold.
    checksCase(
      {
        id: 'contract:recompute/request-prompt-seq-past-the-log-refused',
        title: 'recompute: a request whose prompt seq is past the end of the log is refused naming it, not failed with a TypeError',
        file: 'src/harness/recompute-cases.ts',
      },
      () => refusal(logWithRequest(2, 9), 3, 'request 3: seq 9 is not a prompt.assembled event'),
    ),
    checksCase(
      {
        id: 'contract:recompute/reopened-with-one-tool-changed-records-the-new-tools',
        title: 'recompute: a conversation reopened with one of its tools described anew records the new tools, and recomputes the request sent',
        file: 'src/harness/recompute-cases.ts',
      },
      reopenedWithOneToolChangedRecordsTheNewTools,
    ),
    checksCase(
      {
        id: 'contract:recompute/reopened-with-the-same-tools-records-them-once',
        title: 'recompute: a conversation reopened by a new loop with the same tools records them once, and its request points at that record',
        file: 'src/harness/recompute-cases.ts',
      },
      reopenedWithTheSameToolsRecordsThemOnce,
    ),
  ];
}
