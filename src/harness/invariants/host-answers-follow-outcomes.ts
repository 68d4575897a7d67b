/**
 * The production host answers each message with what became of it: the HTTP
 * status of a request a turn answered is the one documented for that turn's
 * outcome (README, "Running the production host"), the reply is there exactly
 * when the turn replied — and it is the text of the turn's last assistant
 * message — and the turn's summary repeats what the log records: the close's
 * outcome, steps, tool calls and tokens, the messages the turn returned to
 * the inbox, the calls left in doubt (each call of the turn whose result is
 * `unknown`: cut off by a cancel, a timeout or a crash while running; and each
 * STATEFUL or CRITICAL call that ran and then failed, TOOL_ERROR or
 * INVALID_OUTPUT — what a client must check before it retries), the calls that
 * took effect (each STATEFUL or CRITICAL call that ran and returned ok: a turn
 * that then failed told no one of them), and the turn's cost, billed here again
 * from the log's usage at the gate's reference prices (the host's YAML has
 * them); for a turn that failed rate-limited or with the provider unavailable,
 * the seconds left of the retry-after the provider named (a deploy's
 * `Retry-After`). A client (a web app, a
 * queue worker) decides on the status alone whether to show the reply, retry
 * later or give up; a failed turn answered 200 is a failure shown as a success.
 *
 * The status table is written here, from the documentation, not taken from the
 * host's code.
 */
import { createRedactor, REDACTED, redactSecretPieces, type LogEvent } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { label, viewOf } from './support/log-view.ts';
import { referenceBill, sameAmount, uncountable } from '../world/reference-prices.ts';

/** The documented status of a request answered by a turn that ended so (by outcome kind, then by failure reason). */
const STATUS_BY_KIND: Readonly<Record<string, number>> = {
  replied: 200,
  nothing_to_do: 200,
  cancelled: 499,
  rejected: 403,
  conversation_full: 409,
  interrupted: 503,
};
const STATUS_BY_FAILURE: Readonly<Record<string, number>> = {
  rate_limited: 429,
  provider_unavailable: 502,
  auth: 502,
  persistence: 503,
  internal: 500,
  max_steps: 422,
  budget_exhausted: 422,
  refusal: 422,
  max_tokens: 422,
  unknown_stop_reason: 422,
  empty_reply: 422,
  invalid_request: 422,
};

/** The status for an outcome label (`replied`, `failed{max_steps}`, `cancelled{user}`), or undefined for a label outside the alphabet. */
export function documentedStatus(outcome: string): number | undefined {
  const failed = /^failed\{(.+)\}$/.exec(outcome);
  if (failed) return STATUS_BY_FAILURE[failed[1]!];
  return STATUS_BY_KIND[outcome.replace(/\{.*\}$/, '')];
}

export const hostAnswersFollowOutcomes = defineInvariant({
  id: 'host-answers-follow-outcomes',
  title: 'the production host answers a message with the status, reply and summary of the turn that took it',
  appliesTo: loopgateOnly('the production host’s answers are compared with loopgate’s event log'),
  check: (run) => answersFollowOutcomes(run),
});

function answersFollowOutcomes(run: ScenarioRun): string | undefined {
  if (!run.posts) return undefined;
  const closes = new Map<number, Extract<LogEvent, { type: 'turn.closed' }>>();
  for (const t of viewOf(run).turns) {
    const close = t.events.at(-1);
    if (close?.type === 'turn.closed') closes.set(t.turn, close as Extract<LogEvent, { type: 'turn.closed' }>);
  }
  const view = viewOf(run);
  const gained = run.scenario.secretsOnReopen ?? [];
  for (const [i, post] of run.posts.entries()) {
    const envelope = post.envelope;
    if (!envelope || envelope.turns.length === 0) continue;
    const where = `the answer to message ${i + 1} (${post.intent} "${post.text.slice(0, 40)}")`;
    // A process started after a reopen knows the secrets gained on it: nothing it answers holds one, the turns it reads back
    // from what the process before it stored included.
    if (post.process > 0 && gained.some((secret) => JSON.stringify(envelope).includes(secret)))
      return `${where}, from the process started on a reopen, holds a secret that process was given, unredacted`;
    const last = envelope.turns.at(-1)!;
    const status = documentedStatus(last.outcome);
    if (status === undefined) return `${where} names turn ${last.turn}'s outcome "${last.outcome}", which is not in the outcome alphabet`;
    if (envelope.status !== status)
      return `${where} has status ${envelope.status}, but its last turn (${last.turn}) ended ${last.outcome}, which is answered ${status}`;
    const replied = last.outcome === 'replied';
    if (replied !== (envelope.reply !== undefined))
      return replied
        ? `${where} carries no reply, but its last turn (${last.turn}) replied`
        : `${where} carries a reply, but its last turn (${last.turn}) ended ${last.outcome}`;
    for (const summary of envelope.turns) {
      // A close the store refused is not in the log read back; crash recovery's stands there instead.
      if (summary.outcome === 'failed{persistence}') continue;
      const close = closes.get(summary.turn)?.payload;
      if (!close) continue; // a turn of a process whose records a crash lost
      const logged = {
        outcome: label(close.outcome),
        steps: close.steps,
        toolCalls: close.toolCalls,
        inputTokens: close.usage.inputTokens,
        outputTokens: close.usage.outputTokens,
      };
      const told = {
        outcome: summary.outcome,
        steps: summary.steps,
        toolCalls: summary.toolCalls,
        inputTokens: summary.usage.inputTokens,
        outputTokens: summary.usage.outputTokens,
      };
      for (const key of Object.keys(logged) as (keyof typeof logged)[]) {
        if (told[key] !== logged[key])
          return `${where} summarizes turn ${summary.turn} with ${key} ${JSON.stringify(told[key])}, but the log's close records ${JSON.stringify(logged[key])}`;
      }
      const said = logged.outcome === 'replied' ? lastReplyOf(view.known, summary.turn) : undefined;
      // A secret the host gained on a reopen was stored before as plain text: the reopened host answers with it redacted.
      if (summary.reply !== said && (said === undefined || summary.reply !== hideGained(said, gained)))
        return `${where} gives turn ${summary.turn}'s reply as ${around(summary.reply, said)}, but the turn's last assistant message says ${around(said, summary.reply)}`;
      const returned = returnedBy(view.known, summary.turn);
      if (JSON.stringify(summary.returnedToInbox) !== JSON.stringify(returned))
        return `${where} lists ${JSON.stringify(summary.returnedToInbox)} as returned to the inbox by turn ${summary.turn}, but the log returns ${JSON.stringify(returned)}`;
      const doubt = inDoubtIn(view.known, summary.turn);
      const toldCalls = summary.inDoubt ?? [];
      const toldDoubt = toldCalls.map((c) => `${c.tool} (call ${c.call}): ${c.code}`);
      const loggedDoubt = doubt.map((c) => `${c.tool} (call ${c.call}): ${c.code}`);
      // The tool and its code as logged; the call id as logged, or with a secret in it redacted (and nothing else changed).
      const sameCall = (k: number) =>
        toldCalls[k]!.tool === doubt[k]!.tool && toldCalls[k]!.code === doubt[k]!.code && redactedFrom(toldCalls[k]!.call, doubt[k]!.call);
      if (toldCalls.length !== doubt.length || toldCalls.some((_, k) => !sameCall(k)))
        return `${where} names ${toldDoubt.length === 0 ? 'no call' : toldDoubt.join(', ')} in doubt for turn ${summary.turn}, but the log's calls in doubt are ${loggedDoubt.length === 0 ? 'none' : loggedDoubt.join(', ')}: a client told nothing is in doubt retries a call that may have run`;
      const answeredAt = post.answered?.at ?? closes.get(summary.turn)!.at;
      const wait = retryAfterLeft(view.known, closes.get(summary.turn)!, logged.outcome, answeredAt);
      if (summary.retryAfterSeconds !== wait)
        return wait === undefined
          ? `${where} tells a client of turn ${summary.turn} (${logged.outcome}) to retry after ${summary.retryAfterSeconds} s, but no retry-after the provider named runs past the answer (at ${answeredAt} ms)`
          : `${where} gives turn ${summary.turn} (${logged.outcome}) retryAfterSeconds ${JSON.stringify(summary.retryAfterSeconds)}, but a retry-after the provider named runs ${wait} s past the answer (at ${answeredAt} ms): a client told nothing retries into the window`;
      const done = doneIn(view.known, summary.turn);
      const toldDone = (summary.done ?? []).map((c) => `${c.tool} (call ${c.call})`);
      const loggedDone = done.map((c) => `${c.tool} (call ${c.call})`);
      const sameDone = (k: number) => summary.done![k]!.tool === done[k]!.tool && redactedFrom(summary.done![k]!.call, done[k]!.call);
      if (toldDone.length !== done.length || toldDone.some((_, k) => !sameDone(k)))
        return `${where} names ${toldDone.length === 0 ? 'no call' : toldDone.join(', ')} done for turn ${summary.turn}, but the log's STATEFUL or CRITICAL calls that ran and returned ok are ${loggedDone.length === 0 ? 'none' : loggedDone.join(', ')}: a client told nothing took effect retries a refund that went through`;
      const bill = billOf(view.known, summary.turn);
      const cost = summary.cost;
      if (!cost) return `${where} gives turn ${summary.turn} no cost, but the host's config prices every model the case names`;
      if (!sameAmount(cost.amount, bill.amount) || cost.unpricedCalls !== 0 || (cost.uncountedCalls ?? 0) !== bill.uncounted)
        return `${where} bills turn ${summary.turn} ${cost.amount} ${cost.currency} (${cost.unpricedCalls} unpriced, ${cost.uncountedCalls ?? 0} uncounted), but its ${bill.calls} model call(s) cost ${bill.amount} at the host's prices (${bill.uncounted} uncounted)`;
    }
    if (envelope.retryAfterSeconds !== last.retryAfterSeconds)
      return `${where} answers retryAfterSeconds ${JSON.stringify(envelope.retryAfterSeconds)}, its last turn's summary ${JSON.stringify(last.retryAfterSeconds)}`;
    if (envelope.reply !== last.reply)
      return `${where} answers the reply ${JSON.stringify(envelope.reply?.slice(0, 80))}, its last turn's summary ${JSON.stringify(last.reply?.slice(0, 80))}`;
    // A turn the store refused to record taking the message: the message is still pending in the store, and the
    // next turn runs it. The answer must say so (docs/storage.md), or a client retrying a 503 runs it twice.
    if (last.outcome === 'failed{persistence}' && envelope.messageId !== undefined) {
      const rerun = ranAgain(view.known, envelope.messageId, last);
      if (rerun && !(envelope.error ?? '').includes(STORED_NEXT_TURN))
        return `${where} was answered ${envelope.status} with turn ${last.turn} failed{persistence} (${JSON.stringify(envelope.error ?? 'no error')}), but the store kept the message pending (or gave it back) and turn ${rerun.turn} took it again (${rerun.outcome}): the answer must say "${STORED_NEXT_TURN}" (a client that retries a 503 runs it twice)`;
    }
  }
  return undefined;
}

/** `told` is `logged`, or `logged` with parts (secrets) replaced by the redaction marker and the rest as it was. */
function redactedFrom(told: string, logged: string): boolean {
  if (told === logged) return true;
  if (!told.includes(REDACTED)) return false;
  const parts = told.split(REDACTED);
  if (!logged.startsWith(parts[0]!) || !logged.endsWith(parts.at(-1)!)) return false;
  let at = parts[0]!.length;
  for (const part of parts.slice(1, -1)) {
    const found = logged.indexOf(part, at + 1);
    if (found < 0) return false;
    at = found + part.length;
  }
  return logged.length - parts.at(-1)!.length > at; // something was hidden before the last part
}

/**
 * The turn's calls that may have taken effect, in log order: those whose result is `unknown`, and STATEFUL or
 * CRITICAL calls that started and then failed after running (TOOL_ERROR: the body threw; INVALID_OUTPUT: it
 * returned what the log cannot keep), which the model is told may have taken effect.
 */
function inDoubtIn(known: readonly LogEvent[], turn: number): { call: string; tool: string; code: string }[] {
  const changesThings = new Set(
    known.flatMap((e) =>
      e.type === 'tool.started' && e.payload.turn === turn && (e.payload.sideEffect === 'STATEFUL' || e.payload.sideEffect === 'CRITICAL')
        ? [e.payload.callId]
        : [],
    ),
  );
  return known.flatMap((e) => {
    if (e.type !== 'tool.result' || e.payload.turn !== turn) return [];
    const code = e.payload.error?.error_code;
    const ranThenFailed = e.payload.status === 'failed' && (code === 'TOOL_ERROR' || code === 'INVALID_OUTPUT') && changesThings.has(e.payload.callId);
    return e.payload.status === 'unknown' || ranThenFailed ? [{ call: e.payload.callId, tool: e.payload.name, code: code ?? 'UNKNOWN' }] : [];
  });
}

/**
 * For a turn that failed `rate_limited` or `provider_unavailable`: the seconds (rounded up) from the answer to the end
 * of the latest retry-after window a provider named in the conversation up to the turn's close (each ends at its model
 * result's time plus its `retryAfterMs`; an earlier turn's window counts, as the loop keeps it); undefined for another
 * outcome, or when no window runs past the answer (README, "Running the production host").
 */
function retryAfterLeft(
  known: readonly LogEvent[],
  close: Extract<LogEvent, { type: 'turn.closed' }>,
  outcome: string,
  answeredAt: number,
): number | undefined {
  if (outcome !== 'failed{rate_limited}' && outcome !== 'failed{provider_unavailable}') return undefined;
  let until = -Infinity;
  for (const e of known) {
    if (e.seq > close.seq) break;
    const ms = e.type === 'model.result' ? e.payload.result.retryAfterMs : undefined;
    if (ms !== undefined) until = Math.max(until, e.at + ms);
  }
  return until > answeredAt ? Math.ceil((until - answeredAt) / 1000) : undefined;
}

/** The turn's STATEFUL or CRITICAL calls that ran and returned ok, in log order: what took effect. */
function doneIn(known: readonly LogEvent[], turn: number): { call: string; tool: string }[] {
  const changesThings = new Set(
    known.flatMap((e) =>
      e.type === 'tool.started' && e.payload.turn === turn && (e.payload.sideEffect === 'STATEFUL' || e.payload.sideEffect === 'CRITICAL')
        ? [e.payload.callId]
        : [],
    ),
  );
  return known.flatMap((e) =>
    e.type === 'tool.result' && e.payload.turn === turn && e.payload.status === 'ok' && changesThings.has(e.payload.callId)
      ? [{ call: e.payload.callId, tool: e.payload.name }]
      : [],
  );
}

/** The turn's model calls billed at the reference prices: a call with a count no number holds is uncounted, never billed. */
function billOf(known: readonly LogEvent[], turn: number): { amount: number; calls: number; uncounted: number } {
  let amount = 0;
  let calls = 0;
  let uncounted = 0;
  for (const e of known) {
    if (e.type !== 'model.result' || e.payload.turn !== turn) continue;
    calls++;
    const usage = e.payload.result.usage;
    if (usage === undefined) continue;
    if (uncountable(usage)) uncounted++;
    else amount += referenceBill(usage);
  }
  return { amount, calls, uncounted };
}

/** What the host says of a message whose turn failed{persistence} before its taking was stored (docs/storage.md). */
const STORED_NEXT_TURN = 'the message is stored and the next turn takes it';

/**
 * The stored turn that took the message again after the answered turn: either the message was taken more than once
 * (recovery gave it back to the inbox — the model had not seen it — and a later turn took it), or its one stored
 * taking is by a turn that ran to a close of its own — not recovery's `interrupted`, not `failed{persistence}`, and
 * not a close with the answered turn's number, steps and tool calls (its own close, stored by a later write: the
 * faulty store keeps a refused batch pending for the next write).
 */
function ranAgain(
  known: readonly LogEvent[],
  messageId: string,
  answered: { turn: number; steps: number; toolCalls: number },
): { turn: number; outcome: string } | undefined {
  const takings = known.filter((e): e is Extract<LogEvent, { type: 'user.message' }> => e.type === 'user.message' && e.payload.id === messageId);
  const last = takings.at(-1);
  if (!last) return undefined;
  const close = known.find((e) => e.type === 'turn.closed' && e.payload.turn === last.payload.turn) as Extract<LogEvent, { type: 'turn.closed' }> | undefined;
  const outcome = close ? label(close.payload.outcome) : 'open';
  if (takings.length > 1) return last.payload.turn === answered.turn ? undefined : { turn: last.payload.turn, outcome };
  if (!close || outcome === 'interrupted' || outcome === 'failed{persistence}') return undefined;
  if (last.payload.turn === answered.turn && close.payload.steps === answered.steps && close.payload.toolCalls === answered.toolCalls) return undefined;
  return { turn: last.payload.turn, outcome };
}

/** The text of the turn's last assistant message (the reply the loop reports), if it has text. */
function lastReplyOf(known: readonly LogEvent[], turn: number): string | undefined {
  for (let i = known.length - 1; i >= 0; i--) {
    const e = known[i]!;
    if (e.type !== 'assistant.message' || e.payload.turn !== turn) continue;
    const text = e.payload.content.flatMap((b) => (b.type === 'text' ? [b.text] : []));
    return text.length > 0 ? text.join('') : undefined;
  }
  return undefined;
}

/** The inbox message ids the turn gave back (a cancel before the model saw them), in order. */
function returnedBy(known: readonly LogEvent[], turn: number): string[] {
  return known.flatMap((e) => (e.type === 'inbox.returned' && e.payload.turn === turn ? e.payload.ids : []));
}

/** `text` with each secret gained on a reopen replaced by the redaction marker, as the reopened host shows it. */
/** `text` quoted, 80 characters of it from a little before where it first differs from `other` (two quotes that read the same said nothing). */
function around(text: string | undefined, other: string | undefined): string {
  if (text === undefined) return 'none';
  let at = 0;
  while (at < text.length && at < (other ?? '').length && text[at] === other![at]) at++;
  const from = Math.max(0, at - 20);
  return `${from > 0 ? '…' : ''}${JSON.stringify(text.slice(from, from + 80))}${from + 80 < text.length ? '…' : ''}`;
}

function hideGained(text: string, gained: readonly string[]): string {
  // In every form the redactor finds (a copy URL-encoded in a link the model wrote, base64, …), not its literal alone:
  // the reopened host redacts them all (outside probe 41, F3).
  const redact = createRedactor({ secrets: gained });
  return redactSecretPieces(redact(text), gained, REDACTED);
}
