import { describe, expect, it } from 'vitest';
import { fixtureFor, possibleCells, runCell } from './cell-case.ts';
import { FIXTURES } from './fixtures.ts';
import { cellLabel, LOOP_TABLE, STATES } from './loop-table.ts';

describe('the loop table', () => {
  it('has a cell for every (event, state) pair, and impossible cells name their invariant and enforcer', () => {
    for (const row of LOOP_TABLE) {
      expect(Object.keys(row.cells).sort(), row.id).toEqual([...STATES].sort());
      for (const state of STATES) {
        const cell = row.cells[state];
        expect(cell, `${row.id}@${state}`).toBeDefined();
        if (cell.kind === 'impossible') {
          expect(cell.invariant, `${row.id}@${state}`).toMatch(/^\d+: /);
          expect(cell.enforcedBy.length, `${row.id}@${state}`).toBeGreaterThan(0);
        }
      }
    }
    expect(new Set(LOOP_TABLE.map((r) => r.id)).size).toBe(LOOP_TABLE.length);
  });

  it('has a fixture for every possible cell, and none for an impossible one', () => {
    for (const row of LOOP_TABLE) {
      expect(FIXTURES[row.id], `fixtures for ${row.id}`).toBeDefined();
      for (const state of STATES) {
        const fixture = fixtureFor(row.id, state);
        if (row.cells[state].kind === 'impossible') expect(fixture, `${row.id}@${state} is impossible`).toBeUndefined();
        else expect(fixture, `${row.id}@${state} (${cellLabel(row.cells[state])})`).toBeDefined();
      }
    }
    expect(Object.keys(FIXTURES).sort()).toEqual(LOOP_TABLE.map((r) => r.id).sort());
  });

  describe('every possible cell: the loop agrees, three ways', () => {
    for (const { event, state, cell } of possibleCells()) {
      it(`${event} while ${state} → ${cellLabel(cell)}`, async () => {
        const outcome = await runCell(event, state, cell, 7);
        const failing = outcome.checks.filter((c) => !c.passed);
        expect(failing, JSON.stringify(failing, null, 2)).toEqual([]);
      });
    }
  });
});
