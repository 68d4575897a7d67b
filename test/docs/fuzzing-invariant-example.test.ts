/**
 * docs/fuzzing.md's custom invariant (`neverDoubleBooks`) runs as written: its code
 * block is taken from the doc and checked against the run a double booking leaves
 * when the model repeats a call's id — the loop renames the repeat (m1 → m1_2), so
 * counting runs per call id alone sees two calls that ran once each (probe 15).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Invariant } from '../../src/index.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'loopgate-fuzzing-doc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function docInvariant(): Promise<Invariant> {
  const doc = readFileSync(join(ROOT, 'docs/fuzzing.md'), 'utf8');
  const block = /const neverDoubleBooks = defineInvariant\(\{[\s\S]*?\n\}\);\n/.exec(doc)?.[0];
  if (!block) throw new Error('docs/fuzzing.md has no neverDoubleBooks block');
  const file = join(dir, 'invariant.ts');
  writeFileSync(file, `import { defineInvariant } from ${JSON.stringify(join(ROOT, 'src/index.ts'))};\n${block}export { neverDoubleBooks };\n`);
  return ((await import(file)) as { neverDoubleBooks: Invariant }).neverDoubleBooks;
}

/** What the invariant reads of a run: the runs per tool and call id, and the log's calls (a repeat knows what it repeats). */
function runWith(calls: [string, number, string | undefined][]) {
  return {
    executionsByToolCall: new Map([['book_room', new Map(calls.map(([id, n]) => [id, n]))]]),
    log: { positions: { call: (id: string) => ({ repeatOf: calls.find(([c]) => c === id)?.[2] }) } },
  };
}

describe("docs/fuzzing.md's custom invariant", () => {
  it('sees a booking run again under a repeated (renamed) id, and holds for two bookings', async () => {
    const invariant = await docInvariant();
    const check = (run: ReturnType<typeof runWith>) => invariant.check(run as never, {} as never);
    expect(
      await check(
        runWith([
          ['m1', 1, undefined],
          ['m1_2', 1, 'm1'],
        ]),
      ),
    ).toBe('booking call m1 ran 2 times');
    expect(
      await check(
        runWith([
          ['m1', 1, undefined],
          ['m2', 1, undefined],
        ]),
      ),
    ).toBeUndefined();
    expect(await check(runWith([['m1', 2, undefined]]))).toBe('booking call m1 ran 2 times');
  });
});
