// The team's OpenAI Agents agent under the gate, as it ships: built by the team's own function from the case's model.
import { defineConfig } from 'loopgate';
import { openAiAgent } from 'loopgate/loops/openai-agents';
import { travelAgentsAgent } from './src/agents-agent.js';

const travel = openAiAgent(travelAgentsAgent, { sideEffects: { reserve_seat: 'STATEFUL' } });

export default defineConfig({
  agents: { travel: travel.agent },
  loop: travel.loop,
  scenarios: ['scenarios-agents'],
});
