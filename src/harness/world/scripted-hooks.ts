/**
 * The scenario's scripted stand-ins for the agent's hooks: a human approver, a
 * compactor, checkpoint hooks and a claim policy, each answering from the script
 * (the last answer repeats) after the virtual time it is told to take.
 */
import type { Approver, CheckpointHook, ClaimPolicy, Clock, Compactor, ModelErrorHandler } from '../../kernel/index.ts';
import type { ClaimDecisionSpec, Scenario } from '../scenario/schema.ts';
import type { FaultLog } from './fault-log.ts';
import { misbehavingRange } from './misbehaving-ranges.ts';

const RANGE_FAULT = {
  'cuts-turn': 'cuts a turn',
  'splits-batch': 'splits a parallel batch',
  overlaps: 'overlaps an earlier compaction',
  empty: 'is empty',
  outside: 'ends outside the log',
} as const;

/** What a scripted approver answered `invalid` says: close to a yes, and neither approve nor deny. */
export const INVALID_ANSWER = 'approved';

export function scriptedApprover(spec: NonNullable<Scenario['approver']>, clock: Clock): Approver {
  let asked = 0;
  return {
    async approve(_request, signal) {
      const answer = spec.answers[Math.min(asked, spec.answers.length - 1)]!;
      asked++;
      if (spec.delayMs > 0) await clock.sleep(spec.delayMs, signal);
      // A broken approver: an answer the Approver type does not allow (a UI's "approved"), or a failure.
      if (answer === 'invalid') return INVALID_ANSWER as unknown as 'approve';
      if (answer === 'throw') throw new Error('scripted approver failure');
      return answer;
    },
  };
}

export function scriptedCompactor(steps: NonNullable<Scenario['compaction']>, clock: Clock, faults: FaultLog): Compactor {
  let n = 0;
  return {
    async compact({ log, candidate, messages, signal }) {
      const step = steps[Math.min(n, steps.length - 1)]!;
      n++;
      if (step === 'none') return null;
      if (step === 'fail') {
        faults.record('compactor fails');
        throw new Error('scripted compactor failure');
      }
      if (step === 'grow') {
        if (!candidate) return null;
        faults.record('compaction does not shrink');
        return { ...candidate, summary: 'x'.repeat(JSON.stringify(messages).length + 1_000) };
      }
      if (step.delayMs) {
        faults.record(`compactor takes ${step.delayMs} ms`);
        await clock.sleep(step.delayMs, signal);
        if (signal.aborted) throw new Error('compaction cancelled: the turn was cancelled while the compactor ran');
      }
      if ('fail' in step) {
        faults.record(`compactor fails: ${step.fail}`);
        throw new Error(step.fail);
      }
      if (!candidate) return null;
      if (step.range === undefined) return { ...candidate, summary: step.summary };
      const range = misbehavingRange(step.range, log, candidate);
      if (!range) return null;
      faults.record(`compactor proposes a range that ${RANGE_FAULT[step.range]}: [${range.from}, ${range.to}]`);
      return { ...range, summary: step.summary };
    },
  };
}

export function scriptedCheckpoint(spec: NonNullable<Scenario['checkpoints']>[number], clock: Clock): CheckpointHook {
  let runs = 0;
  return {
    name: spec.name,
    run: async ({ signal }) => {
      const extend = spec.extend[Math.min(runs, spec.extend.length - 1)];
      runs++;
      if (spec.delayMs > 0) await clock.sleep(spec.delayMs, signal);
      return extend ? { extend } : undefined;
    },
  };
}

/** The agent's own model-error handler: one that throws (a bug in the agent's code), whatever the error. */
export function scriptedErrorHandler(spec: NonNullable<Scenario['errorHandlers']>[number]): ModelErrorHandler {
  return {
    name: spec.name,
    handle: () => {
      throw new Error(spec.throws);
    },
  };
}

/** The claim policy: one decision for every turn, or one per turn (the last repeats). */
export function scriptedClaim(spec: NonNullable<Scenario['claim']>, clock: Clock): ClaimPolicy {
  const decisions: readonly ClaimDecisionSpec[] = Array.isArray(spec) ? spec : [spec];
  let turns = 0;
  return {
    claim: async (messages, signal) => {
      const decision = decisions[Math.min(turns, decisions.length - 1)]!;
      turns++;
      if (decision.delayMs > 0) await clock.sleep(decision.delayMs, signal);
      if ('deny' in decision) return { decision: 'deny', reason: decision.deny };
      if ('drop' in decision) return { decision: 'allow', rewrite: new Map(messages.map((m) => [m.id, null])) };
      return { decision: 'allow' };
    },
  };
}
