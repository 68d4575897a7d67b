/**
 * The scenario's scripted stand-ins for the agent's hooks: a human approver, a
 * compactor, checkpoint hooks and a claim policy, each answering from the script
 * (the last answer repeats) after the virtual time it is told to take.
 */
import type { Approver, CheckpointHook, ClaimPolicy, Clock, Compactor } from '../../kernel/index.ts';
import type { Scenario } from '../scenario/schema.ts';
import type { FaultLog } from './fault-log.ts';

export function scriptedApprover(spec: NonNullable<Scenario['approver']>, clock: Clock): Approver {
  let asked = 0;
  return {
    async approve(_request, signal) {
      const answer = spec.answers[Math.min(asked, spec.answers.length - 1)]!;
      asked++;
      if (spec.delayMs > 0) await clock.sleep(spec.delayMs, signal);
      return answer;
    },
  };
}

export function scriptedCompactor(steps: NonNullable<Scenario['compaction']>, faults: FaultLog): Compactor {
  let n = 0;
  return {
    async compact({ candidate, messages }) {
      const step = steps[Math.min(n, steps.length - 1)]!;
      n++;
      if (step === 'none') return null;
      if (step === 'fail') {
        faults.record('compactor fails');
        throw new Error('scripted compactor failure');
      }
      if (!candidate) return null;
      if (step === 'grow') {
        faults.record('compaction does not shrink');
        return { ...candidate, summary: 'x'.repeat(JSON.stringify(messages).length + 1_000) };
      }
      return { ...candidate, summary: step.summary };
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

export function scriptedClaim(spec: NonNullable<Scenario['claim']>, clock: Clock): ClaimPolicy {
  return {
    claim: async (messages, signal) => {
      if (spec.delayMs > 0) await clock.sleep(spec.delayMs, signal);
      if ('deny' in spec) return { decision: 'deny', reason: spec.deny };
      if ('drop' in spec) return { decision: 'allow', rewrite: new Map(messages.map((m) => [m.id, null])) };
      return { decision: 'allow' };
    },
  };
}
