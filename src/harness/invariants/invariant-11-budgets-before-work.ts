/**
 * Invariant 11 and the other budgets, checked before the work they pay for: no
 * tool runs in the last allowed step (the model could never see its result), no
 * turn makes more steps than allowed, tool calls stay within the per-turn and
 * per-session budgets, no step starts once the token budget is spent, and no
 * turn is extended by checkpoint hooks more times than `maxCheckpointExtensions`
 * allows (outside probe 68: one extension too many passed every fuzz case). And
 * the other way round: a turn refused for a tool-call budget had a step whose
 * calls really would have passed it (a batch that only reaches the budget runs;
 * a retry is not another call), and says which budget it was.
 */
import type { LogEvent } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant } from './invariant.ts';
import { viewOf } from './support/log-view.ts';
import { budgetBeforeToolsObservably } from './observable/budget-before-tools.ts';
import { CHECKPOINT_SOURCE } from './trace-agrees-with-log.ts';

export const budgetsBeforeWork = defineInvariant({
  id: 'invariant-11-budgets-before-work',
  title: 'the step budget is checked before tools run; every budget before the work it pays for',
  invariant: 11,
  checkObservable: budgetBeforeToolsObservably,
  check: (run) => checkedBeforeWork(run),
});

function checkedBeforeWork(run: ScenarioRun): string | undefined {
  const { config } = run;
  const view = viewOf(run);
  const sessionCalls = new Set<string>();
  let closedTokens = 0;
  for (const turn of view.turns) {
    const turnCalls = new Set<string>();
    let turnTokens = 0;
    /** Tool calls the model made in the turn's steps before the latest, and in the latest. */
    let madeBefore = 0;
    let madeLast = 0;
    let extensions = 0;
    for (const e of turn.events) {
      switch (e.type) {
        case 'inbox.received':
          if (e.payload.source.startsWith(CHECKPOINT_SOURCE) && ++extensions > config.maxCheckpointExtensions)
            return `turn ${turn.turn}: checkpoint hooks extended it ${extensions} times (${e.payload.source}, seq ${e.seq}), but maxCheckpointExtensions is ${config.maxCheckpointExtensions}`;
          break;
        case 'assistant.message':
          madeBefore += madeLast;
          madeLast = e.payload.content.filter((b) => b.type === 'tool_call').length;
          break;
        case 'tool.started':
          if (e.payload.step >= config.maxSteps) {
            return `turn ${turn.turn}: ${e.payload.name} (call ${e.payload.callId}) ran in step ${e.payload.step}, but the step limit is ${config.maxSteps}: the model could never see its result`;
          }
          turnCalls.add(e.payload.callId);
          sessionCalls.add(e.payload.callId);
          if (turnCalls.size > config.maxToolCallsPerTurn)
            return `turn ${turn.turn}: ${turnCalls.size} tool calls ran (budget per turn ${config.maxToolCallsPerTurn})`;
          if (sessionCalls.size > config.maxToolCallsPerSession)
            return `turn ${turn.turn}: ${sessionCalls.size} tool calls ran in the session (budget ${config.maxToolCallsPerSession})`;
          break;
        case 'model.request':
          if (e.payload.step > config.maxSteps) return `turn ${turn.turn}: step ${e.payload.step} was requested (limit ${config.maxSteps})`;
          if (e.payload.attempt === 1) {
            if (config.maxTokensPerTurn !== undefined && turnTokens >= config.maxTokensPerTurn) {
              return `turn ${turn.turn}: step ${e.payload.step} started with ${turnTokens} tokens spent (budget per turn ${config.maxTokensPerTurn})`;
            }
            if (config.maxTokensPerSession !== undefined && closedTokens + turnTokens >= config.maxTokensPerSession) {
              return `turn ${turn.turn}: step ${e.payload.step} started with ${closedTokens + turnTokens} tokens spent in the session (budget ${config.maxTokensPerSession})`;
            }
          }
          break;
        case 'model.result':
          turnTokens += tokens(e);
          break;
        case 'turn.closed': {
          const refused = refusedWithinBudget(e.payload.outcome, config, madeBefore, madeLast, sessionCalls.size);
          if (refused) return `turn ${turn.turn}: ${refused}`;
          closedTokens += countable(e.payload.usage.inputTokens) + countable(e.payload.usage.outputTokens);
          break;
        }
        default:
          break;
      }
    }
  }
  return undefined;
}

/**
 * A turn that failed budget_exhausted: does its detail name the budget, with
 * the limit this run set (what the user reads to know which limit to raise)?
 * For a tool-call budget: did its last step's calls really exceed it? Per
 * turn, the calls made in the turn's earlier steps plus the last step's; per
 * session, the calls that started (each counted once, however many attempts it
 * took) plus the last step's.
 */
function refusedWithinBudget(
  outcome: Extract<LogEvent, { type: 'turn.closed' }>['payload']['outcome'],
  config: ScenarioRun['config'],
  madeBefore: number,
  madeLast: number,
  sessionStarted: number,
): string | undefined {
  if (outcome.kind !== 'failed' || outcome.reason !== 'budget_exhausted') return undefined;
  const detail = outcome.detail ?? '';
  const budgets = [
    ...(config.maxTokensPerTurn === undefined ? [] : [`token budget per turn (${config.maxTokensPerTurn}) spent`]),
    ...(config.maxTokensPerSession === undefined ? [] : [`token budget per session (${config.maxTokensPerSession}) spent`]),
    `tool-call budget per turn (${config.maxToolCallsPerTurn}) would be exceeded`,
    `tool-call budget per session (${config.maxToolCallsPerSession}) would be exceeded`,
  ];
  if (!budgets.some((budget) => detail.startsWith(budget))) {
    return `failed budget_exhausted with the detail ${JSON.stringify(detail)}, which names none of this run's budgets (${budgets.join('; ')}): the user cannot tell which limit was reached`;
  }
  if (detail.startsWith('tool-call budget per turn') && madeBefore + madeLast <= config.maxToolCallsPerTurn) {
    return `failed budget_exhausted (${detail}), but its ${madeBefore} earlier and ${madeLast} last tool call(s) fit the budget of ${config.maxToolCallsPerTurn}`;
  }
  if (detail.startsWith('tool-call budget per session') && sessionStarted + madeLast <= config.maxToolCallsPerSession) {
    return `failed budget_exhausted (${detail}), but ${sessionStarted} call(s) had run in the session and ${madeLast} more fit the budget of ${config.maxToolCallsPerSession}`;
  }
  return undefined;
}

function tokens(e: Extract<LogEvent, { type: 'model.result' }>): number {
  const usage = e.payload.result.usage;
  return usage ? countable(usage.inputTokens) + countable(usage.outputTokens) : 0;
}

/**
 * A token count as a budget must read it: one past 2^53 − 1 (Infinity included) is
 * 2^53 − 1 — a count no number holds exactly was not zero, and a budget fails
 * closed; NaN or negative is none.
 */
function countable(n: number): number {
  if (n > Number.MAX_SAFE_INTEGER) return Number.MAX_SAFE_INTEGER;
  return Number.isFinite(n) && n > 0 ? n : 0;
}
