/**
 * A judge whose answers are scripted — for the bundled suite and for tests
 * that must not call a real model. It is a model client like any other, so the
 * whole path runs: the prompt is built and sent, the answer parsed as a verdict.
 * A verdict `{ pass, reason }` is answered as the JSON a real judge would send;
 * `{ reply }` is answered as is. One answer per grading; the last repeats.
 */
import { ScriptedModelClient } from '../../../providers/fake/scripted.ts';
import { reply } from '../../../providers/fake/results.ts';
import type { ModelClient } from '../../kernel/index.ts';
import type { JudgeAnswer } from '../scenario/reply-assertions-schema.ts';

export function scriptedJudge(answers: readonly JudgeAnswer[], name = 'scripted-judge'): ModelClient {
  if (answers.length === 0) throw new RangeError('a scripted judge needs at least one answer');
  const text = (a: JudgeAnswer) => ('reply' in a ? a.reply : JSON.stringify({ pass: a.pass, reason: a.reason }));
  return new ScriptedModelClient([], {
    name,
    onExhausted: (_request, index) => reply(text(answers[Math.min(index, answers.length - 1)]!)),
  });
}
