/**
 * A tool's `renderForModel`, as a case of `loopgate run`: `contract:render/<id>`.
 *
 * A tool declaration may give `renderForModel(output)`: the text the model reads
 * for a call that returned, while the log keeps the structured output. A
 * rendering that throws, or that gives something other than text, must not turn
 * a call that ran (its side effects done) into a failure the model would retry:
 * the model reads the output as JSON, with a note saying why. The bundled agent
 * and the tools a scenario declares have no `renderForModel`, so no scenario
 * reaches it: this case runs the loop with three tools that have one — one that
 * renders, one whose rendering throws, one whose rendering gives a number — and
 * reads what the model's next request and the log hold for each call.
 */
import { z } from 'zod';
import { call, reply, toolUse } from '../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../providers/fake/scripted.ts';
import { AgentLoop, defineTool, EventLog, loopDeps, type Agent } from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { checksCase, type Case } from './cases.ts';
import { VirtualClock } from './virtual-clock.ts';

const ORDER = { order_id: 'ORD-7', status: 'shipped', total: 42, items: [{ sku: 'KET-1', qty: 1 }] };
const LABEL = { order_id: 'ORD-7', pages: 2 };
const STOCK = { sku: 'KET-1', count: 5 };

/** What the model should read for each call, and what the log should keep as its output. */
const EXPECTED: Record<string, { content: string; output: unknown }> = {
  status: { content: 'Order ORD-7 is shipped (total 42, 1 item).', output: ORDER },
  label: {
    content: `${JSON.stringify(LABEL)}\n\n[renderForModel failed (no template for labels); showing the output as JSON]`,
    output: LABEL,
  },
  stock: { content: `${JSON.stringify(STOCK)}\n\n[renderForModel returned number, not text; showing the output as JSON]`, output: STOCK },
};

async function renderedForTheModel(): Promise<CheckResult[]> {
  const clock = new VirtualClock();
  const input = z.object({ order_id: z.string() });
  const agent: Agent = {
    tools: [
      defineTool({
        name: 'order_status',
        description: 'The status of an order.',
        input,
        sideEffect: 'NONE',
        run: () => ORDER,
        renderForModel: (output) => {
          const o = output as typeof ORDER;
          return `Order ${o.order_id} is ${o.status} (total ${o.total}, ${o.items.length} item${o.items.length === 1 ? '' : 's'}).`;
        },
      }),
      defineTool({
        name: 'print_label',
        description: 'Print the shipping label of an order.',
        input,
        sideEffect: 'IDEMPOTENT',
        run: () => LABEL,
        renderForModel: () => {
          throw new Error('no template for labels');
        },
      }),
      defineTool({
        name: 'stock_count',
        description: 'How many of an item are in stock.',
        input: z.object({ sku: z.string() }),
        sideEffect: 'NONE',
        run: () => STOCK,
        // A team's renderer that hands back the count itself, not text.
        renderForModel: ((output: unknown) => (output as typeof STOCK).count) as unknown as (output: unknown) => string,
      }),
    ],
  };
  const model = new ScriptedModelClient(
    [
      toolUse([
        call('status', 'order_status', { order_id: 'ORD-7' }),
        call('label', 'print_label', { order_id: 'ORD-7' }),
        call('stock', 'stock_count', { sku: 'KET-1' }),
      ]),
      reply('Your kettle has shipped.'),
    ],
    { clock },
  );
  const log = new EventLog(clock);
  const loop = new AgentLoop(loopDeps({ log, model, agent }));
  loop.send('Where is my kettle?', { id: 'ask' });
  const [result] = await loop.drain();
  const kind = result?.outcome.kind;

  const read = new Map<string, string>();
  for (const message of model.requests[1]?.messages ?? [])
    if (typeof message.content !== 'string') for (const block of message.content) if (block.type === 'tool_result') read.set(block.callId, block.content);
  const logged = new Map<string, { status: string; content: string; output: unknown }>();
  for (const event of log.events)
    if (event.type === 'tool.result') {
      const payload = event.payload as { callId: string; status: string; content: string; output: unknown };
      logged.set(payload.callId, payload);
    }

  const checks: CheckResult[] = [
    { name: 'replied', passed: kind === 'replied', message: `outcome ${String(kind)}`, expected: 'replied', actual: String(kind) },
  ];
  for (const [id, want] of Object.entries(EXPECTED)) {
    const got = read.get(id);
    checks.push({
      name: `call ${id}: the model reads ${id === 'status' ? "the tool's rendering" : 'the output as JSON, and why'}`,
      passed: got === want.content,
      message: `the next request holds ${JSON.stringify(got)}`,
      expected: want.content,
      actual: String(got),
    });
    const entry = logged.get(id);
    const shown = JSON.stringify(entry && { status: entry.status, content: entry.content, output: entry.output });
    const expected = JSON.stringify({ status: 'ok', content: want.content, output: want.output });
    checks.push({
      name: `call ${id}: the log keeps it ok, the same text, and the structured output`,
      passed: shown === expected,
      message: `tool.result ${shown}`,
      expected,
      actual: String(shown),
    });
  }
  return checks;
}

export function toolRenderCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:render/tool-rendering-decides-what-the-model-reads',
        title:
          "render: a tool's renderForModel is the text the model reads (the log keeps the output); one that throws or gives no text leaves the call ok, the model reading the output as JSON and why",
        file: 'src/harness/tool-render-cases.ts',
      },
      renderedForTheModel,
    ),
  ];
}
