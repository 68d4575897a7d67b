// The project's loopgate config: its agent (a factory: fresh state per case) and its scenarios.
// It imports the agent as `./src/agent.js`, as code compiled by tsc does; loopgate finds the .ts file.
import { defineConfig } from 'loopgate';
import { travelAgent } from './src/agent.js';

export default defineConfig({
  agents: { travel: travelAgent },
  scenarios: ['scenarios'],
});
