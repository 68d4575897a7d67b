/**
 * Every invariant of the one registry has its row in both tables that tell a user
 * what a check named in a report holds: scenarios/README.md's "Checked on every
 * scenario" and docs/fuzzing.md's. A failing check a user could not look up
 * (`deltas-spell-the-message`, `tools-stop-when-told`, … were in one table and not
 * the other: outside probe 61, LOW-1) sends them grepping the package.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INVARIANTS } from '../../src/harness/invariants/index.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** The ids in the first column of the table under `heading` (up to the next heading). */
function rowsUnder(file: string, heading: string): Set<string> {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const at = text.indexOf(heading);
  expect(at, `${file} has "${heading}"`).toBeGreaterThan(-1);
  const next = text.indexOf('\n#', at + heading.length);
  const section = text.slice(at, next === -1 ? undefined : next);
  return new Set([...section.matchAll(/^\| `([a-z0-9-]+)` \|/gm)].map((m) => m[1]!));
}

describe('the invariants the docs list', () => {
  it.each([
    ['scenarios/README.md', '## Checked on every scenario'],
    ['docs/fuzzing.md', '## The invariants'],
  ])('%s has a row for every invariant of the registry, and none for one that is not', (file, heading) => {
    const rows = rowsUnder(file, heading);
    const ids = INVARIANTS.map((i) => i.id);
    expect(
      ids.filter((id) => !rows.has(id)),
      `${file}: invariants without a row`,
    ).toEqual([]);
    expect(
      [...rows].filter((id) => !ids.includes(id)),
      `${file}: rows naming no invariant`,
    ).toEqual([]);
  });
});
