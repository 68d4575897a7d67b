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
 * can reach these refusals: these cases hand the function such a log.
 */
import { recomputeRequest, RecomputeError, type AnyEvent } from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { checksCase, type Case } from './cases.ts';

const AT = 1_700_000_000_000;

/** A log whose request at seq 3 names seq 1 for its prompt and `toolsSeq` for its tools. */
function logWithRequest(toolsSeq: number): AnyEvent[] {
  const event = (seq: number, type: string, payload: Record<string, unknown>) => ({ seq, type, v: 1, at: AT, ignorable: false, payload });
  return [
    event(0, 'inbox.received', { id: 'm1', intent: 'follow_up', text: 'Book me a call.', source: 'user' }),
    event(1, 'prompt.assembled', { system: 'You book calls.' }),
    event(2, 'tools.declared', { tools: [{ name: 'book_call', description: 'Books a call.', inputSchema: { type: 'object' } }] }),
    event(3, 'model.request', { turn: 0, step: 1, attempt: 1, model: 'm', prompt: 1, tools: toolsSeq, upTo: 0, maxTokens: 100 }),
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
  ];
}
