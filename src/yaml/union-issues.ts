/**
 * A value a union refused, told as the user meant it. zod says only "Invalid
 * input" for a union; here the issue becomes the issues of the one branch the
 * value's shape took (an object with the branch's keys, whose fault is deeper
 * in, or the one object branch short of the fewest keys: a misspelled key), or, when no branch took it, one line naming what each branch accepts,
 * with the closest word as a did-you-mean.
 */
import type { z } from 'zod';
import { closestName } from '../kernel/index.ts';
import { branchesAt } from './known-keys.ts';
import { valueAt } from './value-at.ts';

type Issue = z.core.$ZodIssue;

/** The issues to report for `issue`: itself unless it is a union's, whose branches tell more. */
export function explainUnions(issue: Issue, schema: z.ZodType, data: unknown): Issue[] {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return [issue];
  const path = issue.path;
  // A branch took the value when none of its issues is about the value as a whole.
  const took = issue.errors.filter((branch) => branch.length > 0 && branch.every((i) => i.path.length > 0));
  if (took.length > 0) {
    const fewest = took.reduce((best, branch) => (branch.length < best.length ? branch : best));
    return fewest.flatMap((inner) => explainUnions({ ...inner, path: [...path, ...inner.path] } as Issue, schema, data));
  }
  // Else an object branch that knows all the value's keys but the fewest: its unknown keys are the fault (a misspelling).
  const unknownCount = (branch: readonly Issue[]) =>
    branch.every((i) => i.path.length > 0 || i.code === 'unrecognized_keys')
      ? branch.reduce((n, i) => n + (i.path.length === 0 && i.code === 'unrecognized_keys' ? i.keys.length : 0), 0)
      : Number.POSITIVE_INFINITY;
  const counts = issue.errors.map(unknownCount);
  const least = Math.min(...counts);
  if (least !== Number.POSITIVE_INFINITY && counts.filter((n) => n === least).length === 1) {
    const branch = issue.errors[counts.indexOf(least)]!;
    return branch.flatMap((inner) => explainUnions({ ...inner, path: [...path, ...inner.path] } as Issue, schema, data));
  }
  const { texts, words } = branchesAt(schema, path);
  if (texts.length === 0) return [issue];
  const given = valueAt(data, path);
  const near = typeof given === 'string' ? closestName(given, words) : undefined;
  return [{ ...issue, message: `Invalid input: expected ${listed(texts)}${near ? ` (did you mean ${near}?)` : ''}` }];
}

function listed(texts: readonly string[]): string {
  if (texts.length <= 2) return texts.join(' or ');
  return `${texts.slice(0, -1).join(', ')}, or ${texts[texts.length - 1]}`;
}
