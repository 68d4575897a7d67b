/**
 * Peak memory of many concurrent conversations in one production host: an
 * AgentHost on the memory store handles N messages to N conversations at once.
 * Each turn calls the zod-typed tool once and replies; every model call waits a
 * little (a timer), so all N turns are in flight together. Memory is sampled
 * while they run; run with --expose-gc for the settled figures.
 * Prints one JSON line. Usage: node --expose-gc bench/harness/host-memory.ts [N]
 */
import type { ModelClient, ModelResult } from '../../src/kernel/model/client.ts';
import { defaultHostConfig } from '../../src/host/config.ts';
import { AgentHost } from '../../src/host/host.ts';
import { defineTool } from '../../src/kernel/tools/define-tool.ts';
import { MemoryEventStore } from '../../src/stores/memory-store.ts';
import { add, addInput, addOutput, argsAt, FINAL_TEXT, PROMPT, TOOL_DESCRIPTION, TOOL_NAME } from '../loop/scenario.ts';

const CONVERSATIONS = Number(process.argv[2] ?? 1_000);
const MODEL_LATENCY_MS = 100;
const USAGE = { inputTokens: 20, outputTokens: 10 };

/** One tool round, then a reply; the step is read from the request (no per-conversation state). */
const model: ModelClient = {
  name: 'bench-slow-scripted',
  call(request) {
    const last = request.messages[request.messages.length - 1];
    const answered = last?.role === 'user' && last.content.some((b) => b.type === 'tool_result');
    const result: ModelResult = answered
      ? { type: 'reply', content: [{ type: 'text', text: FINAL_TEXT }], text: FINAL_TEXT, usage: USAGE, stopReason: 'end_turn' }
      : (() => {
          const id = `call_${Math.random().toString(36).slice(2)}`;
          return {
            type: 'tool_use',
            content: [{ type: 'tool_call', id, name: TOOL_NAME, args: argsAt(0) }],
            calls: [{ id, name: TOOL_NAME, args: argsAt(0) }],
            text: '',
            usage: USAGE,
            stopReason: 'tool_use',
          };
        })();
    return new Promise((resolve) => setTimeout(() => resolve(result), MODEL_LATENCY_MS));
  },
};

function mib(bytes: number): number {
  return Math.round((bytes / 2 ** 20) * 10) / 10;
}

function collect(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

async function main(): Promise<void> {
  const host = new AgentHost({
    config: defaultHostConfig(),
    store: new MemoryEventStore(),
    model,
    tools: [defineTool({ name: TOOL_NAME, description: TOOL_DESCRIPTION, input: addInput, output: addOutput, sideEffect: 'NONE', run: add })],
  });
  // Warm the code paths, then measure from a settled heap.
  await host.handle('warm-up', PROMPT);
  collect();
  const before = process.memoryUsage();

  let peak = { rss: before.rss, heapUsed: before.heapUsed };
  const sample = () => {
    const m = process.memoryUsage();
    if (m.rss > peak.rss) peak = { ...peak, rss: m.rss };
    if (m.heapUsed > peak.heapUsed) peak = { ...peak, heapUsed: m.heapUsed };
  };
  const sampler = setInterval(sample, 5);
  const start = performance.now();
  const replies = await Promise.all(Array.from({ length: CONVERSATIONS }, (_, i) => host.handle(`conversation-${i}`, PROMPT)));
  const wallMs = performance.now() - start;
  sample();
  clearInterval(sampler);
  const answered = replies.filter((r) => r.reply === FINAL_TEXT).length;
  if (answered !== CONVERSATIONS)
    throw new Error(
      `bench: ${CONVERSATIONS - answered} of ${CONVERSATIONS} conversations were not answered: ${JSON.stringify(replies.find((r) => r.reply !== FINAL_TEXT))}`,
    );

  collect();
  const after = process.memoryUsage();
  await host.close();
  process.stdout.write(
    `${JSON.stringify({
      conversations: CONVERSATIONS,
      modelLatencyMs: MODEL_LATENCY_MS,
      wallMs: Math.round(wallMs),
      gcExposed: typeof (globalThis as { gc?: unknown }).gc === 'function',
      mib: {
        rssBefore: mib(before.rss),
        heapBefore: mib(before.heapUsed),
        rssPeak: mib(peak.rss),
        heapPeak: mib(peak.heapUsed),
        rssAfter: mib(after.rss),
        heapAfter: mib(after.heapUsed),
      },
      kibPerConversation: {
        heapPeak: Math.round(((peak.heapUsed - before.heapUsed) / CONVERSATIONS / 1024) * 10) / 10,
        heapRetained: Math.round(((after.heapUsed - before.heapUsed) / CONVERSATIONS / 1024) * 10) / 10,
      },
    })}\n`,
  );
}

await main();
