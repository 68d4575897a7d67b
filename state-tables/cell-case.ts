/**
 * A cell of the loop table as a case: its fixture runs through the second host and
 * is checked three ways (the fixture's expectations), against the invariants, and
 * against the cell itself — so the table, the fixture and the loop must agree.
 */
import { outcomeLabel, type LogEvent } from '../src/kernel/index.ts';
import type { Case, CaseOutcome } from '../src/harness/cases.ts';
import { checkExpectations } from '../src/harness/checks/expectations.ts';
import { checkInvariants } from '../src/harness/invariants/index.ts';
import { outcomeOfRun } from '../src/harness/scenario-case.ts';
import { scenarioSchema } from '../src/harness/scenario/schema.ts';
import { runScenario, type ScenarioRun } from '../src/harness/second-host.ts';
import type { CheckResult } from '../src/report/results.ts';
import { FIXTURES, type Fixture } from './fixtures.ts';
import { cellLabel, LOOP_TABLE, STATES, type Cell, type State } from './loop-table.ts';
import { TABLE_AGENTS } from './table-agent.ts';

export function fixtureFor(event: string, state: State): Fixture | undefined {
  return FIXTURES[event]?.(state);
}

export async function runCell(event: string, state: State, cell: Cell, seed: number): Promise<CaseOutcome> {
  const fixture = fixtureFor(event, state);
  if (!fixture) {
    return { status: 'failed', checks: [{ name: 'table', passed: false, message: `no fixture for the possible cell ${event}@${state} (${cellLabel(cell)})` }] };
  }
  const parsed = scenarioSchema.safeParse({ ...fixture.scenario });
  if (!parsed.success) {
    return {
      status: 'failed',
      checks: [
        {
          name: 'table',
          passed: false,
          message: `fixture ${event}@${state} is not a valid scenario: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
        },
      ],
    };
  }
  const run = await runScenario(parsed.data, {
    seed,
    agents: TABLE_AGENTS,
    ...(fixture.model ? { model: fixture.model } : {}),
    ...(fixture.claim ? { claim: fixture.claim } : {}),
    ...(fixture.errorHandlers ? { errorHandlers: fixture.errorHandlers } : {}),
  });
  const checks = [cellCheck(cell, run, fixture.message), ...checkExpectations(run, parsed.data.expect), ...(await checkInvariants(run))];
  return outcomeOfRun(run, checks);
}

const events = (run: ScenarioRun) => run.log.events.filter((e): e is LogEvent => !e.opaque);

/** What the cell says, checked on the run independently of the fixture's own expectations. */
export function cellCheck(cell: Cell, run: ScenarioRun, message: string | undefined): CheckResult {
  const name = `cell: ${cellLabel(cell)}`;
  const ok = (m: string): CheckResult => ({ name, passed: true, message: m });
  const bad = (m: string, expected?: unknown, actual?: unknown): CheckResult => ({
    name,
    passed: false,
    message: m,
    ...(expected !== undefined ? { expected } : {}),
    ...(actual !== undefined ? { actual } : {}),
  });
  const all = events(run);
  const turnOf = (text: string) => all.filter((e) => e.type === 'user.message' && e.payload.text === text).map((e) => (e.payload as { turn: number }).turn);
  switch (cell.kind) {
    case 'outcome': {
      const last = run.results[run.results.length - 1];
      const label = last ? outcomeLabel(last.outcome) : '(no turn)';
      return label === cell.outcome
        ? ok(`the turn closed as ${label}`)
        : bad(`the cell says ${cell.outcome}, the loop closed the turn as ${label}`, cell.outcome, label);
    }
    case 'queued': {
      if (!message) return bad('the fixture does not name its message');
      const turns = turnOf(message);
      if (cell.until === 'next turn') {
        if (turns.length === 0) {
          const pending = run.log.positions.pending().some((m) => m.text === message);
          return pending ? ok('still pending, for the next turn') : bad('the message was neither delivered nor pending');
        }
        return turns.every((t) => t > 0)
          ? ok(`delivered in turn ${turns.join(', ')}, after the running one`)
          : bad(`delivered in the running turn ${turns[0]}`, 'a later turn', turns);
      }
      return turns.length === 1 && turns[0] === 0
        ? ok('delivered at a later step of the running turn')
        : bad(`expected one delivery in turn 0, got turns ${JSON.stringify(turns)}`, [0], turns);
    }
    case 'ignored': {
      if (message) {
        const opened = all.filter((e) => e.type === 'turn.opened').length;
        return opened === 1 && turnOf(message).length === 0 ? ok('no turn was woken for it') : bad(`it woke the loop (${opened} turns)`);
      }
      const cancels = all.filter((e) => e.type === 'cancel.requested').length;
      return cancels === 0 ? ok('nothing recorded, nothing cancelled') : bad(`${cancels} cancel(s) recorded while idle`);
    }
    case 'next': {
      switch (cell.state) {
        case 'CLAIMING': {
          const turns = message ? turnOf(message) : [];
          return turns.length === 1 && turns[0]! > 0 ? ok(`it opened turn ${turns[0]}`) : bad('it did not open a new turn', 'a new turn', turns);
        }
        case 'MODEL': {
          const firstTurnRequests = all.filter((e) => e.type === 'model.request' && e.payload.turn === 0).length;
          return firstTurnRequests >= 2 ? ok(`${firstTurnRequests} requests in the turn`) : bad('no further request in the turn', '≥ 2', firstTurnRequests);
        }
        case 'TOOLS':
          return all.some((e) => e.type === 'tool.started') ? ok('a tool call started') : bad('no tool call started');
        case 'RECOVERING':
          return all.some((e) => e.type === 'model.error_handled' && e.payload.action === 'retry')
            ? ok('the error chain retried')
            : bad('no retry by the error chain');
        case 'CHECKPOINT':
          return run.traces.some((t) => t.spans.some((s) => s.kind === 'checkpoint')) ? ok('the pre-close hooks ran') : bad('no checkpoint span');
        case 'IDLE':
          return run.results.length > 0 ? ok('the turn closed') : bad('no turn closed');
      }
    }
    case 'impossible':
      return bad('an impossible cell has no fixture');
  }
}

export interface CellRef {
  readonly event: string;
  readonly state: State;
  readonly cell: Cell;
}

export function possibleCells(): CellRef[] {
  const out: CellRef[] = [];
  for (const row of LOOP_TABLE)
    for (const state of STATES) if (row.cells[state].kind !== 'impossible') out.push({ event: row.id, state, cell: row.cells[state] });
  return out;
}

export function tableCases(): Case[] {
  return possibleCells().map(({ event, state, cell }) => ({
    id: `table:${event}@${state}`,
    kind: 'table' as const,
    title: `${LOOP_TABLE.find((r) => r.id === event)!.description} — while ${state}: ${cellLabel(cell)}`,
    file: 'state-tables/fixtures.ts',
    run: ({ seed }) => runCell(event, state, cell, seed),
  }));
}
