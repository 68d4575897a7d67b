/**
 * OpenAI Agents SDK's side of the loop benchmark: `run` on an Agent with a
 * zod-typed function tool and `ScriptedModel` from `@openai/agents-core/testing`,
 * tracing disabled.
 */
import { Agent, run, setTracingDisabled, tool } from '@openai/agents';
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents-core/testing';
import { add, addInput, argsAt, callIdAt, FINAL_TEXT, PROMPT, ROUNDS, STEPS_PER_RUN, SYSTEM, TOOL_DESCRIPTION, TOOL_NAME } from './scenario.ts';

setTracingDisabled(true);

function scriptedModel(): ScriptedModel {
  const steps = [];
  for (let k = 0; k < ROUNDS; k++) steps.push([functionCall(TOOL_NAME, argsAt(k), { callId: callIdAt(k) })]);
  steps.push([assistantMessage(FINAL_TEXT)]);
  return new ScriptedModel(steps);
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
    const model = scriptedModel();
    const agent = new Agent({ name: 'calculator', instructions: SYSTEM, model, tools: [addTool] });
    const result = await run(agent, PROMPT, { maxTurns: STEPS_PER_RUN + 1 });
    return { result, model };
  };
  return {
    name: '@openai/agents run',
    async run(): Promise<number> {
      const { model } = await once();
      return model.calls.length;
    },
    async check() {
      const before = toolRuns;
      const { result, model } = await once();
      return {
        toolRuns: toolRuns - before,
        finalText: typeof result.finalOutput === 'string' ? result.finalOutput : undefined,
        modelCalls: model.calls.length,
      };
    },
  };
}
