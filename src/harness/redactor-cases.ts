/**
 * Where a redactor finds secrets, as a case of `loopgate run`:
 * `contract:redactor/<id>`.
 *
 * `createRedactor` is public (the package's index exports it), and so is what
 * its `find(text)` answers: the spans of the secrets in a text, sorted by start
 * (`Redactor.find`'s documented contract) — what a team's own stream redactor
 * or a UI that marks secrets in a transcript reads. The loop itself only moves
 * a cut left past every span (stream.ts `safeCut`), which any order gives, so
 * no scenario sees the order: this case asks `find`. The text holds a
 * configured secret that is also a credential shape (found twice: as the secret
 * and by the pattern), then a second secret.
 */
import { createRedactor } from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { checksCase, type Case } from './cases.ts';

const KEY = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';
const PASSWORD = 'hunter2-correct-horse';

function findSorted(): CheckResult[] {
  const text = `key=${KEY} password=${PASSWORD}`;
  const spans = createRedactor({ secrets: [KEY, PASSWORD] }).find?.(text);
  const at = (s: string): [number, number] => [text.indexOf(s), text.indexOf(s) + s.length];
  const expected = JSON.stringify([at(KEY), at(PASSWORD)]);
  const actual = JSON.stringify(spans) ?? 'no find';
  return [
    {
      name: 'each secret once, sorted by start',
      passed: actual === expected,
      message: actual === expected ? expected : `expected ${expected}, got ${actual}`,
      expected,
      actual,
    },
  ];
}

export function redactorCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:redactor/find-sorted-by-start-each-once',
        title: "redactor: find answers the secrets' spans sorted by start, a secret the patterns also match once",
        file: 'src/harness/redactor-cases.ts',
        secrets: [KEY, PASSWORD],
      },
      findSorted,
    ),
  ];
}
