/**
 * The approver a case runs with (the scenario's scripted one or the agent's own),
 * wrapped so the run keeps every answer it gave: which call, what it said, when.
 * The invariant `approver-answers-followed` holds the log's decisions to them —
 * the log alone can only say that a decision was "by the approver", not that the
 * approver said so.
 */
import type { ApprovalRequest, Approver, Clock } from '../../kernel/index.ts';

export interface ApprovalAnswer {
  readonly callId: string;
  readonly tool: string;
  /** 'approve' or 'deny' as answered; anything else (or a rejection) as text. */
  readonly answer: string;
  /** Virtual time of the answer. */
  readonly at: number;
}

/** `asked` hears each request as it is put to the approver, before it answers (for `at: { approval }` triggers). */
export function recordedApprover(approver: Approver, clock: Pick<Clock, 'now'>, answers: ApprovalAnswer[], asked?: () => void): Approver {
  return {
    approve: async (request: ApprovalRequest, signal: AbortSignal) => {
      asked?.();
      const note = (answer: string) => answers.push({ callId: request.callId, tool: request.tool, answer, at: clock.now() });
      try {
        const answer = await approver.approve(request, signal);
        note(answer === 'approve' || answer === 'deny' ? answer : `invalid: ${JSON.stringify(answer) ?? String(answer)}`);
        return answer;
      } catch (error) {
        note(`threw: ${error instanceof Error ? error.message : String(error)}`);
        throw error;
      }
    },
  };
}
