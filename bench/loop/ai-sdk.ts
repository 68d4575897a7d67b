/**
 * Vercel AI SDK's side of the loop benchmark: `generateText` with a zod-typed tool
 * and `MockLanguageModelV3` from `ai/test` (the installed `ai` 6 ships the V3 mock;
 * there is no V4), answering each `doGenerate` at once. Multi-step via `stopWhen`.
 */
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { add, addInput, argsAt, callIdAt, FINAL_TEXT, PROMPT, STEPS_PER_RUN, SYSTEM, TOOL_DESCRIPTION, TOOL_NAME } from './scenario.ts';

type GenerateResult = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;

const USAGE: GenerateResult['usage'] = {
  inputTokens: { total: 20, noCache: 20, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 10, text: 10, reasoning: undefined },
};

function scriptedModel(): MockLanguageModelV3 {
  let step = 0;
  return new MockLanguageModelV3({
    doGenerate: async (): Promise<GenerateResult> => {
      const k = step++;
      if (k === STEPS_PER_RUN - 1) {
        return { content: [{ type: 'text', text: FINAL_TEXT }], finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE, warnings: [] };
      }
      return {
        content: [{ type: 'tool-call', toolCallId: callIdAt(k), toolName: TOOL_NAME, input: JSON.stringify(argsAt(k)) }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage: USAGE,
        warnings: [],
      };
    },
  });
}

export function aiSdkContender() {
  let toolRuns = 0;
  const tools = {
    [TOOL_NAME]: tool({
      description: TOOL_DESCRIPTION,
      inputSchema: addInput,
      execute: async (args) => {
        toolRuns++;
        return add(args);
      },
    }),
  };
  const once = async () => {
    const model = scriptedModel();
    const result = await generateText({ model, system: SYSTEM, prompt: PROMPT, tools, stopWhen: stepCountIs(STEPS_PER_RUN + 1) });
    return { result, model };
  };
  return {
    name: 'Vercel AI SDK generateText',
    async run(): Promise<number> {
      const { result } = await once();
      return result.steps.length;
    },
    async check() {
      const before = toolRuns;
      const { result, model } = await once();
      return { toolRuns: toolRuns - before, finalText: result.text, modelCalls: model.doGenerateCalls.length };
    },
  };
}
