import { z } from 'zod';
import { defineConfig, defineTool } from '../../../src/index.ts';

const search = defineTool({
  name: 'search_kb',
  description: 'Search the knowledge base.',
  input: z.object({ query: z.string() }),
  sideEffect: 'NONE',
  run: ({ query }) => ({ hits: [`KB-1: ${query}`] }),
});

export default defineConfig({
  agents: { helpdesk: () => ({ tools: [search], system: 'You are the IT helpdesk.' }) },
  scenarios: ['scenarios/'],
  loop: 'ai-sdk',
});
