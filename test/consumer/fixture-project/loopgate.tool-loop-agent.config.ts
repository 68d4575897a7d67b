// The team's AI SDK 6 ToolLoopAgent under the gate, as it ships: built by the team's own function from the case's model.
import { defineConfig } from 'loopgate';
import { toolLoopAgent } from 'loopgate/loops/ai-sdk';
import { travelToolLoopAgent } from './src/tool-loop-agent.js';

const travel = toolLoopAgent(travelToolLoopAgent, { sideEffects: { reserve_seat: 'STATEFUL' } });

export default defineConfig({
  agents: { travel: travel.agent },
  loop: travel.loop,
  scenarios: ['scenarios-ai'],
});
