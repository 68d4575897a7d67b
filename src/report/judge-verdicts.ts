/** Every reply a judge model graded (rubric assertions), with its case: failed verdicts first, by case id. */
import { compareIds } from './format.ts';
import type { CaseResult, JudgeVerdict } from './results.ts';

export interface CaseVerdict {
  readonly id: string;
  /** The check's name, e.g. `assert[2] rubric` (or `run 3: assert[2] rubric` for a live repeat). */
  readonly check: string;
  readonly verdict: JudgeVerdict;
}

export function judgeVerdicts(cases: readonly CaseResult[]): CaseVerdict[] {
  const out: CaseVerdict[] = [];
  for (const c of cases) for (const check of c.checks) if (check.judge) out.push({ id: c.id, check: check.name, verdict: check.judge });
  return out.sort((a, b) => Number(a.verdict.pass) - Number(b.verdict.pass) || compareIds(a.id, b.id));
}
