/**
 * `loopgate tables [--markdown] [--seed S]`: the loop's state table with each
 * cell's result — every possible cell's fixture is run through the second host.
 * Exit 1 if the loop disagrees with any cell.
 */
import { possibleCells, runCell } from '../../../state-tables/cell-case.ts';
import { cellLabel, LOOP_TABLE, STATE_DESCRIPTIONS, STATES, type State } from '../../../state-tables/loop-table.ts';
import { caseSeed } from '../../harness/cases.ts';
import { EXIT } from '../exit-codes.ts';
import { BOUNDS } from '../arguments.ts';
import { numberArg } from '../usage-error.ts';

export interface TablesArgs {
  markdown: boolean;
  seed: number;
}

export async function tables(args: TablesArgs, out: (line: string) => void): Promise<number> {
  numberArg('seed', args.seed, BOUNDS.seed);
  const results = new Map<string, { passed: boolean; failure?: string }>();
  for (const { event, state, cell } of possibleCells()) {
    const outcome = await runCell(event, state, cell, caseSeed(args.seed, `table:${event}@${state}`));
    const failing = outcome.checks.find((c) => !c.passed);
    results.set(`${event}@${state}`, { passed: !failing, ...(failing ? { failure: `${failing.name}: ${failing.message}` } : {}) });
  }
  const failures = [...results.entries()].filter(([, r]) => !r.passed);
  const mark = (event: string, state: State) => {
    const cell = LOOP_TABLE.find((r) => r.id === event)!.cells[state];
    if (cell.kind === 'impossible') return `— (inv ${cell.invariant.split(':')[0]})`;
    return `${results.get(`${event}@${state}`)?.passed ? '✓' : '✗'} ${cellLabel(cell)}`;
  };
  if (args.markdown) {
    out(`| event \\ state | ${STATES.join(' | ')} |`);
    out(`|---|${STATES.map(() => '---').join('|')}|`);
    for (const row of LOOP_TABLE) out(`| ${row.description} | ${STATES.map((s) => mark(row.id, s).replace(/\|/g, '\\|')).join(' | ')} |`);
    out('');
    out(`States: ${STATES.map((s) => `**${s}**: ${STATE_DESCRIPTIONS[s]}`).join('; ')}.`);
    out(`✓ the fixture agreed with the cell (outcome, history, trace, invariants); ✗ it did not; — impossible (the invariant that rules it out).`);
  } else {
    const width = Math.max(...LOOP_TABLE.map((r) => r.id.length));
    out(`${'event'.padEnd(width)}  ${STATES.map((s) => s.padEnd(26)).join('')}`);
    for (const row of LOOP_TABLE) out(`${row.id.padEnd(width)}  ${STATES.map((s) => mark(row.id, s).slice(0, 25).padEnd(26)).join('')}`);
  }
  out('');
  out(`${results.size - failures.length}/${results.size} possible cells agree with the loop.`);
  for (const [key, r] of failures) out(`✗ ${key}: ${r.failure}`);
  return failures.length > 0 ? EXIT.failed : EXIT.passed;
}
