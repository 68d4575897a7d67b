/**
 * The same travel agent as a team on AI SDK 6 writes it: a `ToolLoopAgent`,
 * built from a model by a function production calls with its provider's model.
 * loopgate gates it as it ships (loopgate.tool-loop-agent.config.ts): its own
 * instructions and stopWhen, each turn through `agent.generate`.
 */
import { stepCountIs, ToolLoopAgent, type LanguageModel } from 'ai';
import { travelTools } from './ai-agent.js';

export function travelToolLoopAgent(model: LanguageModel) {
  return new ToolLoopAgent({
    model,
    instructions: 'You help travellers with their orders and seats.',
    stopWhen: stepCountIs(4),
    tools: travelTools(), // a fresh reservation book for every agent built
  });
}
