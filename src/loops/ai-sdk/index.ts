/** `loopgate/loops/ai-sdk`: the Vercel AI SDK's loop under the gate (needs `ai` 6 installed: an optional peer dependency). */
export {
  aiSdkLoop,
  AI_SDK_CAPABILITIES,
  type AiSdkGlue,
  type AiSdkGlueFunction,
  type AiSdkKept,
  type AiSdkLoopOptions,
  type AiSdkTurnEnd,
  type GenerateTextOptions,
} from './adapter.ts';
export { aiSdkAgent, type AiSdkAgentOptions } from './agent.ts';
export { toolLoopAgent, type GatedToolLoopAgent, type ToolLoopAgentOptions } from './tool-loop-agent.ts';
