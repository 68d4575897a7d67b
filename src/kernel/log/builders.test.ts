import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AssistantBlock, ModelDelta, ModelResult } from '../model/client.ts';
import { createRedactor, type Redactor } from '../redact/index.ts';
import {
  appendAssistantMessage,
  appendInboxReceived,
  appendModelDelta,
  appendModelRequest,
  appendModelResult,
  appendPolicyDecision,
  appendToolResult,
  appendToolStarted,
  appendToolsDeclared,
  appendTurnClosed,
  appendTurnOpened,
  appendUserMessage,
  plainBlocks,
  summarizeResult,
} from './builders.ts';
import { EVENT_SCHEMAS, type EventPayload, type EventType } from './catalogue.ts';
import { LogAppendError } from './errors.ts';
import { EventLog, takeCommit } from './event-log.ts';
import { toFrozenPlainData } from './plain-data.ts';

const SECRET = 'sk-live-0123456789abcdef';

/** A log with an open turn, a recorded prompt and tools, an inbox message and a tool call `c1`: every builder's positions exist. */
function prepared(redact: Redactor | undefined): EventLog {
  const log = new EventLog({ now: () => 7 }, [], redact ? { redact } : {});
  log.append('prompt.assembled', { system: 's', fragments: [] });
  log.append('tools.declared', { tools: [] });
  log.append('inbox.received', { id: 'm1', intent: 'follow_up', text: 'hi', source: 'user' });
  log.append('turn.opened', { turn: 0, trigger: 'm1' });
  log.append('assistant.message', { turn: 0, step: 1, content: [{ type: 'tool_call', id: 'c1', name: 't', args: {} }] });
  return log;
}

type Outcome = { ok: true; event: unknown; keys: string } | { ok: false; field: string; reason: string } | { ok: false; other: string };

function run(fn: () => { payload: unknown }): Outcome {
  try {
    const event = fn();
    return { ok: true, event: JSON.parse(JSON.stringify(event)), keys: JSON.stringify(event) };
  } catch (error) {
    if (error instanceof LogAppendError) return { ok: false, field: error.field, reason: error.reason };
    return { ok: false, other: String(error) };
  }
}

function frozenDeep(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  return Object.isFrozen(value) && Object.values(value).every(frozenDeep);
}

/**
 * `append` is public, and refuses what the reader refuses (the catalogue's schema); the builders, for the
 * loop's typed callers on the hot path, run no zod: they are compared with it where the literal is plain data
 * the schema takes (plain data or not is checked first, by both; a literal that throws as it is made, by both too).
 */
function refusedBySchema(type: EventType, literal: () => unknown, redact: Redactor | undefined): boolean {
  try {
    return !EVENT_SCHEMAS[type].safeParse(toFrozenPlainData(literal(), 'payload', redact)).success;
  } catch {
    return false;
  }
}

/** The builder and `append` with the literal the loop used to pass: the same event, or the same refusal. */
function same<T extends EventType>(redact: Redactor | undefined, built: (log: EventLog) => unknown, type: T, literal: () => EventPayload<T>): void {
  const a = prepared(redact);
  const b = prepared(redact);
  const fromBuilder = run(() => built(a) as { payload: unknown });
  const fromAppend = run(() => b.append(type, literal()));
  if (refusedBySchema(type, literal, redact)) {
    expect(fromAppend.ok).toBe(false);
    return;
  }
  expect(fromBuilder).toEqual(fromAppend);
  if (fromBuilder.ok) {
    expect(a.events[a.length - 1]).toMatchObject({ type });
    expect(frozenDeep(a.events[a.length - 1])).toBe(true);
  } else {
    expect(a.length).toBe(b.length);
  }
}

/** Field values as a broken caller might pass them: JSON of every kind, secrets, and what JSON is not. */
const anyValue = fc.oneof(
  { weight: 6, arbitrary: fc.string() },
  { weight: 2, arbitrary: fc.constant(`key ${SECRET} here`) },
  { weight: 3, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constantFrom(null, undefined, Number.NaN, Number.POSITIVE_INFINITY, () => 1, new Date(0), 10n) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.constantFrom('a', SECRET, '__proto__'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }) },
);
const text = fc.oneof(fc.string(), fc.constant(SECRET), anyValue);
const count = fc.oneof({ weight: 5, arbitrary: fc.nat(50) }, { weight: 1, arbitrary: anyValue });
const redactors = fc.constantFrom<Redactor | undefined>(undefined, createRedactor({ secrets: [SECRET] }), createRedactor({ secrets: ['callId', SECRET] }));

describe('event builders: the event append would store, without the generic copy', () => {
  it('inbox.received, turn.opened, user.message', () => {
    fc.assert(
      fc.property(redactors, text, text, text, text, count, fc.boolean(), (r, id, intent, t, source, turn, dropped) => {
        same(
          r,
          (log) => appendInboxReceived(log, id as never, intent as never, t as never, source as never),
          'inbox.received',
          () => ({ id, intent, text: t, source }) as never,
        );
        same(
          r,
          (log) => appendUserMessage(log, 0, 'm1', intent as never, t as never, dropped),
          'user.message',
          () => ({ turn: 0, id: 'm1', intent, text: t, ...(dropped ? { dropped: true } : {}) }) as never,
        );
        const closed = prepared(r);
        closed.append('turn.closed', { turn: 0, outcome: { kind: 'replied' }, steps: 0, usage: { inputTokens: 0, outputTokens: 0 }, toolCalls: 0 });
        const a = run(() => appendTurnOpened(closed, turn as never, id as never));
        const b = prepared(r);
        b.append('turn.closed', { turn: 0, outcome: { kind: 'replied' }, steps: 0, usage: { inputTokens: 0, outputTokens: 0 }, toolCalls: 0 });
        const fromAppend = run(() => b.append('turn.opened', { turn, trigger: id } as never));
        if (refusedBySchema('turn.opened', () => ({ turn, trigger: id }), r)) expect(fromAppend.ok).toBe(false);
        else expect(a).toEqual(fromAppend);
      }),
      { numRuns: 300 },
    );
  });

  it('model.request, model.delta, model.result', () => {
    fc.assert(
      fc.property(redactors, count, text, text, fc.option(anyValue, { nil: undefined }), anyValue, (r, n, client, model, temperature, deltaText) => {
        const f = { turn: 0, step: n, attempt: 1, client, model, upTo: 2, prompt: 0, tools: 1, maxTokens: n, temperature };
        same(
          r,
          (log) => appendModelRequest(log, f as never),
          'model.request',
          () =>
            ({
              turn: 0,
              step: n,
              attempt: 1,
              client,
              model,
              upTo: 2,
              prompt: 0,
              tools: 1,
              maxTokens: n,
              ...(temperature !== undefined ? { temperature } : {}),
            }) as never,
        );
        const delta = { kind: 'text', text: deltaText } as unknown as ModelDelta;
        same(
          r,
          (log) => appendModelDelta(log, 0, 1, 1, delta),
          'model.delta',
          () => ({ turn: 0, step: 1, attempt: 1, delta: { ...delta } }) as never,
        );
        const results: ModelResult[] = [
          { type: 'reply', content: [], text: 'x', stopReason: client as never, usage: { inputTokens: n as never, outputTokens: deltaText as never } },
          { type: 'tool_use', content: [], calls: [], text: '', usage: { inputTokens: 1, outputTokens: 2, cacheReadTokens: n } } as never,
          // Usage built without the generic copy: other keys (a secret one among them: redacted), a symbol key.
          { type: 'reply', content: [], text: 'x', usage: { inputTokens: 1, outputTokens: 2, reasoningTokens: n, [SECRET]: n } } as never,
          { type: 'reply', content: [], text: 'x', usage: { inputTokens: 1, outputTokens: 2, [Symbol.for('usage')]: 3 } } as never,
          { type: 'refusal', text: client as never, stopReason: 'x' } as never,
        ];
        for (const result of results) {
          const redact = r ?? ((s: string) => s);
          same(
            r,
            (log) => appendModelResult(log, 0, 1, 1, result, redact),
            'model.result',
            () => ({ turn: 0, step: 1, attempt: 1, result: summarizeResult(result, redact) }) as never,
          );
        }
      }),
      { numRuns: 300 },
    );
  });

  it('assistant.message', () => {
    const block = fc.oneof(
      fc.record({ type: fc.constant('text' as const), text }),
      fc.record({
        type: fc.constant('tool_call' as const),
        id: text,
        name: text,
        args: fc.option(anyValue, { nil: undefined }),
        repeatOf: fc.option(text, { nil: undefined }),
      }),
    );
    fc.assert(
      fc.property(redactors, fc.array(block, { maxLength: 3 }), (r, content) => {
        const blocks = content as unknown as AssistantBlock[];
        // Fresh ids each time: a call id may be used once per conversation.
        same(
          r,
          (log) => appendAssistantMessage(log, 0, 2, blocks),
          'assistant.message',
          () => ({ turn: 0, step: 2, content: plainBlocks(blocks) }) as never,
        );
      }),
      { numRuns: 300 },
    );
  });

  it('policy.decision, tool.started, tool.result', () => {
    fc.assert(
      fc.property(
        redactors,
        text,
        anyValue,
        count,
        fc.option(text, { nil: undefined }),
        anyValue,
        fc.boolean(),
        (r, rule, args, attempt, key, output, withError) => {
          same(
            r,
            (log) => appendPolicyDecision(log, 0, 1, 'c1', 't', 'allow', 'policy', rule as never),
            'policy.decision',
            () => ({ turn: 0, step: 1, callId: 'c1', tool: 't', decision: 'allow', by: 'policy', rule }) as never,
          );
          same(
            r,
            (log) =>
              appendToolStarted(log, {
                turn: 0,
                step: 1,
                callId: 'c1',
                name: 't',
                args,
                sideEffect: 'NONE',
                attempt: attempt as never,
                idempotencyKey: key as never,
              }),
            'tool.started',
            () =>
              ({
                turn: 0,
                step: 1,
                callId: 'c1',
                name: 't',
                args,
                sideEffect: 'NONE',
                attempt,
                ...(key !== undefined ? { idempotencyKey: key } : {}),
              }) as never,
          );
          const error = withError ? { failed_tool: 't', error_code: 'X', error_message: rule, suggestion: SECRET } : undefined;
          same(
            r,
            (log) =>
              appendToolResult(log, {
                turn: 0,
                step: 1,
                callId: 'c1',
                name: 't',
                status: 'ok',
                content: rule as never,
                error: error as never,
                truncatedFrom: attempt as never,
                durationMs: 3,
                attempts: 1,
                output,
              }),
            'tool.result',
            () => {
              const base = {
                turn: 0,
                step: 1,
                callId: 'c1',
                name: 't',
                status: 'ok',
                content: rule,
                ...(error ? { error } : {}),
                ...(attempt !== undefined ? { truncatedFrom: attempt } : {}),
                durationMs: 3,
                attempts: 1,
              };
              return (output !== undefined ? { ...base, output } : base) as never;
            },
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('turn.closed', () => {
    fc.assert(
      fc.property(redactors, text, count, (r, detail, steps) => {
        const f = {
          turn: 0,
          outcome: { kind: 'failed' as const, reason: 'internal' as const, detail: detail as string },
          steps: steps as number,
          usage: { inputTokens: 1, outputTokens: 2 },
          toolCalls: 0,
        };
        same(
          r,
          (log) => appendTurnClosed(log, f),
          'turn.closed',
          () => ({ ...f }) as never,
        );
      }),
      { numRuns: 200 },
    );
  });

  it('tools.declared: the payload append would store, made once per tool list and redactor and shared', () => {
    const specs = Object.freeze([{ name: 't', description: `d ${SECRET}`, inputSchema: { type: 'object', properties: { [SECRET]: { type: 'string' } } } }]);
    for (const r of [undefined, createRedactor({ secrets: [SECRET] })]) {
      same(
        r,
        (log) => appendToolsDeclared(log, specs),
        'tools.declared',
        () => ({ tools: specs.map((t) => ({ name: t.name, description: t.description, inputSchema: { ...t.inputSchema } })) }),
      );
      const a = appendToolsDeclared(prepared(r), specs);
      const b = appendToolsDeclared(prepared(r), specs);
      expect(b.payload).toBe(a.payload);
    }
  });

  it('falls back to the copying append when the redactor would change a key (a secret spelled like a field)', () => {
    const r = createRedactor({ secrets: ['source'] });
    const log = new EventLog({ now: () => 7 }, [], { redact: r });
    // Its `source` key redacted, the record would not read back: the append refuses it, naming the field, as
    // `append` itself does, and the log stays empty.
    const want = 'cannot append event: inbox.received.payload.source: Invalid input: expected string, received undefined';
    expect(() => appendInboxReceived(log, 'm2', 'follow_up', 'hello', 'user')).toThrow(want);
    expect(() => log.append('inbox.received', { id: 'm2', intent: 'follow_up', text: 'hello', source: 'user' })).toThrow(want);
    expect(log.length).toBe(0);
  });

  it('checks positions and refuses re-entrant appends like append', () => {
    const log = prepared(undefined);
    expect(() =>
      appendToolResult(log, {
        turn: 0,
        step: 1,
        callId: 'nope',
        name: 't',
        status: 'ok',
        content: '',
        error: undefined,
        truncatedFrom: undefined,
        durationMs: 0,
        attempts: 0,
        output: undefined,
      }),
    ).toThrow(LogAppendError);
    let inner: unknown;
    log.subscribe(() => {
      try {
        appendInboxReceived(log, 'm9', 'follow_up', 'x', 'user');
      } catch (error) {
        inner = error;
      }
    });
    appendInboxReceived(log, 'm8', 'follow_up', 'x', 'user');
    expect(inner).toBeInstanceOf(LogAppendError);
  });

  it('only the builders hold the log commit for built payloads', () => {
    expect(() => takeCommit()).toThrow(/already taken/);
  });
});
