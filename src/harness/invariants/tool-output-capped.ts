/**
 * Tool output the model reads is capped (seed 000 §5, after stage): every
 * result's text — an `ok` output, or the rendered error of a failed or unknown
 * call, which carries the tool's own text (what it threw, its error message) —
 * is at most the case's `toolMaxOutputChars` (20,000 by default),
 * or that many characters followed by the marker that says it was cut — with
 * numbers that add up (shown + cut = the full length, recorded as
 * `truncatedFrom`). Checked from the log, whatever the pipeline did: a cap that is
 * off, a marker missing or lying about what was cut fails.
 */
import { DEFAULT_MAX_OUTPUT_CHARS, type LogEvent } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { viewOf } from './support/log-view.ts';

/**
 * Codes of the results the loop (or crash recovery) writes itself, outside the
 * tool pipeline that applies the cap: a call still open when its turn ends
 * (NOT_RUN, INTERRUPTED) and one whose tool executor broke its contract
 * (PIPELINE_ERROR). The pipeline's own INTERRUPTED is a fixed sentence too.
 */
const LOOP_NOTICES = new Set(['NOT_RUN', 'INTERRUPTED', 'PIPELINE_ERROR']);

/** The marker of a text cut to fit the output cap (tools/truncate.ts): shown, total and cut lengths. */
export const MARKER =
  /\n\n\[output truncated: showing the first (\d+) of (\d+) characters; (\d+) characters were cut\. The full output is kept in the log\.\]$/;

export const toolOutputCapped = defineInvariant({
  id: 'tool-output-capped',
  title: 'the tool output (or error) the model reads is capped, and a cut is marked with numbers that add up',
  appliesTo: loopgateOnly('tool results as the model reads them are in loopgate’s event log'),
  check: (run) => outputsCapped(run),
});

function outputsCapped(run: ScenarioRun): string | undefined {
  const limit = run.scenario.config.toolMaxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS;
  for (const e of viewOf(run).known) {
    if (e.type !== 'tool.result' || LOOP_NOTICES.has(e.payload.error?.error_code ?? '')) continue;
    const { content, truncatedFrom, callId, error } = (e as Extract<LogEvent, { type: 'tool.result' }>).payload;
    const where = `the result of ${callId} (seq ${e.seq})`;
    const message = error === undefined ? undefined : errorMessageCapped(error.error_message, Math.max(1, Math.floor(limit / 2)));
    if (message) return `${where}: its error message ${message}`;
    const marker = MARKER.exec(content);
    if (!marker) {
      if (content.length > limit) return `${where} is ${content.length} characters, over the ${limit} the model may read, and not marked as cut`;
      if (truncatedFrom !== undefined) return `${where} says it was cut from ${truncatedFrom} characters, but its text carries no marker`;
      continue;
    }
    const [first, total, cut] = marker.slice(1).map(Number) as [number, number, number];
    const shown = content.length - marker[0].length;
    if (shown !== first) return `${where} says it shows the first ${first} characters, but shows ${shown}`;
    if (first > limit || first < limit - 1) return `${where} shows ${first} characters of a cut output, not the ${limit} the cap allows`;
    if (first + cut !== total) return `${where}: ${first} shown + ${cut} cut is not the ${total} it says the output had`;
    if (truncatedFrom !== total) return `${where} was cut from ${total} characters, but records truncatedFrom ${String(truncatedFrom)}`;
    if (total <= limit) return `${where} was cut although its ${total} characters fit the ${limit} cap`;
  }
  return undefined;
}

/**
 * A failed call's error message is cut to half the cap before the error is rendered (so the rendered error is rarely
 * cut again as a whole), with the same marker: its numbers must add up as the output's do. Redacting the message after
 * the cut instead of before changes what is shown under a marker that counted the unredacted text (outside probe 67,
 * tool-err-redact: fuzz missed it, whose errors were never cut whole by the outer cap).
 */
function errorMessageCapped(text: string, half: number): string | undefined {
  const marker = MARKER.exec(text);
  if (!marker)
    return text.length > half ? `is ${text.length} characters, over the ${half} (half the cap) an error message may hold, and not marked as cut` : undefined;
  const [first, total, cut] = marker.slice(1).map(Number) as [number, number, number];
  const shown = text.length - marker[0].length;
  if (shown !== first) return `says it shows the first ${first} characters, but shows ${shown}`;
  if (first > half || first < half - 1) return `shows ${first} characters of a cut message, not the ${half} (half the cap) it may hold`;
  if (first + cut !== total) return `says ${first} shown + ${cut} cut, not the ${total} it says the message had`;
  if (total <= half) return `was cut although its ${total} characters fit the ${half} (half the cap) it may hold`;
  return undefined;
}
