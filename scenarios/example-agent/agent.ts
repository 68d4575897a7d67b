/**
 * The example after-sales support agent, as a factory: each call builds a fresh
 * backend (orders, refunds, notes, notifications) and the tools over it, so no
 * case or fuzz run sees another's refunds. This is how a team plugs its own agent
 * into loopgate (see loopgate.config.ts beside the bundled suite).
 */
import type { AgentFactory } from '../../src/kernel/index.ts';
import { SupportBackend } from './backend.ts';
import { cardNumbersMasked } from './claim.ts';
import { SUPPORT_SYSTEM_PROMPT } from './prompt.ts';
import { supportTools } from './tools.ts';

export const supportAgent: AgentFactory = () => ({
  tools: supportTools(new SupportBackend()),
  system: SUPPORT_SYSTEM_PROMPT,
  claim: cardNumbersMasked,
});
