/**
 * The command line's own contract, checked by `loopgate run` with the bundled suite: what a user types or lays out
 * that loopgate must take. Each was broken in an outside probe and passed every other case (outside probe 71):
 * - every numeric flag takes the bounds its help states, both ends (`--seed 4294967295` refused: no case tried one);
 * - a project whose config is any of the documented file names is found (`loopgate.config.mjs` dropped: the user's
 *   suite quietly not run, the bundled one passing in its place);
 * - a counterexample folder moved into a scenario folder is read again (the marker ignoring where it was written: the
 *   moved counterexamples quietly skipped).
 */
import { mkdtempSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checksCase, type Case } from '../harness/cases.ts';
import { CONFIG_NAMES, findConfigFile } from '../config/load-config.ts';
import { isMarkedOutput, markAsOutput } from '../files/output-marker.ts';
import type { CheckResult } from '../report/results.ts';
import { BOUNDS, readNumber, type NumberRange } from './arguments.ts';

const FILE = 'src/cli/contract-cases.ts';

/** Each bound: its ends taken, one step past each refused (an exception inside the range refused too). */
function numbersTakeTheirBounds(): CheckResult[] {
  return Object.entries(BOUNDS as Readonly<Record<string, NumberRange>>).map(([name, range]) => {
    const step = range.integer ? 1 : 0.001;
    const taken = [range.minExclusive ? undefined : range.min, range.max].filter((n): n is number => n !== undefined && !range.except?.includes(n));
    const refused = [range.minExclusive ? range.min : range.min - step, ...(range.max !== undefined ? [range.max + step] : []), ...(range.except ?? [])];
    const wrong = [
      ...taken.filter((n) => 'problem' in readNumber(name, String(n), range)).map((n) => `${n} refused`),
      ...refused.filter((n) => 'value' in readNumber(name, String(n), range)).map((n) => `${n} taken`),
    ];
    return {
      name: `--${name}: its bounds`,
      passed: wrong.length === 0,
      message: wrong.length === 0 ? `takes ${taken.join(' and ')}; refuses ${refused.join(', ')}` : wrong.join('; '),
    };
  });
}

/** A project holding only one of the documented config files: found, whichever it is. */
function everyConfigNameFound(): CheckResult[] {
  const names = ['loopgate.config.ts', 'loopgate.config.mts', 'loopgate.config.js', 'loopgate.config.mjs'];
  const undocumented = CONFIG_NAMES.filter((name) => !names.includes(name));
  const listed: CheckResult = {
    name: 'the names looked for are the documented ones',
    passed: undocumented.length === 0,
    message:
      undocumented.length === 0 ? CONFIG_NAMES.join(', ') : `looked for but not checked here: ${undocumented.join(', ')} (add it to this case and the docs)`,
  };
  return [
    listed,
    ...names.map((name) => {
      const project = mkdtempSync(join(tmpdir(), 'loopgate-config-name-'));
      try {
        writeFileSync(join(project, name), 'export default {};\n');
        mkdirSync(join(project, 'scenarios'));
        const found = findConfigFile(join(project, 'scenarios'));
        return {
          name: `${name} found`,
          passed: found === join(project, name),
          message:
            found === join(project, name)
              ? `found from a folder inside the project`
              : `found ${found ?? 'no config'} (the names looked for: ${CONFIG_NAMES.join(', ')})`,
        };
      } finally {
        rmSync(project, { recursive: true, force: true });
      }
    }),
  ];
}

/** A marked output folder is skipped where it was written, read once moved. */
async function movedOutputReadAgain(): Promise<CheckResult[]> {
  const root = mkdtempSync(join(tmpdir(), 'loopgate-output-moved-'));
  try {
    const written = join(root, 'reports');
    mkdirSync(written);
    await markAsOutput(written);
    const markedWhereWritten = isMarkedOutput(written);
    const moved = join(root, 'scenarios-regressions');
    renameSync(written, moved);
    const markedMoved = isMarkedOutput(moved);
    return [
      { name: 'skipped where it was written', passed: markedWhereWritten, message: markedWhereWritten ? 'marked' : 'not marked where it was written' },
      {
        name: 'read again once moved',
        passed: !markedMoved,
        message: markedMoved ? 'still taken as output after the move: its counterexamples would be skipped' : 'read as scenarios',
      },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export function cliContractCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:cli/numbers-take-their-stated-bounds',
        title: 'cli: every numeric flag takes both ends of the range its help states, and nothing past them',
        file: FILE,
      },
      numbersTakeTheirBounds,
    ),
    checksCase(
      { id: 'contract:cli/every-config-file-name-found', title: 'cli: a project holding any one of the documented config file names has it found', file: FILE },
      everyConfigNameFound,
    ),
    checksCase(
      {
        id: 'contract:cli/moved-output-folder-read-again',
        title: 'cli: an output folder is skipped where it was written and read again once moved into the scenarios',
        file: FILE,
      },
      movedOutputReadAgain,
    ),
  ];
}
