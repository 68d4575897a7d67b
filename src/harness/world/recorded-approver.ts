/**
 * The approver a case runs with (the scenario's scripted one or the agent's own),
 * wrapped so the run keeps every answer it gave: which call, what it was shown,
 * what it said, when it was asked, when told to stop and when it answered.
 * The invariant `approver-answers-followed` holds the log's decisions to them —
 * the log alone can only say that a decision was "by the approver", not that the
 * approver said so. `approver-saw-the-call` holds what it was shown to the log's call.
 */
import type { ApprovalRequest, Approver, Clock } from '../../kernel/index.ts';

export interface ApprovalAnswer {
  readonly callId: string;
  readonly tool: string;
  /** What the approver was shown: the request's arguments and side-effect level, as it got them. */
  readonly shown: { readonly callId: string; readonly tool: string; readonly args: unknown; readonly sideEffect: string };
  /** 'approve' or 'deny' as answered; anything else (or a rejection) as text. */
  readonly answer: string;
  /** Virtual time of the answer. */
  readonly at: number;
  /** Virtual time the request was put to the approver. */
  readonly askedAt: number;
  /** Virtual time its signal told it to stop, when that came before its answer (a cancel, a timeout, a settled race). */
  readonly stoppedAt?: number;
  /** Whether the store held the model's call when the approver was asked (undefined: the run cannot tell). */
  readonly storedWhenAsked?: boolean;
}

/**
 * `asked` hears each request as it is put to the approver, before it answers (for
 * `at: { approval }` triggers); `stored` says whether the store holds the model's
 * call with that id at that moment.
 */
export function recordedApprover(
  approver: Approver,
  clock: Pick<Clock, 'now'>,
  answers: ApprovalAnswer[],
  asked?: () => void,
  stored?: (callId: string) => boolean,
): Approver {
  return {
    approve: async (request: ApprovalRequest, signal: AbortSignal) => {
      asked?.();
      const askedAt = clock.now();
      let stoppedAt: number | undefined;
      const stop = () => (stoppedAt = clock.now());
      if (signal.aborted) stoppedAt = askedAt;
      else signal.addEventListener('abort', stop, { once: true });
      const storedWhenAsked = stored?.(request.callId);
      const shown = { callId: request.callId, tool: request.tool, args: request.args, sideEffect: request.sideEffect };
      const note = (answer: string) => {
        signal.removeEventListener('abort', stop);
        answers.push({
          callId: request.callId,
          tool: request.tool,
          shown,
          answer,
          at: clock.now(),
          askedAt,
          ...(stoppedAt !== undefined ? { stoppedAt } : {}),
          ...(storedWhenAsked !== undefined ? { storedWhenAsked } : {}),
        });
      };
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
