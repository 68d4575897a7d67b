/**
 * One fixture per possible cell of the loop table: a scenario that brings the loop
 * into the cell's state, makes the cell's event happen there, and expects what
 * the cell says — the outcome, the persisted history and the trace's shape.
 *
 * How each state is reached, so that an inbox event lands in it:
 *   IDLE        after a first turn closed (an entry without `at`)
 *   CLAIMING    the claim policy takes 1 s; the event at 0.5 s
 *   MODEL       the first request takes 1 s; the event as it is sent
 *   RECOVERING  the first request fails (500) and the retry waits 1 s; the event at 0.5 s
 *   TOOLS       lookup_order takes 1 s; the event as it starts
 *   CHECKPOINT  a pre-close hook takes 1 s; the event at 0.5 s
 */
import type { ClaimPolicy, ModelClient, ModelErrorHandler } from '../src/kernel/index.ts';
import type { State } from './loop-table.ts';

export interface Fixture {
  /** A scenario, as it would be written in YAML (validated by the scenario schema). */
  readonly scenario: Record<string, unknown>;
  /** The text of the inbox message the event delivers, for the generic cell check. */
  readonly message?: string;
  readonly claim?: ClaimPolicy;
  readonly errorHandlers?: readonly ModelErrorHandler[];
  readonly model?: ModelClient;
}

type Script = Record<string, unknown>[];
type Entry = Record<string, unknown>;

const LOOKUP = { tool_use: [{ id: 'look', name: 'lookup_order', args: { order_id: 'ORD-1001' } }] };
const reply = (text: string, latencyMs?: number) => ({ reply: text, ...(latencyMs ? { latencyMs } : {}) });
const FIRST = 'Where is ORD-1001?';

/** Where the event fires for a state, and what the state needs. */
function reach(state: State, event: Entry, script: { head: Script; tail: Script }): Record<string, unknown> {
  switch (state) {
    case 'IDLE':
      return { inbox: [{ say: FIRST }, event], provider: { script: [reply('one'), ...script.tail] } };
    case 'CLAIMING':
      return {
        claim: { allow: true, delayMs: 1_000 },
        inbox: [{ say: FIRST }, { ...event, at: { time: 500 } }],
        provider: { script: [...script.head, ...script.tail] },
      };
    case 'MODEL':
      return { inbox: [{ say: FIRST }, { ...event, at: { request: 1 } }], provider: { script: [...withLatency(script.head), ...script.tail] } };
    case 'RECOVERING':
      return {
        config: { retry: { immediateRetries: 1, immediateDelayMs: 1_000 } },
        inbox: [{ say: FIRST }, { ...event, at: { time: 500 } }],
        provider: { script: [{ error: { kind: 'server_error', status: 500 } }, ...script.head, ...script.tail] },
      };
    case 'TOOLS':
      return {
        tools: [{ name: 'lookup_order', behaviour: [{ slow: 1_000 }] }],
        inbox: [{ say: FIRST }, { ...event, at: { toolStart: 'lookup_order' } }],
        provider: { script: [LOOKUP, ...script.head.slice(1), ...script.tail] },
      };
    case 'CHECKPOINT':
      return {
        checkpoints: [{ name: 'hook', extend: [null], delayMs: 1_000 }],
        inbox: [{ say: FIRST }, { ...event, at: { time: 500 } }],
        provider: { script: [...script.head, ...script.tail] },
      };
  }
}

function withLatency(head: Script): Script {
  const [first, ...rest] = head;
  return [{ ...first, latencyMs: 1_000 }, ...rest];
}

/** The first turn's script for a state: TOOLS needs a tool round. */
function headFor(state: State): Script {
  return state === 'TOOLS' ? [LOOKUP, reply('one')] : [reply('one')];
}

const scenario = (name: string, body: Record<string, unknown>, expect: Record<string, unknown>) => ({ name, ...body, expect });

// ---------------------------------------------------------------------------
// Inbox events in every state
// ---------------------------------------------------------------------------

function followUp(state: State): Fixture {
  const message = 'And what about ORD-1002?';
  const body = reach(state, { say: message }, { head: headFor(state), tail: [reply('two')] });
  return {
    message,
    scenario: scenario(`follow-up while ${state}`, body, {
      outcomes: ['replied', 'replied'],
      events: { 'turn.opened': 2 },
      lastRequest: { contains: [message] },
      history: { contains: [`user: ${message}`, 'assistant: two'] },
      trace: { contains: ['turn:ok', 'turn > model_call:ok'] },
    }),
  };
}

function steer(state: State): Fixture {
  const message = 'Actually, I meant ORD-1002.';
  if (state === 'IDLE') {
    const body = reach(state, { steer: message }, { head: [], tail: [reply('two')] });
    return {
      message,
      scenario: scenario('steer while IDLE', body, {
        outcomes: ['replied', 'replied'],
        lastRequest: { contains: [message] },
        trace: { exact: ['turn:ok', 'turn > model_call:ok'] },
      }),
    };
  }
  const tails: Record<Exclude<State, 'IDLE'>, { head: Script; tail: Script; requests: number }> = {
    CLAIMING: { head: [reply('one')], tail: [], requests: 1 },
    MODEL: { head: [reply('one')], tail: [reply('two')], requests: 2 },
    RECOVERING: { head: [reply('one')], tail: [reply('two')], requests: 3 },
    TOOLS: { head: [LOOKUP, reply('one')], tail: [], requests: 2 },
    CHECKPOINT: { head: [reply('one')], tail: [reply('two')], requests: 2 },
  };
  const t = tails[state];
  const body = reach(state, { steer: message }, { head: t.head, tail: t.tail });
  return {
    message,
    scenario: scenario(`steer while ${state}`, body, {
      outcomes: ['replied'],
      requests: t.requests,
      lastRequest: { contains: [FIRST, message] },
      history: { contains: [message] },
      inbox: { pending: 0 },
    }),
  };
}

function inject(state: State): Fixture {
  const message = 'CRM note: this customer is a VIP.';
  if (state === 'IDLE' || state === 'CHECKPOINT') {
    const body = reach(state, { inject: message }, { head: headFor(state), tail: [] });
    return {
      message,
      scenario: scenario(`inject while ${state}`, body, {
        outcomes: ['replied'],
        events: { 'turn.opened': 1 },
        inbox: { pending: 1 },
        history: { excludes: [message] },
      }),
    };
  }
  const heads: Record<'CLAIMING' | 'MODEL' | 'RECOVERING' | 'TOOLS', { head: Script; requests: number }> = {
    CLAIMING: { head: [reply('one')], requests: 1 },
    MODEL: { head: [LOOKUP, reply('one')], requests: 2 },
    RECOVERING: { head: [LOOKUP, reply('one')], requests: 3 },
    TOOLS: { head: [LOOKUP, reply('one')], requests: 2 },
  };
  const h = heads[state];
  const body = reach(state, { inject: message }, { head: h.head, tail: [] });
  return {
    message,
    scenario: scenario(`inject while ${state}`, body, {
      outcomes: ['replied'],
      requests: h.requests,
      lastRequest: { contains: [message] },
      inbox: { pending: 0 },
    }),
  };
}

const NOTICE: Record<'user' | 'parent' | 'shutdown', string> = {
  user: 'This turn was cancelled by the user',
  parent: 'This turn was cancelled by its parent task',
  shutdown: 'This turn was stopped because the service was shutting down',
};

function cancel(by: 'user' | 'parent' | 'shutdown') {
  return (state: State): Fixture => {
    const label = `cancelled{${by}}`;
    switch (state) {
      case 'IDLE':
        return {
          scenario: scenario(`cancel by ${by} while IDLE`, reach(state, { cancel: by }, { head: [], tail: [] }), {
            outcomes: ['replied'],
            events: { 'cancel.requested': 0, 'turn.opened': 1 },
            history: { count: 2 },
          }),
        };
      case 'CLAIMING':
        return {
          scenario: scenario(`cancel by ${by} while CLAIMING`, reach(state, { cancel: by }, { head: [reply('never')], tail: [] }), {
            outcomes: [label],
            requests: 0,
            inbox: { returned: 1, pending: 1 },
            history: { count: 0 },
            trace: { exact: ['turn:ok'] },
          }),
        };
      case 'MODEL':
        return {
          scenario: scenario(`cancel by ${by} while MODEL`, reach(state, { cancel: by }, { head: [reply('never')], tail: [] }), {
            outcomes: [label],
            requests: 1,
            inbox: { returned: 1 },
            history: { count: 0 },
            trace: { exact: ['turn:ok', 'turn > model_call:cancelled'] },
          }),
        };
      case 'RECOVERING':
        return {
          scenario: scenario(`cancel by ${by} while RECOVERING`, reach(state, { cancel: by }, { head: [reply('never')], tail: [] }), {
            outcomes: [label],
            requests: 1,
            history: { count: 0 },
            trace: { exact: ['turn:ok', 'turn > model_call:error', 'turn > backoff:cancelled'] },
          }),
        };
      case 'TOOLS':
        return {
          scenario: scenario(`cancel by ${by} while TOOLS`, reach(state, { cancel: by }, { head: [LOOKUP], tail: [] }), {
            outcomes: [label],
            toolResults: [{ call: 'look', status: 'unknown', code: 'INTERRUPTED' }],
            history: { contains: ['call lookup_order#look', 'result#look unknown', NOTICE[by]] },
            trace: { exact: ['turn:ok', 'turn > model_call:ok', 'turn > tool:cancelled', 'turn > tool > policy:ok'] },
          }),
        };
      case 'CHECKPOINT':
        return {
          scenario: scenario(`cancel by ${by} while CHECKPOINT`, reach(state, { cancel: by }, { head: [reply('one')], tail: [] }), {
            outcomes: [label],
            history: { contains: ['assistant: one', NOTICE[by]] },
            // The hook was cut short: its span ends cancelled, not ok.
            trace: { exact: ['turn:ok', 'turn > model_call:ok', 'turn > checkpoint:cancelled'] },
          }),
        };
    }
  };
}

// ---------------------------------------------------------------------------
// Single-cell events
// ---------------------------------------------------------------------------

const single = (name: string, body: Record<string, unknown>, expect: Record<string, unknown>, extra: Partial<Fixture> = {}): Fixture => ({
  scenario: scenario(name, { inbox: [{ say: FIRST }], ...body }, expect),
  ...extra,
});

const failedAlone = (name: string, step: Record<string, unknown>, label: string, extra: Record<string, unknown> = {}): Fixture =>
  single(name, { provider: { script: [step] }, ...extra }, { outcome: label, history: { count: 0 }, trace: { contains: ['turn:ok'] } });

/** A fixture for an event possible in one state only. */
const only = (state: State, make: () => Fixture) => (s: State) => (s === state ? make() : undefined);

const nanUsageModel: ModelClient = {
  name: 'nan-usage',
  call: async () => ({ type: 'reply', text: 'x', content: [{ type: 'text', text: 'x' }], usage: { inputTokens: Number.NaN, outputTokens: 1 } }),
};

export const FIXTURES: Readonly<Record<string, (state: State) => Fixture | undefined>> = {
  follow_up: followUp,
  steer,
  inject,
  cancel_user: cancel('user'),
  cancel_parent: cancel('parent'),
  cancel_shutdown: cancel('shutdown'),
  claim_denied: only('CLAIMING', () =>
    single(
      'claim denied',
      { claim: { deny: 'account suspended' }, provider: { script: [reply('never')] } },
      { outcome: 'rejected', requests: 0, history: { count: 0 }, trace: { exact: ['turn:ok'] } },
    ),
  ),
  input_filtered_to_nothing: only('CLAIMING', () =>
    single(
      'input filtered to nothing',
      { claim: { drop: true } },
      { outcome: 'nothing_to_do', requests: 0, history: { count: 0 }, trace: { exact: ['turn:ok'] } },
    ),
  ),
  reply: only('MODEL', () =>
    single(
      'reply',
      { checkpoints: [{ name: 'hook', extend: [null] }], provider: { script: [reply('It was delivered.')] } },
      {
        outcome: 'replied',
        history: { exact: [`user: ${FIRST}`, 'assistant: It was delivered.'] },
        trace: { exact: ['turn:ok', 'turn > model_call:ok', 'turn > checkpoint:ok'] },
      },
    ),
  ),
  reply_with_steer_waiting: only('MODEL', () => ({
    message: 'In French, please.',
    scenario: scenario(
      'reply while a steer waits',
      { inbox: [{ say: FIRST }, { steer: 'In French, please.', at: { request: 1 } }], provider: { script: [reply('Delivered.'), reply('Livré.')] } },
      {
        outcome: 'replied',
        requests: 2,
        reply: 'Livré.',
        history: { exact: [`user: ${FIRST}`, 'assistant: Delivered.', 'user: In French, please.', 'assistant: Livré.'] },
        trace: { exact: ['turn:ok', 'turn > model_call:ok', 'turn > model_call:ok'] },
      },
    ),
  })),
  empty_reply: only('MODEL', () => failedAlone('empty reply', reply(''), 'failed{empty_reply}')),
  tool_use: only('MODEL', () =>
    single(
      'tool use',
      { provider: { script: [LOOKUP, reply('Delivered.')] } },
      {
        outcome: 'replied',
        executions: { lookup_order: 1 },
        history: { count: 4, contains: ['call lookup_order#look', 'result#look ok'] },
        trace: { exact: ['turn:ok', 'turn > model_call:ok', 'turn > tool:ok', 'turn > tool > policy:ok', 'turn > model_call:ok'] },
      },
    ),
  ),
  tool_use_at_step_limit: only('MODEL', () =>
    single(
      'tool use at the step limit',
      { config: { maxSteps: 1 }, provider: { script: [LOOKUP] } },
      {
        outcome: 'failed{max_steps}',
        executions: { lookup_order: 0 },
        toolResults: [{ call: 'look', status: 'failed', code: 'NOT_RUN' }],
        history: { count: 0 },
        trace: { exact: ['turn:ok', 'turn > model_call:ok'] },
      },
    ),
  ),
  tool_use_over_call_budget: only('MODEL', () =>
    single(
      'tool use over the call budget',
      {
        config: { maxToolCallsPerTurn: 1 },
        provider: {
          script: [
            {
              tool_use: [
                { id: 'a', name: 'lookup_order', args: { order_id: 'ORD-1001' } },
                { id: 'b', name: 'lookup_order', args: { order_id: 'ORD-1002' } },
              ],
            },
          ],
        },
      },
      { outcome: 'failed{budget_exhausted}', executions: { lookup_order: 0 }, history: { count: 0 }, trace: { exact: ['turn:ok', 'turn > model_call:ok'] } },
    ),
  ),
  max_tokens_text: only('MODEL', () => failedAlone('max_tokens in text', { max_tokens: { text: 'Your order is', partial: false } }, 'failed{max_tokens}')),
  max_tokens_in_tool_call: only('MODEL', () => ({
    ...failedAlone('max_tokens in a tool call', { max_tokens: { text: '', partial: true } }, 'failed{max_tokens}'),
  })),
  refusal: only('MODEL', () => failedAlone('refusal', { refusal: 'I cannot help with that.' }, 'failed{refusal}')),
  unknown_stop_reason: only('MODEL', () => failedAlone('unknown stop reason', { unknown: 'pause_turn' }, 'failed{unknown_stop_reason}')),
  overflow_compactable: only('MODEL', () =>
    single(
      'overflow, compacted',
      {
        inbox: [{ say: FIRST }, { say: 'And ORD-1002?' }],
        compaction: [{ summary: 'Asked about ORD-1001: delivered.' }],
        provider: { script: [reply('Delivered, and here is a long explanation of what that means.'), { overflow: 'request' }, reply('Shipped.')] },
      },
      {
        outcomes: ['replied', 'replied'],
        events: { 'projection.replaced': 1 },
        lastRequest: { exact: ['user: [Summary of the earlier conversation]\nAsked about ORD-1001: delivered. | And ORD-1002?'] },
        trace: { exact: ['turn:ok', 'turn > model_call:error', 'turn > compaction:ok', 'turn > model_call:ok'] },
      },
    ),
  ),
  overflow_not_compactable: only('MODEL', () => ({
    ...failedAlone('overflow, nothing to compact', { overflow: 'request' }, 'conversation_full'),
  })),
  transient_error: only('MODEL', () =>
    single(
      'transient error',
      { provider: { script: [{ error: { kind: 'server_error', status: 500 } }, reply('ok')] } },
      {
        outcome: 'replied',
        requests: 2,
        clock: 1_000,
        history: { count: 2 },
        trace: { exact: ['turn:ok', 'turn > model_call:error', 'turn > backoff:ok', 'turn > model_call:ok'] },
      },
    ),
  ),
  transient_error_tiers_spent: only('MODEL', () =>
    single(
      'transient errors until the tiers are spent',
      { config: { retry: { jitter: 0 } }, provider: { script: Array.from({ length: 5 }, () => ({ error: { kind: 'overloaded', status: 529 } })) } },
      {
        outcome: 'failed{provider_unavailable}',
        requests: 5,
        clock: 15_000,
        history: { count: 0 },
        trace: { count: 10 },
      },
    ),
  ),
  rate_limited_tiers_spent: only('MODEL', () =>
    single(
      '429 until the tiers are spent',
      {
        config: { retry: { jitter: 0 } },
        provider: { script: Array.from({ length: 5 }, () => ({ error: { kind: 'rate_limited', status: 429, retryAfterMs: 3_000 } })) },
      },
      {
        outcome: 'failed{rate_limited}',
        requests: 5,
        clock: 3_000 + 3_000 + 4_000 + 8_000,
        history: { count: 0 },
      },
    ),
  ),
  auth_error: only('MODEL', () =>
    single(
      'auth error',
      { provider: { script: [{ error: { kind: 'auth', status: 401 } }, reply('never')] } },
      { outcome: 'failed{auth}', requests: 1, clock: 0, history: { count: 0 }, trace: { exact: ['turn:ok', 'turn > model_call:error'] } },
    ),
  ),
  invalid_request: only('MODEL', () =>
    single(
      'invalid request',
      { provider: { script: [{ error: { kind: 'invalid_request', status: 400 } }, reply('never')] } },
      { outcome: 'failed{invalid_request}', requests: 1, history: { count: 0 }, trace: { exact: ['turn:ok', 'turn > model_call:error'] } },
    ),
  ),
  backoff_elapsed: only('RECOVERING', () =>
    single(
      'backoff elapsed',
      { provider: { script: [{ error: { kind: 'overloaded' } }, reply('ok')] } },
      { outcome: 'replied', requests: 2, trace: { contains: ['turn > backoff:ok'] }, history: { count: 2 } },
    ),
  ),
  tools_settled: only('TOOLS', () =>
    single(
      'tools settled',
      { provider: { script: [LOOKUP, reply('Delivered.')] } },
      { outcome: 'replied', requests: 2, lastRequest: { contains: ['result#look ok'] }, history: { count: 4 }, trace: { contains: ['turn > tool:ok'] } },
    ),
  ),
  tool_denied: only('TOOLS', () =>
    single(
      'tool denied',
      {
        policy: { rules: [{ tools: ['lookup_order'], decision: 'deny', reason: 'read-only mode' }] },
        provider: { script: [LOOKUP, reply('I cannot look that up.')] },
      },
      {
        outcome: 'replied',
        executions: { lookup_order: 0 },
        toolResults: [{ call: 'look', status: 'failed', code: 'DENIED' }],
        policy: [{ tool: 'lookup_order', decision: 'deny', by: 'policy' }],
        history: { contains: ['result#look failed'] },
        trace: { contains: ['turn > tool > policy:ok'] },
      },
    ),
  ),
  tool_timed_out: only('TOOLS', () =>
    single(
      'tool timed out',
      {
        tools: [
          { name: 'slow_lookup', description: 'A lookup that may hang.', input: { order_id: 'string' }, timeoutMs: 1_000, maxRetries: 0, behaviour: ['hang'] },
        ],
        provider: { script: [{ tool_use: [{ id: 'look', name: 'slow_lookup', args: { order_id: 'ORD-1001' } }] }, reply('It is taking too long.')] },
      },
      {
        outcome: 'replied',
        toolResults: [{ call: 'look', status: 'unknown', code: 'TIMEOUT' }],
        clock: 1_000,
        history: { contains: ['result#look unknown'] },
        trace: { contains: ['turn > tool:error'] },
      },
    ),
  ),
  token_budget_spent: only('TOOLS', () =>
    single(
      'token budget spent',
      { config: { maxTokensPerTurn: 100 }, provider: { script: [{ ...LOOKUP, usage: { input: 90, output: 20 } }, reply('never')] } },
      {
        outcome: 'failed{budget_exhausted}',
        requests: 1,
        executions: { lookup_order: 1 },
        history: { count: 0 },
        trace: { exact: ['turn:ok', 'turn > model_call:ok', 'turn > tool:ok', 'turn > tool > policy:ok'] },
      },
    ),
  ),
  persistence_failure: (state) => {
    switch (state) {
      case 'CLAIMING':
        return single(
          'store fails after the claim',
          { store: { failAppends: [2] }, provider: { script: [reply('never')] } },
          { outcome: 'failed{persistence}', requests: 0, history: { count: 0 }, trace: { exact: ['turn:ok'] } },
        );
      case 'MODEL':
        return single(
          'store fails after the result',
          { store: { failAppends: [3] }, provider: { script: [reply('lost')] } },
          { outcome: 'failed{persistence}', requests: 1, history: { count: 0 }, trace: { exact: ['turn:ok', 'turn > model_call:ok'] } },
        );
      case 'TOOLS':
        return single(
          'store fails on the write-ahead record of a refund',
          {
            store: { failAppends: [4] },
            provider: {
              script: [{ tool_use: [{ id: 'r1', name: 'issue_refund', args: { order_id: 'ORD-1001', amount: 5, reason: 'late' } }] }, reply('never')],
            },
          },
          { outcome: 'failed{persistence}', executions: { issue_refund: 0 }, history: { count: 0 } },
        );
      case 'CHECKPOINT':
        // The close itself cannot be stored: the turn is reported failed{persistence}; the store
        // lacks its turn.closed, so reopening closes it as interrupted (src/host/host.test.ts).
        return single(
          'store fails on the close',
          { store: { failAppends: [4] }, checkpoints: [{ name: 'hook', extend: [null] }], provider: { script: [reply('lost')] } },
          {
            outcome: 'failed{persistence}',
            events: { 'turn.closed': 1 },
            trace: { exact: ['turn:ok', 'turn > model_call:ok', 'turn > checkpoint:ok'] },
          },
        );
      default:
        return undefined;
    }
  },
  torn_write: (state) => {
    // Each batch is torn after its first record: the store then holds a prefix of the log, and the
    // write after it (the turn's close) conflicts with it instead of being fused onto it.
    const torn = (append: number) => ({ tornAppends: [{ append, keep: 1 }] });
    switch (state) {
      case 'CLAIMING':
        return single(
          'the claim batch is torn',
          { store: torn(2), provider: { script: [reply('never')] } },
          { outcome: 'failed{persistence}', requests: 0, history: { count: 0 }, trace: { exact: ['turn:ok'] } },
        );
      case 'MODEL':
        return single(
          'the batch after the result is torn',
          { store: torn(3), provider: { script: [reply('lost')] } },
          { outcome: 'failed{persistence}', requests: 1, history: { count: 0 }, trace: { exact: ['turn:ok', 'turn > model_call:ok'] } },
        );
      case 'TOOLS':
        return single(
          'the write-ahead batch of a refund is torn',
          {
            store: torn(4),
            provider: {
              script: [{ tool_use: [{ id: 'r1', name: 'issue_refund', args: { order_id: 'ORD-1001', amount: 5, reason: 'late' } }] }, reply('never')],
            },
          },
          { outcome: 'failed{persistence}', executions: { issue_refund: 0 }, history: { count: 0 } },
        );
      default:
        return undefined;
    }
  },
  checkpoint_extends: only('CHECKPOINT', () =>
    single(
      'a hook extends the turn',
      {
        checkpoints: [{ name: 'todos', extend: ['You have an unfinished to-do: add a note.', null] }],
        provider: { script: [reply('Done.'), reply('Note added.')] },
      },
      {
        outcome: 'replied',
        requests: 2,
        lastRequest: { contains: ['You have an unfinished to-do: add a note.'] },
        history: { count: 4 },
        trace: { exact: ['turn:ok', 'turn > model_call:ok', 'turn > checkpoint:ok', 'turn > model_call:ok', 'turn > checkpoint:ok'] },
      },
    ),
  ),
  checkpoint_passes: only('CHECKPOINT', () =>
    single(
      'the hooks let the turn close',
      {
        checkpoints: [
          { name: 'a', extend: [null] },
          { name: 'b', extend: [null] },
        ],
        provider: { script: [reply('Done.')] },
      },
      {
        outcome: 'replied',
        history: { count: 2 },
        trace: { exact: ['turn:ok', 'turn > model_call:ok', 'turn > checkpoint:ok', 'turn > checkpoint:ok'] },
      },
    ),
  ),
  unexpected_exception: (state) => {
    switch (state) {
      case 'CLAIMING':
        return single(
          'the claim policy throws',
          { provider: { script: [reply('never')] } },
          { outcome: 'failed{internal}', requests: 0, history: { count: 0 }, trace: { exact: ['turn:ok'] } },
          {
            claim: {
              claim: () => {
                throw new Error('moderation service bug');
              },
            },
          },
        );
      case 'MODEL':
        return single('a client reports NaN tokens', {}, { outcome: 'failed{internal}', history: { count: 0 } }, { model: nanUsageModel });
      case 'RECOVERING':
        return single(
          'an error handler throws',
          { provider: { script: [{ error: { kind: 'server_error', status: 500 } }] } },
          { outcome: 'failed{internal}', requests: 1, history: { count: 0 } },
          {
            errorHandlers: [
              {
                name: 'broken',
                handle: () => {
                  throw new Error('handler bug');
                },
              },
            ],
          },
        );
      default:
        return undefined;
    }
  },
};
