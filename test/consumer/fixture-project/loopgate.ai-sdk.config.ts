// The team's AI SDK agent under the gate: its tools and its own generateText options, in the AI SDK's loop.
import { defineConfig } from 'loopgate';
import { aiSdkLoop } from 'loopgate/loops/ai-sdk';
import { travelAiAgent } from './src/ai-agent.js';

export default defineConfig({
  agents: { travel: travelAiAgent },
  loop: aiSdkLoop({ options: { temperature: 0, maxRetries: 1 } }),
  scenarios: ['scenarios-ai'],
});
