/**
 * OpenAI Agents SDK's side of the loop benchmark: `run` on an Agent with a
 * zod-typed function tool and a minimal scripted `Model` that answers each
 * `getResponse` at once with a prebuilt output, tracing disabled.
 *
 * Not `ScriptedModel` from `@openai/agents-core/testing`: it snapshots (deep
 * copies) every request for its `calls` record, work no production model does,
 * and reading `calls` copies them all again — that would be measured as the
 * loop's cost. Nothing is read from the model inside the timed region: a run
 * returns the scenario's step count, and `check()` (untimed) counts the calls.
 */
import { Agent, type Model, type ModelRequest, type ModelResponse, run, setTracingDisabled, tool, Usage } from '@openai/agents';
import { add, addInput, argsAt, callIdAt, FINAL_TEXT, PROMPT, ROUNDS, STEPS_PER_RUN, SYSTEM, TOOL_DESCRIPTION, TOOL_NAME } from './scenario.ts';

setTracingDisabled(true);

/** Answers step k with a call of the tool (k < ROUNDS) or the final reply; counts its calls. */
class MinimalModel implements Model {
  calls = 0;
  async getResponse(_request: ModelRequest): Promise<ModelResponse> {
    const k = this.calls++;
    const usage = new Usage({ requests: 1, inputTokens: 20, outputTokens: 10, totalTokens: 30 });
    if (k >= ROUNDS) {
      return {
        usage,
        output: [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: FINAL_TEXT }] }],
      };
    }
    const callId = callIdAt(k);
    return {
      usage,
      output: [{ type: 'function_call', name: TOOL_NAME, callId, id: callId, status: 'completed', arguments: JSON.stringify(argsAt(k)) }],
    };
  }
  getStreamedResponse(): AsyncIterable<never> {
    throw new Error('the benchmark model does not stream');
  }
}

export function openAiAgentsContender() {
  let toolRuns = 0;
  const addTool = tool({
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    parameters: addInput,
    execute: async (args) => {
      toolRuns++;
      return add(args);
    },
  });
  const once = async () => {
    const model = new MinimalModel();
    const agent = new Agent({ name: 'calculator', instructions: SYSTEM, model, tools: [addTool] });
    const result = await run(agent, PROMPT, { maxTurns: STEPS_PER_RUN + 1 });
    return { result, model };
  };
  return {
    name: '@openai/agents run',
    async run(): Promise<number> {
      await once();
      return STEPS_PER_RUN;
    },
    async check() {
      const before = toolRuns;
      const { result, model } = await once();
      return {
        toolRuns: toolRuns - before,
        finalText: typeof result.finalOutput === 'string' ? result.finalOutput : undefined,
        modelCalls: model.calls,
      };
    },
  };
}
