/**
 * Per-type event builders: the loop's own appends, without the generic deep copy.
 *
 * `EventLog.append` takes any payload and makes it safe in one generic pass: a
 * spread copy of every object, its values checked one by one, every key and
 * string redacted, everything frozen. The loop appends the same dozen shapes
 * thousands of times; for those, the builder of each type writes the payload
 * object itself, field by field, in the same key order the generic copy would
 * produce — and checks each field as the generic pass would: a string is
 * redacted, a number must be finite, a boolean passes, and anything else (an
 * object, an array, null, or a value that is not JSON at all) goes through the
 * generic copy (`toFrozenPlainData`) under the same path, so it is refused with
 * the same error. The result is the event `append` would have stored for that
 * payload, equal field for field (plain-data.test.ts and builders.test.ts check
 * this on generated inputs), built without the spread, the key list or the
 * per-key redaction.
 *
 * Keys: the generic pass redacts keys too. A builder's keys are fixed words
 * (`turn`, `callId`, ...); they are checked once per redactor, and should the
 * redactor change any of them (a configured secret equal to a field name), every
 * builder falls back to the generic append, which redacts them as before.
 *
 * Only this module holds the log's commit for built payloads (taken once, at
 * load: see `takeCommit` in event-log.ts), so nothing else can append a payload
 * that did not pass a builder or the generic copy.
 */
import { TRANSPORT_ERROR_KINDS, type AssistantBlock, type ModelDelta, type ModelResult, type ToolSpec, type Usage } from '../model/client.ts';
import { assertNever, type Outcome } from '../outcome.ts';
import type { Redactor } from '../redact/index.ts';
import { intentSchema, type EventPayload, type EventType, type Intent } from './catalogue.ts';
import type { Envelope } from './envelope.ts';
import { builtKind, takeCommit, type BuiltKind, type EventLog } from './event-log.ts';
import { frozenPlainAt, rememberChecked, toFrozenPlainData } from './plain-data.ts';

const commit = takeCommit();

type Redact = ((text: string) => string) | undefined;

/** Every key a builder writes. */
const BUILDER_KEYS = [
  'turn',
  'step',
  'attempt',
  'client',
  'model',
  'upTo',
  'prompt',
  'tools',
  'maxTokens',
  'temperature',
  'delta',
  'result',
  'type',
  'stopReason',
  'usage',
  'calls',
  'content',
  'text',
  'id',
  'name',
  'args',
  'repeatOf',
  'callId',
  'tool',
  'decision',
  'by',
  'rule',
  'sideEffect',
  'idempotencyKey',
  'status',
  'output',
  'error',
  'truncatedFrom',
  'durationMs',
  'attempts',
  'failed_tool',
  'error_code',
  'error_message',
  'suggestion',
  'intent',
  'source',
  'trigger',
  'dropped',
  'outcome',
  'steps',
  'toolCalls',
  'inputTokens',
  'outputTokens',
] as const;

/** Redactors known to leave every builder key as it is. */
const keysKept = new WeakMap<Redactor | ((text: string) => string), boolean>();

/** Can the builders write their keys as they are under this log's redactor? */
function buildable(log: EventLog): boolean {
  const redact = log.redactor;
  if (redact === undefined) return true;
  let kept = keysKept.get(redact);
  if (kept === undefined) {
    kept = BUILDER_KEYS.every((k) => redact(k) === k);
    keysKept.set(redact, kept);
  }
  return kept;
}

/**
 * A field as the generic copy would store it: a string redacted, a finite number
 * or a boolean as it is, anything else through the generic copy under the path
 * `root` + the keys given (so refused with the same error). The key list is only
 * made for that copy.
 */
function field(value: unknown, r: Redact, root: string, k1: string, k2?: string | number, k3?: string): unknown {
  switch (typeof value) {
    case 'string':
      return r ? r(value) : value;
    case 'number':
      if (Number.isFinite(value)) return value;
      break;
    case 'boolean':
      return value;
  }
  return frozenPlainAt(value, root, k3 !== undefined ? [k1, k2!, k3] : k2 !== undefined ? [k1, k2] : [k1], r);
}

function str(value: string, r: Redact, root: string, key: string): unknown {
  return typeof value === 'string' ? (r ? r(value) : value) : field(value, r, root, key);
}

function num(value: number, r: Redact, root: string, key: string): unknown {
  return typeof value === 'number' && Number.isFinite(value) ? value : field(value, r, root, key);
}

/** Freezes a payload a builder wrote, remembers it as checked, and appends it. */
function commitBuilt<T extends EventType>(log: EventLog, kind: BuiltKind & { readonly type: T }, payload: object): Envelope<T> {
  Object.freeze(payload);
  rememberChecked(payload);
  return commit(log, kind, payload) as Envelope<T>;
}

// Each type's envelope fields (version, ignorable), looked up once here rather than once per event.
const K_INBOX_RECEIVED = builtKind('inbox.received');
const K_TURN_OPENED = builtKind('turn.opened');
const K_USER_MESSAGE = builtKind('user.message');
const K_MODEL_REQUEST = builtKind('model.request');
const K_MODEL_DELTA = builtKind('model.delta');
const K_MODEL_RESULT = builtKind('model.result');
const K_ASSISTANT_MESSAGE = builtKind('assistant.message');
const K_POLICY_DECISION = builtKind('policy.decision');
const K_TOOL_STARTED = builtKind('tool.started');
const K_TOOL_RESULT = builtKind('tool.result');
const K_TURN_CLOSED = builtKind('turn.closed');
const K_TOOLS_DECLARED = builtKind('tools.declared');

// ---------------------------------------------------------------------------
// The builders, one per type the loop appends on its hot path. Each writes the
// keys in the order of the literal the loop passed to `append` before, and falls
// back to exactly that `append` when its keys would not survive the redactor.
// ---------------------------------------------------------------------------

const INBOX = 'inbox.received.payload';
const INTENTS: ReadonlySet<unknown> = new Set(intentSchema.options);
export function appendInboxReceived(log: EventLog, id: string, intent: Intent, text: string, source: string): Envelope<'inbox.received'> {
  // What `send` was given is a caller's, held to no type from JavaScript: a field the reader would refuse (a number
  // for an id, an intent the loop does not know) goes through `append`, which checks the payload's schema and refuses it.
  const asRead = typeof id === 'string' && INTENTS.has(intent) && typeof text === 'string' && typeof source === 'string';
  if (!asRead || !buildable(log)) return log.append('inbox.received', { id, intent, text, source });
  const r = log.redactor;
  return commitBuilt(log, K_INBOX_RECEIVED, {
    id: str(id, r, INBOX, 'id'),
    intent: str(intent, r, INBOX, 'intent'),
    text: str(text, r, INBOX, 'text'),
    source: str(source, r, INBOX, 'source'),
  });
}

const OPENED = 'turn.opened.payload';
export function appendTurnOpened(log: EventLog, turn: number, trigger: string): Envelope<'turn.opened'> {
  if (!buildable(log)) return log.append('turn.opened', { turn, trigger });
  const r = log.redactor;
  return commitBuilt(log, K_TURN_OPENED, { turn: num(turn, r, OPENED, 'turn'), trigger: str(trigger, r, OPENED, 'trigger') });
}

const USER = 'user.message.payload';
export function appendUserMessage(log: EventLog, turn: number, id: string, intent: Intent, text: string, dropped: boolean): Envelope<'user.message'> {
  if (!buildable(log)) return log.append('user.message', { turn, id, intent, text, ...(dropped ? { dropped: true } : {}) });
  const r = log.redactor;
  const p: Record<string, unknown> = {
    turn: num(turn, r, USER, 'turn'),
    id: str(id, r, USER, 'id'),
    intent: str(intent, r, USER, 'intent'),
    text: str(text, r, USER, 'text'),
  };
  if (dropped) p.dropped = true;
  return commitBuilt(log, K_USER_MESSAGE, p);
}

export interface ModelRequestFields {
  readonly turn: number;
  readonly step: number;
  readonly attempt: number;
  readonly client: string;
  readonly model: string;
  readonly upTo: number;
  readonly prompt: number;
  readonly tools: number;
  readonly maxTokens: number;
  readonly temperature: number | undefined;
}

const REQUEST = 'model.request.payload';
export function appendModelRequest(log: EventLog, f: ModelRequestFields): Envelope<'model.request'> {
  if (!buildable(log)) {
    const { temperature, ...rest } = f;
    return log.append('model.request', { ...rest, ...(temperature !== undefined ? { temperature } : {}) });
  }
  const r = log.redactor;
  const p: Record<string, unknown> = {
    turn: num(f.turn, r, REQUEST, 'turn'),
    step: num(f.step, r, REQUEST, 'step'),
    attempt: num(f.attempt, r, REQUEST, 'attempt'),
    client: str(f.client, r, REQUEST, 'client'),
    model: str(f.model, r, REQUEST, 'model'),
    upTo: num(f.upTo, r, REQUEST, 'upTo'),
    prompt: num(f.prompt, r, REQUEST, 'prompt'),
    tools: num(f.tools, r, REQUEST, 'tools'),
    maxTokens: num(f.maxTokens, r, REQUEST, 'maxTokens'),
  };
  if (f.temperature !== undefined) p.temperature = num(f.temperature, r, REQUEST, 'temperature');
  return commitBuilt(log, K_MODEL_REQUEST, p);
}

const DELTA = 'model.delta.payload';
export function appendModelDelta(log: EventLog, turn: number, step: number, attempt: number, delta: ModelDelta): Envelope<'model.delta'> {
  if (!buildable(log)) return log.append('model.delta', { turn, step, attempt, delta: { ...delta } });
  const r = log.redactor;
  return commitBuilt(log, K_MODEL_DELTA, {
    turn: num(turn, r, DELTA, 'turn'),
    step: num(step, r, DELTA, 'step'),
    attempt: num(attempt, r, DELTA, 'attempt'),
    delta: field({ ...delta }, r, DELTA, 'delta'),
  });
}

/** What `model.result` keeps of a result: its shape and usage, not the content (that is in assistant.message). */
export function summarizeResult(result: ModelResult, redact: (text: string) => string) {
  const base = {
    type: result.type,
    ...(result.stopReason !== undefined ? { stopReason: result.stopReason } : {}),
    ...(result.usage ? { usage: storedUsage(result.usage) } : {}),
  };
  switch (result.type) {
    case 'reply':
      return base;
    case 'tool_use':
      return { ...base, calls: result.calls.length };
    case 'max_tokens':
      return { ...base, partialToolCall: result.partialToolCall, text: redact(result.text) };
    case 'refusal':
      return { ...base, text: redact(result.text) };
    case 'unknown':
      return { ...base, stopReason: result.stopReason, text: redact(result.text) };
    case 'context_window_exceeded':
      return { ...base, at: result.at, message: redact(result.message) };
    case 'transport_error':
      // A team's own client may answer a kind the loop does not know: refused here, not stored where no reader accepts it.
      if (!(TRANSPORT_ERROR_KINDS as readonly string[]).includes(result.kind)) return assertNever(result.kind as never, 'transport error kind');
      return {
        ...base,
        kind: result.kind,
        message: redact(result.message),
        ...(result.status !== undefined ? { status: result.status } : {}),
        ...(result.retryAfterMs !== undefined ? { retryAfterMs: result.retryAfterMs } : {}),
      };
    default:
      return assertNever(result, 'model result');
  }
}

const RESULT = 'model.result.payload';
/**
 * `model.result`, with the summary `summarizeResult` gives (its texts redacted
 * with `redact`). A reply or a tool use — every step's — is summarized here
 * directly, to the same fields. (`redact` is passed, not a summarizing closure:
 * a closure per conversation handed to this shared function was kept alive by the
 * engine's optimized code, and every conversation with it.)
 */
export function appendModelResult(
  log: EventLog,
  turn: number,
  step: number,
  attempt: number,
  result: ModelResult,
  redact: (text: string) => string,
): Envelope<'model.result'> {
  if (!buildable(log)) return log.append('model.result', { turn, step, attempt, result: summarizeResult(result, redact) });
  const r = log.redactor;
  const p = {
    turn: num(turn, r, RESULT, 'turn'),
    step: num(step, r, RESULT, 'step'),
    attempt: num(attempt, r, RESULT, 'attempt'),
    result: result.type === 'reply' || result.type === 'tool_use' ? summaryOf(result, r) : field(summarizeResult(result, redact), r, RESULT, 'result'),
  };
  return commitBuilt(log, K_MODEL_RESULT, p);
}

/** What `summarizeResult` keeps of a reply or a tool use: type, stop reason, usage, and the number of calls. */
function summaryOf(result: Extract<ModelResult, { type: 'reply' | 'tool_use' }>, r: Redact): object {
  const s: Record<string, unknown> = { type: field(result.type, r, RESULT, 'result', 'type') };
  if (result.stopReason !== undefined) s.stopReason = field(result.stopReason, r, RESULT, 'result', 'stopReason');
  if (result.usage) s.usage = usageOf(result.usage, r);
  if (result.type === 'tool_use') s.calls = field(result.calls.length, r, RESULT, 'result', 'calls');
  return Object.freeze(s);
}

/**
 * A client's usage as the log stores it: a copy (symbol keys too, which the log
 * refuses), without the counts present but `undefined` — `Usage`'s type allows
 * `cacheReadTokens: undefined` for a count a provider did not report, and the log
 * reads it as left out rather than failing the turn over it.
 */
function storedUsage<U extends object>(usage: U): U {
  const u = { ...usage } as Record<string, unknown>;
  for (const key in u) if (u[key] === undefined) delete u[key];
  return u as U;
}

/**
 * `field({ ...usage })` — the usage as the generic copy stores it — built directly
 * when every value is a finite number (what a provider reports), no key is a
 * symbol and the redactor keeps every key (`inputTokens` and `outputTokens` are
 * builder keys, checked once per redactor); anything else takes the generic copy
 * of the same spread, so it is stored or refused exactly as before.
 */
function usageOf(usage: object, r: Redact): unknown {
  const u = storedUsage(usage) as Record<string, unknown>; // one read per property, as before
  for (const key in u) {
    const v = u[key];
    if (typeof v !== 'number' || !Number.isFinite(v)) return field(u, r, RESULT, 'result', 'usage');
    if (r && key !== 'inputTokens' && key !== 'outputTokens' && r(key) !== key) return field(u, r, RESULT, 'result', 'usage');
  }
  if (Object.getOwnPropertySymbols(u).length > 0) return field(u, r, RESULT, 'result', 'usage');
  return Object.freeze(u);
}

const ASSISTANT = 'assistant.message.payload';
/** `assistant.message` with the model's content as the log keeps it (`plainBlocks`: each block's fields, nothing else). */
export function appendAssistantMessage(log: EventLog, turn: number, step: number, content: readonly AssistantBlock[]): Envelope<'assistant.message'> {
  if (!buildable(log)) return log.append('assistant.message', { turn, step, content: plainBlocks(content) });
  const r = log.redactor;
  return commitBuilt(log, K_ASSISTANT_MESSAGE, {
    turn: num(turn, r, ASSISTANT, 'turn'),
    step: num(step, r, ASSISTANT, 'step'),
    content: contentOf(content, r),
  });
}

function contentOf(content: readonly AssistantBlock[], r: Redact): readonly object[] {
  const out = new Array<object>(content.length);
  for (let i = 0; i < content.length; i++) {
    const b = content[i]!;
    if (b.type === 'text') {
      out[i] = Object.freeze({ type: field('text', r, ASSISTANT, 'content', i, 'type'), text: field(b.text, r, ASSISTANT, 'content', i, 'text') });
      continue;
    }
    const block: Record<string, unknown> = {
      type: field('tool_call', r, ASSISTANT, 'content', i, 'type'),
      id: field(b.id, r, ASSISTANT, 'content', i, 'id'),
      name: field(b.name, r, ASSISTANT, 'content', i, 'name'),
      args: field(b.args ?? {}, r, ASSISTANT, 'content', i, 'args'),
    };
    if ('repeatOf' in b && typeof b.repeatOf === 'string') block.repeatOf = field(b.repeatOf, r, ASSISTANT, 'content', i, 'repeatOf');
    out[i] = Object.freeze(block);
  }
  return Object.freeze(out);
}

/** Assistant content as plain data for the log: the fields of each block, nothing else. */
export function plainBlocks(content: readonly AssistantBlock[]) {
  return content.map((b) =>
    b.type === 'text'
      ? { type: 'text' as const, text: b.text }
      : {
          type: 'tool_call' as const,
          id: b.id,
          name: b.name,
          args: b.args ?? {},
          ...('repeatOf' in b && typeof b.repeatOf === 'string' ? { repeatOf: b.repeatOf } : {}),
        },
  );
}

const POLICY = 'policy.decision.payload';
export function appendPolicyDecision(
  log: EventLog,
  turn: number,
  step: number,
  callId: string,
  tool: string,
  decision: 'allow' | 'deny',
  by: EventPayload<'policy.decision'>['by'],
  rule: string,
): Envelope<'policy.decision'> {
  if (!buildable(log)) return log.append('policy.decision', { turn, step, callId, tool, decision, by, rule });
  const r = log.redactor;
  return commitBuilt(log, K_POLICY_DECISION, {
    turn: num(turn, r, POLICY, 'turn'),
    step: num(step, r, POLICY, 'step'),
    callId: str(callId, r, POLICY, 'callId'),
    tool: str(tool, r, POLICY, 'tool'),
    decision: str(decision, r, POLICY, 'decision'),
    by: str(by, r, POLICY, 'by'),
    rule: str(rule, r, POLICY, 'rule'),
  });
}

export interface ToolStartedFields {
  readonly turn: number;
  readonly step: number;
  readonly callId: string;
  readonly name: string;
  readonly args: unknown;
  readonly sideEffect: EventPayload<'tool.started'>['sideEffect'];
  readonly attempt: number;
  readonly idempotencyKey: string | undefined;
}

const STARTED = 'tool.started.payload';
export function appendToolStarted(log: EventLog, f: ToolStartedFields): Envelope<'tool.started'> {
  if (!buildable(log)) {
    const { idempotencyKey, ...rest } = f;
    return log.append('tool.started', { ...rest, ...(idempotencyKey !== undefined ? { idempotencyKey } : {}) });
  }
  const r = log.redactor;
  const p: Record<string, unknown> = {
    turn: num(f.turn, r, STARTED, 'turn'),
    step: num(f.step, r, STARTED, 'step'),
    callId: str(f.callId, r, STARTED, 'callId'),
    name: str(f.name, r, STARTED, 'name'),
    args: field(f.args, r, STARTED, 'args'),
    sideEffect: str(f.sideEffect, r, STARTED, 'sideEffect'),
    attempt: num(f.attempt, r, STARTED, 'attempt'),
  };
  if (f.idempotencyKey !== undefined) p.idempotencyKey = str(f.idempotencyKey, r, STARTED, 'idempotencyKey');
  return commitBuilt(log, K_TOOL_STARTED, p);
}

export interface ToolResultFields {
  readonly turn: number;
  readonly step: number;
  readonly callId: string;
  readonly name: string;
  readonly status: EventPayload<'tool.result'>['status'];
  readonly content: string;
  readonly error: EventPayload<'tool.result'>['error'];
  readonly truncatedFrom: number | undefined;
  readonly durationMs: number;
  readonly attempts: number;
  /** Kept last when present (as `{ ...base, output }` placed it). */
  readonly output: unknown;
}

const TOOL_RESULT = 'tool.result.payload';
export function appendToolResult(log: EventLog, f: ToolResultFields): Envelope<'tool.result'> {
  if (!buildable(log)) {
    const base = {
      turn: f.turn,
      step: f.step,
      callId: f.callId,
      name: f.name,
      status: f.status,
      content: f.content,
      ...(f.error ? { error: f.error } : {}),
      ...(f.truncatedFrom !== undefined ? { truncatedFrom: f.truncatedFrom } : {}),
      durationMs: f.durationMs,
      attempts: f.attempts,
    };
    return log.append('tool.result', f.output !== undefined ? { ...base, output: f.output } : base);
  }
  const r = log.redactor;
  const p: Record<string, unknown> = {
    turn: num(f.turn, r, TOOL_RESULT, 'turn'),
    step: num(f.step, r, TOOL_RESULT, 'step'),
    callId: str(f.callId, r, TOOL_RESULT, 'callId'),
    name: str(f.name, r, TOOL_RESULT, 'name'),
    status: str(f.status, r, TOOL_RESULT, 'status'),
    content: str(f.content, r, TOOL_RESULT, 'content'),
  };
  if (f.error) p.error = field(f.error, r, TOOL_RESULT, 'error');
  if (f.truncatedFrom !== undefined) p.truncatedFrom = num(f.truncatedFrom, r, TOOL_RESULT, 'truncatedFrom');
  p.durationMs = num(f.durationMs, r, TOOL_RESULT, 'durationMs');
  p.attempts = num(f.attempts, r, TOOL_RESULT, 'attempts');
  if (f.output !== undefined) p.output = field(f.output, r, TOOL_RESULT, 'output');
  return commitBuilt(log, K_TOOL_RESULT, p);
}

export interface TurnClosedFields {
  readonly turn: number;
  readonly outcome: Outcome;
  readonly steps: number;
  readonly usage: Usage;
  readonly toolCalls: number;
}

const CLOSED = 'turn.closed.payload';
export function appendTurnClosed(log: EventLog, f: TurnClosedFields): Envelope<'turn.closed'> {
  if (!buildable(log)) return log.append('turn.closed', { turn: f.turn, outcome: f.outcome, steps: f.steps, usage: f.usage, toolCalls: f.toolCalls });
  const r = log.redactor;
  return commitBuilt(log, K_TURN_CLOSED, {
    turn: num(f.turn, r, CLOSED, 'turn'),
    outcome: field(f.outcome, r, CLOSED, 'outcome'),
    steps: num(f.steps, r, CLOSED, 'steps'),
    usage: field(f.usage, r, CLOSED, 'usage'),
    toolCalls: num(f.toolCalls, r, CLOSED, 'toolCalls'),
  });
}

/**
 * `tools.declared` for a tool list: the payload `append` would store, made once
 * per list and redactor and shared by every log that declares the same list (the
 * executor's spec list is frozen and outlives its conversations).
 */
export function appendToolsDeclared(log: EventLog, tools: readonly ToolSpec[]): Envelope<'tools.declared'> {
  const literal = () => ({ tools: tools.map((t) => ({ name: t.name, description: t.description, inputSchema: { ...t.inputSchema } })) });
  if (!Object.isFrozen(tools)) return log.append('tools.declared', literal());
  const r = log.redactor;
  let byRedactor = declaredPayloads.get(tools);
  if (byRedactor === undefined) declaredPayloads.set(tools, (byRedactor = new Map()));
  let payload = byRedactor.get(r);
  if (payload === undefined) {
    payload = toFrozenPlainData(literal(), 'tools.declared.payload', r) as object;
    byRedactor.set(r, payload);
  }
  rememberChecked(payload);
  return commit(log, K_TOOLS_DECLARED, payload) as Envelope<'tools.declared'>;
}

const declaredPayloads = new WeakMap<readonly ToolSpec[], Map<Redact, object>>();
