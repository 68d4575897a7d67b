/**
 * The loop's state machine as data (seed 004 rule 1): events as rows, states as
 * columns. Each cell is the next state, a terminal outcome, a message queued for
 * later, ignored — or impossible, with the invariant and what enforces it.
 *
 * Every possible cell has a fixture (fixtures.ts) run through the second host and
 * checked three ways. The test fails if a cell is missing or the loop disagrees.
 * This is the one table: src/kernel/loop/runner.ts points here, and its methods are
 * named for the states.
 */

export const STATES = ['IDLE', 'CLAIMING', 'MODEL', 'RECOVERING', 'TOOLS', 'CHECKPOINT'] as const;
export type State = (typeof STATES)[number];

export const STATE_DESCRIPTIONS: Readonly<Record<State, string>> = {
  IDLE: 'no turn is running; the loop waits for waking input',
  CLAIMING: 'a turn has opened and is taking its input (the claim policy runs)',
  MODEL: 'a model request is in flight',
  RECOVERING: 'the model-error chain is waiting (backoff) or compacting before a retry',
  TOOLS: 'the step’s tool calls are executing',
  CHECKPOINT: 'the pre-close hooks run before the turn closes',
};

export type Cell =
  | { readonly kind: 'next'; readonly state: State; readonly note: string }
  | { readonly kind: 'outcome'; readonly outcome: string; readonly note: string }
  | { readonly kind: 'queued'; readonly until: 'next step' | 'next turn'; readonly note: string }
  | { readonly kind: 'ignored'; readonly note: string }
  | { readonly kind: 'impossible'; readonly invariant: string; readonly enforcedBy: string };

export interface EventRow {
  readonly id: string;
  readonly description: string;
  readonly cells: Readonly<Record<State, Cell>>;
}

const impossible = (invariant: string, enforcedBy: string): Cell => ({ kind: 'impossible', invariant, enforcedBy });
const next = (state: State, note: string): Cell => ({ kind: 'next', state, note });
const outcome = (label: string, note: string): Cell => ({ kind: 'outcome', outcome: label, note });
const queued = (until: 'next step' | 'next turn', note: string): Cell => ({ kind: 'queued', until, note });

/** A model result only ever answers a request: it cannot arrive outside MODEL. */
const onlyInModel = (cell: Cell): Readonly<Record<State, Cell>> => ({
  IDLE: impossible('12: results only answer requests', 'AgentLoop.#awaitingModel awaits the one result of the call it made'),
  CLAIMING: impossible('12: results only answer requests', 'no request is made before the claim is done'),
  MODEL: cell,
  RECOVERING: impossible('12: results only answer requests', 'the chain waits on the clock, not on the provider'),
  TOOLS: impossible('12: results only answer requests', 'tools run after the result, with no request in flight'),
  CHECKPOINT: impossible('12: results only answer requests', 'hooks run after the final result'),
});

const cancelRow = (by: 'user' | 'parent' | 'shutdown'): EventRow => ({
  id: `cancel_${by}`,
  description: `a cancel from the ${by === 'user' ? 'user' : by === 'parent' ? 'parent task' : 'host shutting down'}`,
  cells: {
    IDLE: { kind: 'ignored', note: 'nothing is running; the cancel is not recorded and the next message starts a turn as usual' },
    CLAIMING: outcome(`cancelled{${by}}`, 'the claimed messages go back to the inbox (invariant 9)'),
    MODEL: outcome(`cancelled{${by}}`, 'the request is aborted; messages the model never answered go back to the inbox'),
    RECOVERING: outcome(`cancelled{${by}}`, 'the backoff wait (or a compaction) ends early; no retry, whatever the error chain decided'),
    TOOLS: outcome(`cancelled{${by}}`, 'running tools see the abort; their calls close as unknown, and the model sees them next turn'),
    CHECKPOINT: outcome(`cancelled{${by}}`, 'the hooks see the abort; the completed steps are kept with a notice'),
  },
});

export const LOOP_TABLE: readonly EventRow[] = [
  {
    id: 'follow_up',
    description: 'a follow-up message arrives',
    cells: {
      IDLE: next('CLAIMING', 'wakes the loop: a new turn opens'),
      CLAIMING: queued('next turn', 'each follow-up is its own turn'),
      MODEL: queued('next turn', 'answered after the current turn closes'),
      RECOVERING: queued('next turn', 'answered after the current turn closes'),
      TOOLS: queued('next turn', 'answered after the current turn closes'),
      CHECKPOINT: queued('next turn', 'answered after the current turn closes'),
    },
  },
  {
    id: 'steer',
    description: 'a steer (correction of the running turn) arrives',
    cells: {
      IDLE: next('CLAIMING', 'wakes the loop: it becomes a new turn’s input'),
      CLAIMING: queued('next step', 'joins the turn’s first request'),
      MODEL: queued('next step', 'joins the next request of this turn; a reply does not end the turn while a steer waits'),
      RECOVERING: queued('next step', 'the retry resends the same request; the steer joins the step after'),
      TOOLS: queued('next step', 'joins the request that carries the tool results'),
      CHECKPOINT: queued('next step', 'the turn goes on instead of closing'),
    },
  },
  {
    id: 'inject',
    description: 'an inject (system information, not a user request) arrives',
    cells: {
      IDLE: { kind: 'ignored', note: 'never wakes an idle loop (invariant 9); delivered with the next turn' },
      CLAIMING: queued('next step', 'joins the turn’s first request'),
      MODEL: queued('next step', 'joins the next request if there is one, else the next turn'),
      RECOVERING: queued('next step', 'joins the step after the retry'),
      TOOLS: queued('next step', 'joins the request that carries the tool results'),
      CHECKPOINT: queued('next turn', 'does not extend the turn; delivered with the next one'),
    },
  },
  cancelRow('user'),
  cancelRow('parent'),
  cancelRow('shutdown'),
  {
    id: 'claim_denied',
    description: 'the claim policy denies the turn’s input',
    cells: {
      IDLE: impossible('4: a claim happens inside an opened turn', 'AgentLoop.#claiming opens the turn before it claims'),
      CLAIMING: outcome('rejected', 'no step runs; the input stays in the log for audit'),
      MODEL: impossible('4: only the first claim is judged', 'steers taken later are not re-judged'),
      RECOVERING: impossible('4: only the first claim is judged', 'as MODEL'),
      TOOLS: impossible('4: only the first claim is judged', 'as MODEL'),
      CHECKPOINT: impossible('4: only the first claim is judged', 'as MODEL'),
    },
  },
  {
    id: 'input_filtered_to_nothing',
    description: 'the input filter drops every claimed message',
    cells: {
      IDLE: impossible('4: a claim happens inside an opened turn', 'AgentLoop.#claiming opens the turn before it claims'),
      CLAIMING: outcome('nothing_to_do', 'the turn still closes, with its own reason'),
      MODEL: impossible('4: only the first claim is filtered', 'steers taken later are not filtered'),
      RECOVERING: impossible('4: only the first claim is filtered', 'as MODEL'),
      TOOLS: impossible('4: only the first claim is filtered', 'as MODEL'),
      CHECKPOINT: impossible('4: only the first claim is filtered', 'as MODEL'),
    },
  },
  {
    id: 'reply',
    description: 'the model replies with text',
    cells: onlyInModel(next('CHECKPOINT', 'the pre-close hooks run; with none extending, the turn closes as replied')),
  },
  {
    id: 'reply_with_steer_waiting',
    description: 'the model replies while a steer waits in the inbox',
    cells: onlyInModel(next('MODEL', 'the turn goes on: it stops when the inbox is empty, not when the model stops')),
  },
  {
    id: 'empty_reply',
    description: 'the model ends its turn with no text and no tool call',
    cells: onlyInModel(outcome('failed{empty_reply}', 'an empty reply is never stored as an answer (seed 004 rule 4)')),
  },
  { id: 'tool_use', description: 'the model calls tools', cells: onlyInModel(next('TOOLS', 'the calls run through the pipeline')) },
  {
    id: 'tool_use_at_step_limit',
    description: 'the model calls tools in the last step the budget allows',
    cells: onlyInModel(outcome('failed{max_steps}', 'checked before the tools run (invariant 11): they are not run')),
  },
  {
    id: 'tool_use_over_call_budget',
    description: 'the model asks for more tool calls than the budget allows',
    cells: onlyInModel(outcome('failed{budget_exhausted}', 'checked before the tools run')),
  },
  { id: 'max_tokens_text', description: 'the output limit cuts the text', cells: onlyInModel(outcome('failed{max_tokens}', 'a cut answer is not stored')) },
  {
    id: 'max_tokens_in_tool_call',
    description: 'the output limit cuts a tool call’s arguments',
    cells: onlyInModel(outcome('failed{max_tokens}', 'the partial call is never executed, never retried forever')),
  },
  { id: 'refusal', description: 'the model refuses', cells: onlyInModel(outcome('failed{refusal}', 'the refusal is not stored as a reply')) },
  {
    id: 'unknown_stop_reason',
    description: 'the model stops for a reason nobody has seen',
    cells: onlyInModel(outcome('failed{unknown_stop_reason}', 'a new stop reason is named, not folded into internal')),
  },
  {
    id: 'overflow_compactable',
    description: 'the context window overflows and a compaction shrinks the history',
    cells: onlyInModel(next('RECOVERING', 'compacts, then retries because the projection shrank (invariant 10)')),
  },
  {
    id: 'overflow_not_compactable',
    description: 'the context window overflows and nothing shrinks the history',
    cells: onlyInModel(outcome('conversation_full', 'no retry without progress (invariant 10)')),
  },
  {
    id: 'transient_error',
    description: 'a transient transport error (timeout, 5xx, 529, network)',
    cells: onlyInModel(next('RECOVERING', 'retry tiers: immediate, then backoff, then fallback')),
  },
  {
    id: 'transient_error_tiers_spent',
    description: 'transient errors until every retry tier is spent',
    cells: onlyInModel(outcome('failed{provider_unavailable}', 'bounded by config; never retried forever')),
  },
  {
    id: 'rate_limited_tiers_spent',
    description: '429s until every retry tier is spent',
    cells: onlyInModel(outcome('failed{rate_limited}', 'retry-after honoured on the way')),
  },
  { id: 'auth_error', description: 'the provider rejects the credentials', cells: onlyInModel(outcome('failed{auth}', 'fails at once: retrying cannot help')) },
  {
    id: 'invalid_request',
    description: 'the provider rejects the request as invalid',
    cells: onlyInModel(outcome('failed{invalid_request}', 'fails at once')),
  },
  {
    id: 'backoff_elapsed',
    description: 'the backoff wait ends',
    cells: {
      IDLE: impossible('12: waits only happen inside a turn', 'the chain runs inside #awaitingModel (#recovering)'),
      CLAIMING: impossible('12: no wait before the first request', 'the chain runs only after a request'),
      MODEL: impossible('12: a request is not waiting on the clock', 'the chain runs after the result'),
      RECOVERING: next('MODEL', 'the same request is sent again'),
      TOOLS: impossible('12: no backoff while tools run', 'tool retries are the pipeline’s own'),
      CHECKPOINT: impossible('12: no backoff in hooks', 'hooks run after the final result'),
    },
  },
  {
    id: 'tools_settled',
    description: 'every tool call of the step has a result',
    cells: {
      IDLE: impossible('12: tools run inside a turn', '#runningTools is only called from a step (#toolUse)'),
      CLAIMING: impossible('12: tools run inside a turn', 'as IDLE'),
      MODEL: impossible('6: results follow their calls', 'tools start only after the tool_use result'),
      RECOVERING: impossible('6: results follow their calls', 'as MODEL'),
      TOOLS: next('MODEL', 'the results go to the model in the next request'),
      CHECKPOINT: impossible('6: results follow their calls', 'as MODEL'),
    },
  },
  {
    id: 'tool_denied',
    description: 'the policy denies a tool call',
    cells: {
      IDLE: impossible('7: policy decides inside the pipeline', 'ToolExecutor.execute'),
      CLAIMING: impossible('7: policy decides inside the pipeline', 'as IDLE'),
      MODEL: impossible('7: policy decides inside the pipeline', 'as IDLE'),
      RECOVERING: impossible('7: policy decides inside the pipeline', 'as IDLE'),
      TOOLS: next('MODEL', 'a failed result (DENIED) the model reads; the tool never runs'),
      CHECKPOINT: impossible('7: policy decides inside the pipeline', 'as IDLE'),
    },
  },
  {
    id: 'tool_timed_out',
    description: 'a tool call runs past its timeout',
    cells: {
      IDLE: impossible('12: tools run inside a turn', 'as tools_settled'),
      CLAIMING: impossible('12: tools run inside a turn', 'as tools_settled'),
      MODEL: impossible('12: tools run inside a turn', 'as tools_settled'),
      RECOVERING: impossible('12: tools run inside a turn', 'as tools_settled'),
      TOOLS: next('MODEL', 'an unknown result (it may have run); the pipeline settles even if the tool never does'),
      CHECKPOINT: impossible('12: tools run inside a turn', 'as tools_settled'),
    },
  },
  {
    id: 'token_budget_spent',
    description: 'the turn’s token budget is spent',
    cells: {
      IDLE: impossible('11: budgets are checked inside a turn', 'AgentLoop.#tokenBudgetSpent'),
      CLAIMING: impossible('11: nothing is spent before the first request', 'usage comes with results'),
      MODEL: impossible('11: checked before a request, never during one', 'the result in flight is accepted'),
      RECOVERING: impossible('11: checked before a request, not before a retry', 'the retry resends a request already counted'),
      TOOLS: outcome('failed{budget_exhausted}', 'checked before the next request'),
      CHECKPOINT: impossible('11: a reply that fits is kept', 'the check is before requests only'),
    },
  },
  {
    id: 'persistence_failure',
    description: 'the store refuses a write',
    cells: {
      IDLE: impossible('4: no turn to fail', 'the host reports the failed write of the inbox message itself (503)'),
      CLAIMING: outcome('failed{persistence}', 'the flush after the claim'),
      MODEL: outcome('failed{persistence}', 'the flush after the result'),
      RECOVERING: impossible('12: nothing is written while waiting', 'the next flush is after the retried result'),
      TOOLS: outcome('failed{persistence}', 'the write-ahead record of a STATEFUL call fails: the call is not run (invariant 13)'),
      CHECKPOINT: outcome('failed{persistence}', 'the flush before the close'),
    },
  },
  {
    id: 'torn_write',
    description: 'the store keeps only the first records of a batch, then fails the write (a torn write)',
    cells: {
      IDLE: impossible('4: no turn to fail', 'the host reports the failed write of the inbox message itself (503)'),
      CLAIMING: outcome('failed{persistence}', 'what landed is a prefix of the log; the next write is refused, never fused onto it'),
      MODEL: outcome('failed{persistence}', 'as CLAIMING: the store holds a prefix, the turn stops'),
      RECOVERING: impossible('12: nothing is written while waiting', 'the next flush is after the retried result'),
      TOOLS: outcome('failed{persistence}', 'a torn write-ahead batch: the call’s start did not land, so it is not run (invariant 13)'),
      CHECKPOINT: impossible(
        '2: a batch of one record cannot be torn',
        'the only write in CHECKPOINT is the close, turn.closed alone (its failure is persistence_failure@CHECKPOINT)',
      ),
    },
  },
  {
    id: 'checkpoint_extends',
    description: 'a pre-close hook extends the turn',
    cells: {
      IDLE: impossible('4: hooks run inside a turn', '#checkpoint is only called after a reply (#replied)'),
      CLAIMING: impossible('4: hooks run after a reply', 'as IDLE'),
      MODEL: impossible('4: hooks run after a reply', 'as IDLE'),
      RECOVERING: impossible('4: hooks run after a reply', 'as IDLE'),
      TOOLS: impossible('4: hooks run after a reply', 'as IDLE'),
      CHECKPOINT: next('MODEL', 'its message is queued as a steer and the turn goes on (bounded by config)'),
    },
  },
  {
    id: 'checkpoint_passes',
    description: 'every pre-close hook lets the turn close',
    cells: {
      IDLE: impossible('4: hooks run inside a turn', '#checkpoint is only called after a reply (#replied)'),
      CLAIMING: impossible('4: hooks run after a reply', 'as IDLE'),
      MODEL: impossible('4: hooks run after a reply', 'as IDLE'),
      RECOVERING: impossible('4: hooks run after a reply', 'as IDLE'),
      TOOLS: impossible('4: hooks run after a reply', 'as IDLE'),
      CHECKPOINT: outcome('replied', 'the turn closes'),
    },
  },
  {
    id: 'unexpected_exception',
    description: 'code inside the turn throws (a bug)',
    cells: {
      IDLE: impossible('12: nothing runs', 'drain only runs turns'),
      CLAIMING: outcome('failed{internal}', 'caught at the turn’s boundary; the turn still closes once'),
      MODEL: outcome('failed{internal}', 'e.g. a client reporting NaN tokens breaks the log’s data rule'),
      RECOVERING: outcome('failed{internal}', 'a host error handler that throws'),
      TOOLS: impossible('12: tools always settle', 'the pipeline catches everything a tool or the recorder throws'),
      CHECKPOINT: impossible('12: a throwing hook is recorded and ignored', '#checkpoint catches it'),
    },
  },
];

export function cellLabel(cell: Cell): string {
  switch (cell.kind) {
    case 'next':
      return `→ ${cell.state}`;
    case 'outcome':
      return cell.outcome;
    case 'queued':
      return `queued: ${cell.until}`;
    case 'ignored':
      return 'ignored';
    case 'impossible':
      return `impossible (inv ${cell.invariant.split(':')[0]})`;
  }
}
