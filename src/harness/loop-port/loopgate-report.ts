/** A turn of loopgate's own loop as a port report: the loop returns its outcome, it never throws. */
import type { TurnResult } from '../../kernel/index.ts';
import type { TurnReport } from './port.ts';

export function reportOf(result: TurnResult): TurnReport {
  return {
    turn: result.turn,
    outcome: result.outcome,
    ending: { kind: 'resolved' },
    ...(result.reply !== undefined ? { reply: result.reply } : {}),
    steps: result.steps,
    usage: result.usage,
  };
}
