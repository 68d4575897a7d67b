/**
 * The "limit" contender: a hand-written loop doing the same logical work as
 * loopgate's step, and nothing else — so the ratio to it says how far loopgate is
 * from what this work costs at all on this machine and runtime.
 *
 * Per run, as loopgate: the user message (inbox.received, turn.opened,
 * user.message), then per step a model.request, the model's answer (awaited, as
 * a promise), model.result and assistant.message; per tool call a
 * policy.decision, tool.started, the zod-checked call, its zod-checked output and
 * tool.result; at the end turn.closed. Every event: its payload checked to be
 * plain JSON data (no functions, NaN, class instances, cycles) and every string
 * in it passed through the same redactor, frozen, with its position checked (the
 * call a result answers exists and has no result yet), stamped, appended. One
 * store write per step (a batch of frozen records, seqs checked, awaited). Three
 * spans per tool step (model call, tool, policy) under a turn span, attributes
 * redacted. The message list grows by what the step added.
 *
 * What it leaves out is what loopgate adds beyond that logical work: the state
 * machine, budgets, cancellation, timeouts, retries, compaction, the prompt
 * assembler, lenient argument parsing, truncation, recovery.
 */
import type { Redactor } from '../../src/kernel/redact/index.ts';
import { createRedactor } from '../../src/kernel/redact/index.ts';
import { add, addInput, addOutput, argsAt, FINAL_TEXT, PROMPT, STEPS_PER_RUN, SYSTEM, TOOL_NAME } from './scenario.ts';

interface Event {
  readonly seq: number;
  readonly type: string;
  readonly at: number;
  readonly payload: unknown;
}

interface Span {
  readonly id: number;
  readonly parent: number;
  readonly kind: string;
  readonly name: string;
  readonly start: number;
  end: number;
  status: string;
  attributes: Record<string, string | number | boolean>;
}

type Answer =
  | { readonly type: 'tool_use'; readonly id: string; readonly name: string; readonly args: unknown }
  | { readonly type: 'reply'; readonly text: string };

/**
 * A checked frozen copy of plain JSON data with every string redacted, keys too —
 * for the fields whose shape is the model's or the tool's (arguments, output).
 * Objects are copied with a spread: one read per property, fast shapes.
 */
function frozenPlain(value: unknown, redact: Redactor, depth = 0): unknown {
  switch (typeof value) {
    case 'string':
      return redact(value);
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError('not JSON data');
      return value;
    case 'object':
      break;
    default:
      throw new TypeError('not JSON data');
  }
  if (value === null) return null;
  if (depth > 64) throw new TypeError('too deep');
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = frozenPlain(value[i], redact, depth + 1);
    return Object.freeze(out);
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) throw new TypeError('not plain data');
  const out: Record<string, unknown> = { ...value };
  for (const key in out) {
    if (redact(key) !== key) throw new TypeError('a key holds a secret');
    const v = out[key];
    if (typeof v === 'object' || typeof v === 'string') out[key] = frozenPlain(v, redact, depth + 1);
    else frozenPlain(v, redact, depth + 1);
  }
  return Object.freeze(out);
}

/** The checks of a typed field: a non-negative integer, a string (redacted). */
function int(n: number): number {
  if (!Number.isInteger(n) || n < 0) throw new TypeError('not a count');
  return n;
}
function text(s: string, redact: Redactor): string {
  if (typeof s !== 'string') throw new TypeError('not text');
  return redact(s);
}

class LimitStore {
  readonly #records: Event[] = [];
  async append(batch: readonly Event[]): Promise<void> {
    if (batch.length > 0 && batch[0]!.seq !== this.#records.length) throw new Error('seq conflict');
    for (const r of batch) this.#records.push(r);
  }
  get length(): number {
    return this.#records.length;
  }
}

function scriptedModel(): (messages: readonly unknown[]) => Promise<Answer> {
  let step = 0;
  let calls = 0;
  return () => {
    const k = step++;
    if (k === STEPS_PER_RUN - 1) return Promise.resolve({ type: 'reply', text: FINAL_TEXT });
    return Promise.resolve({ type: 'tool_use', id: `call_${calls++}`, name: TOOL_NAME, args: argsAt(k) });
  };
}

export function limitContender() {
  const redact = createRedactor({ secrets: [] });
  let toolRuns = 0;

  async function once(): Promise<{ steps: number; reply: string | undefined; modelCalls: number }> {
    const model = scriptedModel();
    const store = new LimitStore();
    const events: Event[] = [];
    const spans: Span[] = [];
    const results = new Map<string, number | undefined>();
    const messages: unknown[] = [];
    let flushed = 0;
    let modelCalls = 0;
    let now = Date.now();
    // Each payload is built by the step from checked fields (as a hand-written loop would), frozen, appended.
    const append = (type: string, payload: object): Event => {
      const event = Object.freeze({ seq: events.length, type, at: now, payload: Object.freeze(payload) });
      events.push(event);
      return event;
    };
    const T = (s: string) => text(s, redact);
    const frozen = <V extends object>(v: V): V => Object.freeze(v);
    const flush = () => {
      const batch = events.slice(flushed);
      flushed = events.length;
      return store.append(batch);
    };
    const span = (parent: number, kind: string, name: string, attributes: Span['attributes']): Span => {
      const s: Span = { id: spans.length, parent, kind, name: redact(name), start: now, end: 0, status: '', attributes: {} };
      for (const k of Object.keys(attributes)) {
        const v = attributes[k]!;
        s.attributes[k] = typeof v === 'string' ? redact(v) : v;
      }
      spans.push(s);
      return s;
    };
    const end = (s: Span, status: string) => {
      s.end = now;
      s.status = status;
    };

    append('inbox.received', { id: T('m0'), intent: T('follow_up'), text: T(PROMPT), source: T('user') });
    append('turn.opened', { turn: int(0), trigger: T('m0') });
    const turnSpan = span(-1, 'turn', 'turn 0', { turn: 0 });
    append('user.message', { turn: int(0), id: T('m0'), intent: T('follow_up'), text: T(PROMPT) });
    messages.push(Object.freeze({ role: 'user', content: Object.freeze([{ type: 'text', text: PROMPT }]) }));
    append('prompt.assembled', { system: T(SYSTEM), fragments: frozen([frozen({ id: T('identity'), priority: -100 })]) });
    await flush();
    let reply: string | undefined;
    let steps = 0;
    for (;;) {
      steps++;
      now = Date.now();
      append('model.request', {
        turn: int(0),
        step: int(steps),
        attempt: int(1),
        client: T('limit'),
        model: T('bench'),
        upTo: int(events.length),
        prompt: int(3),
        tools: int(3),
        maxTokens: int(4096),
      });
      const modelSpan = span(turnSpan.id, 'model_call', 'limit', { step: steps });
      const answer = await model(messages);
      modelCalls++;
      now = Date.now();
      end(modelSpan, 'ok');
      append('model.result', {
        turn: int(0),
        step: int(steps),
        attempt: int(1),
        result: frozen({ type: T(answer.type), usage: frozen({ inputTokens: int(20), outputTokens: int(10) }) }),
      });
      if (answer.type === 'reply') {
        append('assistant.message', { turn: int(0), step: int(steps), content: frozen([frozen({ type: T('text'), text: T(answer.text) })]) });
        messages.push(Object.freeze({ role: 'assistant', content: Object.freeze([{ type: 'text', text: answer.text }]) }));
        reply = answer.text;
        break;
      }
      const block = frozen({ type: T('tool_call'), id: T(answer.id), name: T(answer.name), args: frozenPlain(answer.args, redact) });
      const made = append('assistant.message', { turn: int(0), step: int(steps), content: frozen([block]) });
      if (results.has(answer.id)) throw new Error('call id reused');
      results.set(answer.id, undefined);
      messages.push(Object.freeze({ role: 'assistant', content: (made.payload as { content: unknown }).content }));
      const toolSpan = span(turnSpan.id, 'tool', answer.name, { tool: answer.name, callId: answer.id });
      const policySpan = span(toolSpan.id, 'policy', 'policy', { callId: answer.id });
      append('policy.decision', {
        turn: int(0),
        step: int(steps),
        callId: T(answer.id),
        tool: T(answer.name),
        decision: T('allow'),
        by: T('policy'),
        rule: T('default'),
      });
      end(policySpan, 'ok');
      const parsed = addInput.safeParse(answer.args);
      if (!parsed.success) throw new Error('bad arguments');
      const args = frozenPlain(parsed.data, redact) as typeof parsed.data;
      append('tool.started', { turn: int(0), step: int(steps), callId: T(answer.id), name: T(answer.name), args, sideEffect: T('NONE'), attempt: int(1) });
      toolRuns++;
      const output = addOutput.safeParse(add(args));
      if (!output.success) throw new Error('bad output');
      const content = redact(JSON.stringify(output.data));
      if (!results.has(answer.id) || results.get(answer.id) !== undefined) throw new Error('result without its call');
      const result = append('tool.result', {
        turn: int(0),
        step: int(steps),
        callId: T(answer.id),
        name: T(answer.name),
        status: T('ok'),
        content,
        output: frozenPlain(output.data, redact),
        durationMs: int(0),
        attempts: int(1),
      });
      results.set(answer.id, result.seq);
      end(toolSpan, 'ok');
      messages.push(Object.freeze({ role: 'user', content: Object.freeze([{ type: 'tool_result', callId: answer.id, status: 'ok', content }]) }));
      await flush();
    }
    append('turn.closed', {
      turn: int(0),
      outcome: frozen({ kind: T('replied') }),
      steps: int(steps),
      usage: frozen({ inputTokens: int(20 * steps), outputTokens: int(10 * steps) }),
      toolCalls: int(steps - 1),
    });
    end(turnSpan, 'ok');
    await flush();
    if (store.length !== events.length) throw new Error('store lost events');
    return { steps, reply, modelCalls };
  }

  return {
    name: 'limit (hand-written loop, same logical work)',
    async run(): Promise<number> {
      return (await once()).steps;
    },
    async check() {
      const before = toolRuns;
      const { reply, modelCalls } = await once();
      return { toolRuns: toolRuns - before, finalText: reply, modelCalls };
    },
  };
}
