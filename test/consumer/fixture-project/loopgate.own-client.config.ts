// The travel agent gated through the team's own model client (the skyline gateway's), by its contract harness.
import { defineConfig } from 'loopgate';
import { travelAgent } from './src/agent.js';
import { skylineHarness } from './test/skyline.harness.js';

export default defineConfig({
  agents: { travel: travelAgent },
  clients: { skyline: skylineHarness() },
  scenarios: ['scenarios-own'],
});
