/** Anthropic `stop_reason` → how the response ended. */
import type { StopInfo } from '../shared/assemble.ts';

export function anthropicStop(stopReason: string | null | undefined, details?: unknown): StopInfo {
  const raw = stopReason ?? undefined;
  switch (stopReason) {
    case 'end_turn':
    case 'stop_sequence':
      return { category: 'reply', raw };
    case 'tool_use':
      return { category: 'tool_use', raw };
    case 'max_tokens':
      return { category: 'max_tokens', raw };
    case 'refusal':
      return { category: 'refusal', raw, details };
    case 'model_context_window_exceeded':
      return { category: 'overflow', raw };
    default:
      // pause_turn (server tools, which loopgate does not declare) and anything new.
      return { category: 'unknown', raw: raw ?? '' };
  }
}
