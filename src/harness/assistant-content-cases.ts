/**
 * Ordering an assistant message's blocks as a case of `loopgate run`:
 * `contract:assistant-content/<id>`.
 *
 * `normalizeAssistantContent` is public (the package's index exports it), and it
 * is how the projection turns the content a model wrote into the message every
 * later request sends: text first, then the calls in their order, blank text
 * dropped. A model may write text after its calls (Anthropic streams content
 * blocks in the order it wrote them); left there, the request breaks invariant 6
 * (no text after a tool call) and the loop refuses to send it. The scripted
 * provider writes text only before the calls, so no scenario hands the
 * projection such a message: this case asks the export.
 */
import { AgentLoop, checkToolPairing, EventLog, loopDeps, normalizeAssistantContent, type AssistantBlock, type ModelClient } from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { checksCase, type Case } from './cases.ts';
import { VirtualClock } from './virtual-clock.ts';

const call = (id: string): AssistantBlock => ({ type: 'tool_call', id, name: 'lookup_order', args: { order_id: 'ORD-1001' } });
const text = (t: string): AssistantBlock => ({ type: 'text', text: t });
const line = (blocks: readonly AssistantBlock[]): string =>
  blocks.map((b) => (b.type === 'text' ? `text ${JSON.stringify(b.text)}` : `call ${b.id}`)).join(', ');

function ordered(): CheckResult[] {
  const rows: [string, AssistantBlock[], AssistantBlock[]][] = [
    ['text after a call', [call('a'), text('Checking it now.')], [text('Checking it now.'), call('a')]],
    [
      'text around two calls',
      [text('Let me look.'), call('a'), call('b'), text('One moment.')],
      [text('Let me look.'), text('One moment.'), call('a'), call('b')],
    ],
    ['text before a call, as given', [text('Let me look.'), call('a')], [text('Let me look.'), call('a')]],
    ['blank text before a call dropped', [text('\n\n'), call('a')], [call('a')]],
    ['calls only', [call('a'), call('b')], [call('a'), call('b')]],
    ['text only', [text('It has shipped.'), text(' Anything else?')], [text('It has shipped.'), text(' Anything else?')]],
  ];
  const checks: CheckResult[] = [];
  for (const [name, given, expected] of rows) {
    const actual = normalizeAssistantContent(Object.freeze(given.map((b) => Object.freeze(b))));
    const passed = line(actual) === line(expected);
    checks.push({
      name,
      passed,
      message: passed ? line(expected) : `expected [${line(expected)}], got [${line(actual)}]`,
      expected: line(expected),
      actual: line(actual),
    });
    // What the projection sends next: the message, then its results in call order.
    const ids = expected.flatMap((b) => (b.type === 'tool_call' ? [b.id] : []));
    const violation = checkToolPairing([
      { role: 'assistant', content: actual },
      ...(ids.length > 0
        ? [{ role: 'user' as const, content: ids.map((id) => ({ type: 'tool_result' as const, callId: id, status: 'ok' as const, content: '{}' })) }]
        : []),
    ]);
    checks.push({
      name: `${name}: sendable (invariant 6)`,
      passed: violation === undefined,
      message: violation === undefined ? 'no pairing violation' : `message ${violation.messageIndex}: ${violation.problem}`,
    });
  }
  return checks;
}

/** The other side: messages the check must refuse, with the message and the problem a developer reads. */
function refused(): CheckResult[] {
  const result = (id: string) => ({ type: 'tool_result' as const, callId: id, status: 'ok' as const, content: '{}' });
  const rows: [string, Parameters<typeof checkToolPairing>[0], string][] = [
    [
      'text left after a call (not normalized)',
      [
        { role: 'assistant', content: [call('a'), text('Checking it now.')] },
        { role: 'user', content: [result('a')] },
      ],
      'message 0: text after a tool call in the same assistant message',
    ],
    [
      'calls of the last message with no result',
      [
        { role: 'user', content: [{ type: 'text', text: 'Where is ORD-1001?' }] },
        { role: 'assistant', content: [call('a'), call('b')] },
      ],
      'message 1: tool calls a, b have no result',
    ],
    [
      // The problem lists the results as they came: a developer compares the two lists.
      'results out of call order',
      [
        { role: 'assistant', content: [call('a'), call('b')] },
        { role: 'user', content: [result('b'), result('a')] },
      ],
      'message 1: tool results [b, a] do not match the calls [a, b] in order',
    ],
  ];
  return rows.map(([name, messages, expected]) => {
    const violation = checkToolPairing(messages);
    const actual = violation === undefined ? 'no violation' : `message ${violation.messageIndex}: ${violation.problem}`;
    return { name, passed: actual === expected, message: actual, expected, actual };
  });
}

/**
 * A team's client whose reply leaves `text` empty and puts the answer only in its content blocks (it builds the blocks
 * and fills `text` from a field the provider left out): the turn replies and the message keeps the content, not
 * failed{empty_reply}. A reply is empty only when its text and every text block are blank (mutation seed 37,
 * runner.ts: a check that read `text` alone passed every case).
 */
async function replyWithItsTextOnlyInTheContent(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const model: ModelClient = {
    name: 'text-in-blocks',
    call: async () => ({ type: 'reply', text: '', content: [text('ORD-1001 has shipped.')], usage: { inputTokens: 12, outputTokens: 6 } }),
  };
  const log = new EventLog(clock);
  const loop = new AgentLoop(loopDeps({ log, model, agent: {}, clock }));
  loop.send('Where is ORD-1001?', { id: 'ask' });
  const [result] = await clock.run(loop.drain());
  const outcome = JSON.stringify(result?.outcome ?? 'no outcome');
  const stored = JSON.stringify(log.events.filter((e) => e.type === 'assistant.message').map((e) => (e.payload as { content: unknown }).content));
  const want = JSON.stringify([[text('ORD-1001 has shipped.')]]);
  return [
    { name: 'the turn replies', passed: outcome === '{"kind":"replied"}', message: outcome, expected: '{"kind":"replied"}', actual: outcome },
    { name: 'the assistant message keeps the text block', passed: stored === want, message: stored, expected: want, actual: stored },
  ];
}

/**
 * A team's client that answers `reply` (the turn is over) with no text and a call block in its content, blank text
 * beside it: nothing in it is an answer the user can read, and a reply's call is never run. The turn fails
 * failed{empty_reply} once, the call stored nowhere; a call block is not read as text (mutation seed 50, runner.ts:
 * a check that read every block's text threw on the call block, and the turn failed{internal}).
 */
async function replyWithOnlyACallBlockIsEmpty(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const model: ModelClient = {
    name: 'call-in-a-reply',
    call: async () => ({ type: 'reply', text: '', content: [text(' '), call('call_1')], usage: { inputTokens: 12, outputTokens: 6 } }),
  };
  const log = new EventLog(clock);
  const loop = new AgentLoop(loopDeps({ log, model, agent: {}, clock }));
  loop.send('Where is ORD-1001?', { id: 'ask' });
  let outcome: string;
  try {
    const results = await clock.run(loop.drain());
    outcome = results.map((r) => JSON.stringify(r.outcome)).join(', ') || 'no outcome';
  } catch (error) {
    outcome = `threw: ${(error as Error).message}`;
  }
  const want = JSON.stringify({ kind: 'failed', reason: 'empty_reply', detail: 'the model ended its turn with no text' });
  const closes = log.events.filter((e) => e.type === 'turn.closed').map((e) => JSON.stringify((e.payload as { outcome: unknown }).outcome));
  const stored = log.events.filter((e) => e.type === 'assistant.message' || e.type === 'tool.started').length;
  return [
    { name: 'the turn fails empty_reply', passed: outcome === want, message: outcome, expected: want, actual: outcome },
    {
      name: 'the log closes the turn once, so',
      passed: closes.join(', ') === want,
      message: closes.join(', ') || 'not closed',
      expected: want,
      actual: closes.join(', '),
    },
    { name: 'no assistant message or call start stored', passed: stored === 0, message: `${stored} stored`, expected: '0 stored', actual: `${stored} stored` },
  ];
}

export function assistantContentCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:assistant-content/text-first-then-calls-in-order',
        title: 'assistant content: text a model wrote after its calls is moved before them, calls kept in order, blank text dropped',
        file: 'src/harness/assistant-content-cases.ts',
      },
      ordered,
    ),
    checksCase(
      {
        id: 'contract:assistant-content/unpaired-messages-refused',
        title:
          'assistant content: checkToolPairing refuses text after a call, calls left without results and results out of order, naming the message and each id',
        file: 'src/harness/assistant-content-cases.ts',
      },
      refused,
    ),
    checksCase(
      {
        id: 'contract:assistant-content/reply-with-its-text-only-in-the-content',
        title: "assistant content: a client's reply with empty text and the answer in its text blocks replies, the blocks kept, not failed{empty_reply}",
        file: 'src/harness/assistant-content-cases.ts',
      },
      replyWithItsTextOnlyInTheContent,
    ),
    checksCase(
      {
        id: 'contract:assistant-content/reply-with-only-a-call-block-is-empty',
        title:
          "assistant content: a client's reply with no text and only a call block (blank text beside it) fails empty_reply once, nothing stored, the call not run",
        file: 'src/harness/assistant-content-cases.ts',
      },
      replyWithOnlyACallBlockIsEmpty,
    ),
  ];
}
