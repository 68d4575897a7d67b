/** `loopgate/loops/openai-agents`: OpenAI Agents' loop under the gate (needs `@openai/agents` 0.20 installed: an optional peer dependency). */
export { openAiAgentsLoop, OPENAI_AGENTS_CAPABILITIES, type AgentsToolErrorFunction, type OpenAiAgentsLoopOptions } from './adapter.ts';
export { openAiAgent, type GatedOpenAiAgent, type OpenAiAgentOptions } from './agent.ts';
