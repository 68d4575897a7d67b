/**
 * The tool calls of a step as the loop records and runs them. What the model
 * sent is data, never trusted as an identifier or a shape:
 *
 * - ids and names pass the redactor first (a secret in a model-chosen id would
 *   otherwise reach every record, span and report that names the call);
 * - ids are unique in the conversation: one the model repeats gets a fresh one
 *   (`refund` → `refund_2`), as the protocol needs. When it repeats the id of an
 *   earlier call of the same tool *with the same arguments* it is a *repeat* of
 *   that call: it is linked to the first call of the chain (`repeatOf`), keeps
 *   its idempotency key, and a STATEFUL or CRITICAL repeat is not run once that
 *   call started (invariant 13). The same id with other arguments is a new call
 *   (servers that number calls per response, `call_0`, reuse ids), renamed and
 *   run on its own — and a later call that repeats *it* (`call_0` again, its tool
 *   and arguments) is its repeat: every call the id was given to, under its name
 *   or a rename (`call_0`, `call_0_2`, …), is compared (outside probe 48, HIGH-1:
 *   only the first was, and a repeated refund ran again); a renamed id the model
 *   copies back (`call_0_2`) names that call, and an id it chose itself that reads
 *   as a rename is taken for one. Within one step the same rule holds: a call
 *   sent twice in one answer (its id, tool and arguments — a duplicated stream
 *   event; providers give each call of an answer its own id) is one call and its
 *   repeat (outside probe 52, MED-3: a CRITICAL payment so sent ran twice, under
 *   two idempotency keys); two calls sharing an id with other arguments are two
 *   calls (a provider's collision), each run on its own;
 * - arguments nested deeper than MAX_ARGUMENT_DEPTH are kept in the log cut at
 *   the limit (the pipeline refuses them with INVALID_ARGUMENTS), so no recursive
 *   walker ever meets them.
 */
import { canonicalJson } from '../canonical-json.ts';
import { isKnown } from '../log/envelope.ts';
import type { EventLog } from '../log/event-log.ts';
import type { AssistantBlock, ToolCall } from '../model/client.ts';
import { redactDeep, type Redactor } from '../redact/index.ts';
import { cutAtDepth, nestedDeeperThan } from '../tools/argument-depth.ts';

export interface PlannedCall {
  /** What the pipeline runs: the fresh id, the redacted name, the arguments as the model sent them. */
  readonly call: ToolCall;
  /** The first call of the chain this one repeats. */
  readonly repeatOf: string | undefined;
}

export interface PlannedStep {
  readonly calls: readonly PlannedCall[];
  /** The assistant content as the log keeps it: call blocks with the planned ids, names and (cut) arguments, and the repeat links. */
  readonly content: AssistantBlock[];
}

/** A call planned earlier in the same step, as a later one sharing its id compares with it. */
interface InStep {
  readonly name: string;
  readonly args: unknown;
  readonly repeatOf: string | undefined;
  kept?: string;
}

export function planStepCalls(calls: readonly ToolCall[], content: readonly AssistantBlock[], log: EventLog, redact: Redactor): PlannedStep {
  // The calls planned so far in this step by id, made once a second call needs them.
  let taken: Map<string, InStep> | undefined;
  const planned = calls.map((c, i): PlannedCall => {
    const given = c.id ? redact(c.id) : '';
    const name = redact(c.name);
    const repeatOf = given ? repeated(log, taken, given, name, c.args, redact) : undefined;
    let id = given || `call_${log.length}_${i}`;
    for (let n = 2; taken?.has(id) || log.positions.call(id); n++) id = `${given || 'call'}_${n}`;
    if (calls.length > 1) (taken ??= new Map<string, InStep>()).set(id, { name, args: c.args, repeatOf });
    return { call: id === c.id && name === c.name ? c : { ...c, id, name }, repeatOf };
  });
  return { calls: planned, content: recordedContent(content, planned) };
}

/**
 * The first call of the chain a call given `given` (redacted) repeats: the first of the calls recorded under `given`
 * or a rename of it (`given_2`, `given_3`, … — the loop's renames of that id, taken in order until one is missing),
 * in earlier steps or earlier in this one, with the same tool and arguments; or nothing.
 */
function repeated(
  log: EventLog,
  inStep: ReadonlyMap<string, InStep> | undefined,
  given: string,
  name: string,
  args: unknown,
  redact: Redactor,
): string | undefined {
  let kept: string | undefined; // the arguments as the log would keep them, made once a call of the tool is met
  for (let n = 1; ; n++) {
    const id = n === 1 ? given : `${given}_${n}`;
    const earlier = log.positions.call(id);
    if (earlier) {
      if (earlier.name !== name) continue;
      kept ??= keptArguments(args, redact);
      if (sameArguments(log, earlier.assistantSeq, id, kept)) return earlier.repeatOf ?? id;
      continue;
    }
    const before = inStep?.get(id);
    if (!before) return undefined;
    if (before.name !== name) continue;
    kept ??= keptArguments(args, redact);
    before.kept ??= keptArguments(before.args, redact);
    if (before.kept === kept) return before.repeatOf ?? id;
  }
}

/** Arguments as the log keeps them — cut at the depth limit, redacted — in canonical JSON (key order aside). */
function keptArguments(args: unknown, redact: Redactor): string {
  const sent = args ?? {};
  return canonicalJson(redactDeep(nestedDeeperThan(sent) ? cutAtDepth(sent) : sent, redact));
}

/**
 * Whether the call `id` recorded in the assistant message at `seq` had these
 * arguments, compared as the log keeps them — cut at the depth limit, redacted —
 * and whatever the order of their keys. (Compared as the model sent them, a
 * secret in the arguments would never match its redacted record: a repeated
 * refund would run again under a fresh idempotency key.)
 */
function sameArguments(log: EventLog, seq: number, id: string, kept: string): boolean {
  const event = log.at(seq);
  if (event === undefined || !isKnown(event) || event.type !== 'assistant.message') return false;
  return event.payload.content.some((b) => b.type === 'tool_call' && b.id === id && canonicalJson(b.args ?? {}) === kept);
}

/** Content with each call block replaced by its planned call, in order; calls the provider reported without blocks appended. */
function recordedContent(content: readonly AssistantBlock[], planned: readonly PlannedCall[]): AssistantBlock[] {
  let k = 0;
  const out: AssistantBlock[] = [];
  for (const b of content) {
    if (b.type !== 'tool_call') {
      out.push(b);
      continue;
    }
    const p = planned[k++];
    out.push(p ? block(p, b.args ?? {}) : b);
  }
  for (; k < planned.length; k++) out.push(block(planned[k]!, planned[k]!.call.args ?? {}));
  return out;
}

/** A planned call's block (repeatOf only when it repeats one). */
function block(p: PlannedCall, given: unknown): AssistantBlock {
  const args = nestedDeeperThan(given) ? cutAtDepth(given) : given;
  return p.repeatOf !== undefined
    ? ({ type: 'tool_call', id: p.call.id, name: p.call.name, args, repeatOf: p.repeatOf } as AssistantBlock)
    : { type: 'tool_call', id: p.call.id, name: p.call.name, args };
}
