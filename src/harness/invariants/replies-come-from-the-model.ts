/**
 * A turn's reply is one a model call of the case returned: the text of a result
 * the client handed back (as redacted for the log), never one the loop
 * made up. A loop that answers a provider outage with "Sorry, I couldn't do that
 * right now." and reports `replied` tells the client the model answered when no
 * model did; dashboards count it a success, and the customer's question is
 * dropped (outside probe 37, F3: such a loop passed every invariant).
 *
 * Read from the model calls as the harness recorded them at the client boundary
 * (`responses`), against each turn's reported reply (where it reads `[REDACTED]`,
 * any run of the model's text: the loop only ever replaces): loopgate's own turns and
 * another loop's alike. A case whose model calls went over the wire from a peer's
 * own provider package is not judged: the harness saw no result, only HTTP.
 *
 * Another loop may end a turn on a tool's output by design (OpenAI Agents'
 * `toolUseBehavior: { stopAtToolNames }`): a peer's reply that is the output of a
 * tool call its persisted history holds is the tool's, not made up either.
 */
import { REDACTED, type Message } from '../../kernel/index.ts';
import type { ProviderCall } from '../world/recording-model.ts';
import { defineInvariant, type AnyRun } from './invariant.ts';
import { isPeerRun } from '../loop-port/peer-run.ts';

export const repliesComeFromTheModel = defineInvariant({
  id: 'replies-come-from-the-model',
  title: 'every reply a turn gives is the text of a reply a model call of the case returned, never one the loop made up',
  appliesTo: (run) => (isPeerRun(run) && run.wire ? "the peer's own provider package called the wire: the harness saw no model result" : undefined),
  check: (run) =>
    madeUp(
      run,
      run.results.map((r) => ({ turn: r.turn, reply: r.reply })),
    ),
  checkObservable: (run) =>
    madeUp(
      run,
      run.reports.map((r) => ({ turn: r.turn, reply: r.reply })),
      isPeerRun(run) ? toolOutputsIn(run.histories) : [],
    ),
});

/** The texts of the tool results a peer's persisted histories hold. */
function toolOutputsIn(histories: readonly (readonly Message[])[]): string[] {
  const out = new Set<string>();
  for (const history of histories)
    for (const m of history)
      if (m.role === 'user' && Array.isArray(m.content))
        for (const b of m.content) if (b.type === 'tool_result' && typeof b.content === 'string') out.add(b.content);
  return [...out];
}

function madeUp(
  run: AnyRun,
  turns: readonly { readonly turn: number; readonly reply?: string | undefined }[],
  toolOutputs: readonly string[] = [],
): string | undefined {
  // As the model sent it, or as loopgate's loop keeps it: half a surrogate pair made U+FFFD (kernel/model/well-formed-result.ts).
  const replies = repliesIn(run.responses);
  const returned = [...replies, ...replies.filter((text) => !text.isWellFormed()).map((text) => text.toWellFormed()), ...toolOutputs];
  const exact = new Set(returned);
  for (const { turn, reply } of turns) {
    if (reply === undefined || exact.has(reply) || returned.some((text) => redactedFrom(reply, text))) continue;
    return `turn ${turn} replied ${JSON.stringify(reply.length > 120 ? `${reply.slice(0, 119)}…` : reply)}, which no model call of the case returned`;
  }
  return undefined;
}

/**
 * Is `reply` the model's `text` with some of it redacted — each `[REDACTED]` standing for a run of the text (a
 * secret the run knew, in some form, perhaps one a reopened host gained)? Read as the text around each marker, in
 * order, with the marker's runs between: whatever redactor the loop had, it only ever replaces.
 */
function redactedFrom(reply: string, text: string): boolean {
  if (!reply.includes(REDACTED)) return false;
  const parts = reply.split(REDACTED);
  if (!text.startsWith(parts[0]!) || !text.endsWith(parts[parts.length - 1]!)) return false;
  let at = parts[0]!.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const found = text.indexOf(parts[i]!, at);
    if (found < 0) return false;
    at = found + parts[i]!.length;
  }
  return at <= text.length - parts[parts.length - 1]!.length;
}

/**
 * The texts the model calls returned: a reply's, and those of a result cut by the token limit or refused (a loop that
 * passes such a text on as a reply is judged by the outcome it reports, not here: the text is the model's).
 */
function repliesIn(responses: readonly ProviderCall[]): string[] {
  return responses.flatMap((r) => {
    const result = r.settled === 'result' ? r.result : undefined;
    return result && (result.type === 'reply' || result.type === 'max_tokens' || result.type === 'refusal') ? [result.text] : [];
  });
}
