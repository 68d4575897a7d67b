/**
 * A hand-written loop, as a team writes one behind the port ("call the model, run the tools, repeat", README "A loop
 * of your own"): the loop the default gate's own checks run behind the port, so the port, the peer runner and every
 * invariant's outside view are exercised by `loopgate run` without any framework installed (outside probes 44, 45:
 * plants on that path were caught only with `ai` installed and `--loop ai-sdk`).
 *
 * It asks the case's approver, where there is one, before any tool that changes something; it reads a cancel by
 * `cancelOf(signal)` after each model call and before each tool, and reports it `cancelled{by}` — keeping the turn's
 * message and what completed, as the README asks.
 */
import type { Message } from '../kernel/index.ts';
import { cancelOf } from './loop-port/peer-cancel.ts';
import type { LoopUnderTestFactory } from './loop-port/peer-world.ts';
import type { TurnReport } from './loop-port/port.ts';

export interface HandWrittenOptions {
  /** It hands the model its own message list, and goes on adding to it (outside probe 45, F2). */
  readonly shares?: boolean;
}

export function handWritten(options: HandWrittenOptions = {}): LoopUnderTestFactory {
  return {
    id: 'hand-written',
    version: 'hand-written 1.0.0',
    capabilities: { supports: ['approver'], history: 'session', time: 'patched-timers' },
    create: (world) => {
      const history: Message[] = [];
      const usage = { inputTokens: 1, outputTokens: 1 };
      return {
        runTurn: async ({ turn, text, signal }): Promise<TurnReport> => {
          history.push({ role: 'user', content: [{ type: 'text', text }] });
          const cancelled = (steps: number): TurnReport | undefined => {
            const cancel = cancelOf(signal);
            return cancel ? { turn, outcome: { kind: 'cancelled', by: cancel.by }, ending: { kind: 'resolved' }, steps, usage } : undefined;
          };
          for (let step = 1; step <= world.maxSteps; step++) {
            let answer: Awaited<ReturnType<typeof world.model.call>>;
            try {
              answer = await world.model.call({
                model: 'm',
                system: world.system,
                messages: options.shares ? history : [...history],
                tools: [],
                maxTokens: world.maxTokens,
                signal,
              });
            } catch (error) {
              const stop = cancelled(step);
              if (stop) return stop;
              throw error;
            }
            const stop = cancelled(step);
            if (stop) return stop;
            if (answer.type !== 'tool_use') {
              const reply = answer.type === 'reply' ? answer.text : undefined;
              if (reply === undefined)
                return {
                  turn,
                  outcome: { kind: 'failed', reason: 'provider_unavailable' },
                  ending: { kind: 'resolved' },
                  steps: step,
                  usage: { inputTokens: 0, outputTokens: 0 },
                };
              history.push({ role: 'assistant', content: [{ type: 'text', text: reply }] });
              return { turn, outcome: { kind: 'replied' }, ending: { kind: 'resolved', finishReason: 'stop' }, reply, steps: step, usage };
            }
            history.push({ role: 'assistant', content: answer.content });
            const results = [];
            for (const call of answer.calls) {
              if (cancelOf(signal)) {
                results.push({ type: 'tool_result' as const, callId: call.id, status: 'failed' as const, content: 'not run: the turn was cancelled' });
                continue;
              }
              const tool = world.tools.find((t) => t.name === call.name)!;
              const asked = world.approver && tool.sideEffect !== 'NONE';
              const request = { callId: call.id, tool: call.name, args: call.args, sideEffect: tool.sideEffect, reason: 'it changes something' };
              if (asked && (await world.approver!.approve(request, signal).catch(() => 'deny')) !== 'approve') {
                results.push({ type: 'tool_result' as const, callId: call.id, status: 'failed' as const, content: 'denied by the approver' });
                continue;
              }
              const output = await tool.run(call.args, { callId: call.id, signal });
              results.push({ type: 'tool_result' as const, callId: call.id, status: 'ok' as const, content: JSON.stringify(output) });
            }
            history.push({ role: 'user', content: results });
            const after = cancelled(step);
            if (after) return after;
          }
          return { turn, outcome: { kind: 'failed', reason: 'max_steps' }, ending: { kind: 'resolved' }, steps: world.maxSteps, usage };
        },
        persistedHistory: () => [...history],
        traces: () => [],
      };
    },
  };
}
