/**
 * What docs/field-failures.md reports: each known field failure of DESIGN.md
 * with the scenario files that exercise it, and the findings issue 17 named,
 * each with the file that shows it and the check on the run that confirms it.
 * A finding is "reproduced" only when that check holds on this run — nothing
 * here is written by hand about a peer's behaviour.
 */
import type { CaseResult } from '../../src/report/results.ts';

export const LOOPS = ['loopgate', 'ai-sdk', 'openai-agents'] as const;
export type LoopName = (typeof LOOPS)[number];

export interface Row {
  readonly n: number;
  readonly failure: string;
  /** Scenario files (from the repository root); the first one that runs on a loop decides its verdict, the rest are shown too. */
  readonly files: readonly string[];
}

const B = 'scenarios/bundled';
const P = 'scenarios/peers';

export const ROWS: readonly Row[] = [
  {
    n: 1,
    failure: 'Interrupt during tool execution leaves tool calls without results; the provider rejects the next request.',
    files: [`${B}/field-failures/interrupt-mid-batch-every-call-answered.yaml`],
  },
  { n: 2, failure: 'An interrupted tool reported as "denied, never ran".', files: [`${B}/loop/cancel-during-refund.yaml`] },
  {
    n: 3,
    failure: 'Abort invisible to the model, so it repeats side effects.',
    files: [`${B}/field-failures/abort-visible-to-model.yaml`, `${B}/cancel/cancel-while-model-reads-refund.yaml`],
  },
  {
    n: 4,
    failure: 'A queued steer or follow-up taken, then lost when an abort lands.',
    files: [`${B}/field-failures/steer-taken-then-abort-returned.yaml`, `${B}/cancel/follow-up-returned-when-cancelled-before-first-step.yaml`],
  },
  { n: 5, failure: 'Compaction orphans tool results or splits a parallel batch.', files: [`${B}/compaction/compaction-keeps-tool-batches-whole.yaml`] },
  { n: 6, failure: 'Compact → overflow → compact forever without progress.', files: [`${B}/compaction/compact-overflow-loop-is-bounded.yaml`] },
  {
    n: 7,
    failure: 'Compaction destroys raw history; an interrupted compaction loses it.',
    files: [`${B}/compaction/overflow-compacts-then-retries.yaml`, `${B}/compaction/failed-compaction-keeps-history.yaml`],
  },
  { n: 8, failure: 'A torn last record in the store, and the next append fused onto it.', files: [`${B}/field-failures/failed-write-not-fused.yaml`] },
  {
    n: 9,
    failure: 'Persistence errors swallowed; writes silently stop.',
    files: [`${B}/persistence/store-refuses-first-write.yaml`, `${B}/persistence/write-ahead-fails-refund-not-run.yaml`],
  },
  {
    n: 10,
    failure: 'Crash mid-turn, resume shows missing history.',
    files: [
      `${B}/cancel/shutdown-mid-turn-history-survives.yaml`,
      `${B}/crash/crash-while-refund-runs-never-reruns.yaml`,
      `${B}/crash/crash-while-model-thinks-after-refund.yaml`,
    ],
  },
  {
    n: 11,
    failure: '`max_tokens` cuts tool-call arguments; the loop retries forever or runs the call with `{}`.',
    files: [
      `${B}/field-failures/max-tokens-cuts-tool-call.yaml`,
      `${P}/anthropic-max-tokens-cuts-tool-call.yaml`,
      `${P}/openai-chat-max-tokens-cuts-tool-call.yaml`,
      `${P}/openai-responses-max-tokens-cuts-tool-call.yaml`,
    ],
  },
  {
    n: 12,
    failure: 'Abort does not stop a running tool.',
    files: [
      `${B}/cancel/abort-stops-running-tool.yaml`,
      `${B}/cancel/hanging-tool-cut-loose-on-cancel.yaml`,
      `${P}/hanging-tool-without-timeout-on-cancel.yaml`,
      `${P}/stop-while-refund-runs-batch.yaml`,
    ],
  },
  {
    n: 13,
    failure: 'A later permission rule re-allows a denied tool.',
    files: [`${B}/approvals/deny-rule-beats-later-allow.yaml`, `${B}/safety/visibility-deny-not-lifted.yaml`],
  },
  { n: 14, failure: 'A misspelled tool name in a deny list silently denies nothing.', files: [`${B}/safety/visibility-deny-not-lifted.yaml`] },
  {
    n: 15,
    failure: "A steer sent while a turn runs waits behind the server's lock and becomes a new turn.",
    files: [`${B}/inbox/steer-through-host-joins-running-turn.yaml`],
  },
  { n: 16, failure: "The fallback model is asked for the primary's model name.", files: [`${B}/retries/fallback-own-model-and-retry-after-remembered.yaml`] },
  {
    n: 17,
    failure: 'A key split across streamed chunks is stored in pieces.',
    files: [
      `${B}/safety/secret-in-stream-ids-prompt-and-errors.yaml`,
      `${B}/safety/secrets-never-logged.yaml`,
      `${B}/wire/openai-responses-key-split-across-chunks.yaml`,
    ],
  },
];

export interface Finding {
  readonly id: string;
  readonly claim: string;
  readonly file: string;
  readonly loops: readonly LoopName[];
  /** Does this case's result show the finding? Returns the evidence, or nothing. */
  readonly shows: (result: CaseResult) => string | undefined;
}

const failing = (result: CaseResult, pattern: RegExp) => result.checks.find((c) => !c.passed && pattern.test(`${c.name}: ${c.message}`));
const evidence = (result: CaseResult, pattern: RegExp) => {
  const c = failing(result, pattern);
  return c ? `${c.name}: ${c.message}` : undefined;
};
const diff = (result: CaseResult, name: string, more: (actual: number) => boolean) => {
  const c = result.checks.find((x) => x.name === name);
  return c && typeof c.actual === 'number' && more(c.actual) ? `${name.replace('diff: ', '')}: ${c.actual} (loopgate: ${String(c.expected)})` : undefined;
};

export const FINDINGS: readonly Finding[] = [
  {
    id: 'F1',
    claim: 'A tool that ignores its abort signal hangs the turn forever and leaves its spans open.',
    file: `${P}/hanging-tool-without-timeout-on-cancel.yaml`,
    loops: ['ai-sdk', 'openai-agents'],
    shows: (r) => evidence(r, /never (ended|settled)/),
  },
  {
    id: 'F2',
    claim: 'A CRITICAL notify_customer ran after the user pressed stop: every call of a step starts together.',
    file: `${P}/stop-while-refund-runs-batch.yaml`,
    loops: ['ai-sdk', 'openai-agents'],
    shows: (r) => diff(r, 'diff: executions notify_customer', (n) => n > 0),
  },
  {
    id: 'F3',
    claim: 'The tools of the last allowed step run, and the model never sees their results.',
    file: `${B}/loop/max-steps-before-tools.yaml`,
    loops: ['ai-sdk', 'openai-agents'],
    shows: (r) => evidence(r, /^invariant-11/),
  },
  {
    id: 'F4',
    claim: 'The AI SDK re-runs a STATEFUL call when the model repeats a call id.',
    file: `${B}/safety/colliding-call-ids-each-run-once.yaml`,
    loops: ['ai-sdk'],
    shows: (r) => evidence(r, /^invariant-13/),
  },
  {
    id: 'F5',
    claim: 'The AI SDK asks again, step after step until stopWhen, when max_tokens cuts a call’s arguments (confirmed on the wire).',
    file: `${P}/anthropic-max-tokens-cuts-tool-call.yaml`,
    loops: ['ai-sdk'],
    shows: (r) => diff(r, 'diff: requests', (n) => n > 1),
  },
  {
    id: 'F6',
    claim: 'Agents loses the turn’s user message and an executed refund from the Session when an abort lands during a model call.',
    file: `${B}/cancel/cancel-while-model-reads-refund.yaml`,
    loops: ['openai-agents'],
    shows: (r) => [evidence(r, /^invariant-09/), evidence(r, /^invariant-14/)].filter(Boolean).join('; ') || undefined,
  },
  {
    id: 'F7',
    claim: 'Agents never ends the trace of a run that throws.',
    file: `${B}/outcomes/refusal-adds-nothing.yaml`,
    loops: ['openai-agents'],
    shows: (r) => evidence(r, /never ended the trace/),
  },
  {
    id: 'F8',
    claim:
      'The AI SDK throws instead of ending the turn when the model sends tool arguments nested 3,000 levels deep: its own structuredClone of the step overflows the stack (RangeError), and nothing tells the model the call was refused.',
    file: `${B}/wire/openai-chat-odd-and-deep-arguments.yaml`,
    loops: ['ai-sdk'],
    shows: (r) => r.timeline?.find((t) => /threw RangeError/.test(t.detail ?? ''))?.detail,
  },
  {
    id: 'F9',
    claim:
      'The AI SDK sends the "\\n\\n" Claude writes before a tool call back to Anthropic as a text block of its own; the API refuses a whitespace-only block with a 400, so the turn fails at its second step (an app that stores that history sends the block again on every later turn).',
    file: `${P}/anthropic-blank-text-before-a-call.yaml`,
    loops: ['ai-sdk'],
    shows: (r) => r.timeline?.find((t) => /non-whitespace text/.test(t.detail ?? ''))?.detail,
  },
];
