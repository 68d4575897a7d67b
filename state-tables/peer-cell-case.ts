/**
 * The loop table's cells run against another framework's loop (`loopgate run
 * --loop ai-sdk`): each fixture is a scenario, so it goes through the same port,
 * the same capability skips and the same peer-neutral checks as a scenario file.
 * A fixture that needs a part a scenario cannot express (a deliberately broken
 * model client, a claim policy, an error handler) is loopgate's alone: skipped,
 * saying so. Of the cell itself, what can be seen from outside is checked: the
 * outcome it names, and a cancel while idle cancelling nothing.
 */
import { outcomeLabel } from '../src/kernel/index.ts';
import type { Case } from '../src/harness/cases.ts';
import { runPeerCase, type PeerSuite } from '../src/harness/loop-port/peer-case.ts';
import type { PeerRun } from '../src/harness/loop-port/peer-run.ts';
import { scenarioSchema } from '../src/harness/scenario/schema.ts';
import type { CheckResult } from '../src/report/results.ts';
import { fixtureFor, possibleCells } from './cell-case.ts';
import { cellLabel, LOOP_TABLE, type Cell } from './loop-table.ts';
import { TABLE_AGENTS } from './table-agent.ts';

export function peerTableCases(suite: PeerSuite): Case[] {
  return possibleCells().map(({ event, state, cell }) => ({
    id: `table:${event}@${state}`,
    kind: 'table' as const,
    title: `${LOOP_TABLE.find((r) => r.id === event)!.description} — while ${state}: ${cellLabel(cell)}`,
    file: 'state-tables/fixtures.ts',
    run: async ({ seed }) => {
      const fixture = fixtureFor(event, state);
      if (!fixture) return { status: 'failed' as const, checks: [{ name: 'table', passed: false, message: `no fixture for ${event}@${state}` }] };
      const parts = [fixture.model && 'a model client', fixture.claim && 'a claim policy', fixture.errorHandlers && 'error handlers'].filter(Boolean);
      if (parts.length > 0)
        return {
          status: 'skipped' as const,
          checks: [],
          skipReason: `the fixture gives loopgate's loop ${parts.join(' and ')} of its own, which no scenario (and no peer) can take`,
        };
      const scenario = scenarioSchema.parse({ ...fixture.scenario });
      return runPeerCase(scenario, { ...suite, registry: TABLE_AGENTS }, seed, (run) => [peerCellCheck(cell, run)]);
    },
  }));
}

export function peerCellCheck(cell: Cell, run: PeerRun): CheckResult {
  const name = `cell: ${cellLabel(cell)}`;
  if (cell.kind === 'outcome') {
    const last = run.reports[run.reports.length - 1];
    const label = run.unsettled ? `(turn ${run.unsettled.turn} never ended)` : last ? outcomeLabel(last.outcome) : '(no turn)';
    return label === cell.outcome
      ? { name, passed: true, message: `the turn closed as ${label}` }
      : { name, passed: false, message: `the cell says ${cell.outcome}, ${run.loop.id} closed the turn as ${label}`, expected: cell.outcome, actual: label };
  }
  if (cell.kind === 'ignored' && !run.sent.some((_, i) => i > 0)) {
    const cancelled = run.reports.filter((r) => r.outcome.kind === 'cancelled').length;
    return cancelled === 0
      ? { name, passed: true, message: 'nothing was cancelled' }
      : { name, passed: false, message: `${cancelled} turn(s) cancelled while idle` };
  }
  return { name, passed: true, message: `not judged from outside: the cell names loopgate's own state (${cell.kind}); its outcome classes and invariants are` };
}
