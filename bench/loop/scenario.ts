/**
 * The one scenario every contender runs: a user message, then ROUNDS model steps
 * that each call the zod-typed `add` tool once, then a step that replies. The model
 * is scripted in process and answers at once: what is measured is the loop.
 */
import { z } from 'zod';

export const ROUNDS = 10;
/** Model requests per run: the tool rounds plus the final reply. */
export const STEPS_PER_RUN = ROUNDS + 1;
export const PROMPT = 'Add the numbers, one call at a time.';
export const SYSTEM = 'You are a calculator.';
export const FINAL_TEXT = 'The sum is 55.';

export const TOOL_NAME = 'add';
export const TOOL_DESCRIPTION = 'Adds two numbers.';
export const addInput = z.object({ a: z.number(), b: z.number() });
export const addOutput = z.object({ sum: z.number() });

export function add({ a, b }: z.infer<typeof addInput>): z.infer<typeof addOutput> {
  return { sum: a + b };
}

/** Arguments of the tool call made at model step `step` (0-based). */
export function argsAt(step: number): z.infer<typeof addInput> {
  return { a: step, b: 1 };
}

export function callIdAt(step: number): string {
  return `call_${step}`;
}

/** Checks a contender really ran the scenario (before anything is timed). */
export function checkRun(name: string, observed: { toolRuns: number; finalText: string | undefined; modelCalls: number }): void {
  const problems: string[] = [];
  if (observed.toolRuns !== ROUNDS) problems.push(`ran the tool ${observed.toolRuns} times, expected ${ROUNDS}`);
  if (observed.modelCalls !== STEPS_PER_RUN) problems.push(`made ${observed.modelCalls} model calls, expected ${STEPS_PER_RUN}`);
  if (observed.finalText !== FINAL_TEXT) problems.push(`ended with ${JSON.stringify(observed.finalText)}, expected ${JSON.stringify(FINAL_TEXT)}`);
  if (problems.length) throw new Error(`bench contender ${name} did not run the scenario: ${problems.join('; ')}`);
}
