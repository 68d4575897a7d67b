/**
 * The agent the table's fixtures run with: one read-only tool, `lookup_order`,
 * declared like a real one (no side effects, parallel-safe, a 5 s timeout).
 * The fixtures script its behaviour (slow, hanging) when a state needs it.
 */
import { z } from 'zod';
import { defineTool, type AgentFactory } from '../src/kernel/index.ts';
import type { AgentRegistry } from '../src/harness/second-host.ts';

const ORDERS: Readonly<Record<string, { status: string; total: number }>> = {
  'ORD-1001': { status: 'shipped', total: 45.5 },
  'ORD-1002': { status: 'processing', total: 120 },
};

export const tableAgent: AgentFactory = () => ({
  system: 'You are the support agent of a small online shop.',
  tools: [
    defineTool({
      name: 'lookup_order',
      description: 'Look up an order by id.',
      input: z.object({ order_id: z.string() }),
      sideEffect: 'NONE',
      parallelSafe: true,
      timeoutMs: 5_000,
      run: ({ order_id }) => ({ order_id, ...(ORDERS[order_id] ?? { status: 'unknown', total: 0 }) }),
    }),
  ],
});

export const TABLE_AGENTS: AgentRegistry = { agents: new Map([['table', tableAgent]]), defaultAgent: 'table' };
