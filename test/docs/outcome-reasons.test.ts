/**
 * The failure reasons the docs list are the kernel's, every one: a session budget
 * ended `failed{budget_exhausted}`, a reason a new user found only by grepping
 * dist/ (outside probe 14, D1).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CANCEL_SOURCES, FAILURE_REASONS } from '../../src/kernel/outcome.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** The paragraph of `file` that starts with `start` (up to the next blank line). */
function paragraph(file: string, start: string): string {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const at = text.indexOf(start);
  expect(at, `${file} has "${start}"`).toBeGreaterThan(-1);
  const end = text.indexOf('\n\n', at);
  return text.slice(at, end === -1 ? undefined : end);
}

describe('the outcome labels the docs list', () => {
  it.each([
    ['README.md', '- **Turns close exactly once**'],
    ['scenarios/README.md', 'Outcome labels:'],
  ])('%s lists every failure reason of the kernel', (file, start) => {
    const text = paragraph(file, start);
    const missing = FAILURE_REASONS.filter((reason) => !text.includes(`\`${reason}\``));
    expect(missing, `${file}: reasons not listed`).toEqual([]);
    for (const source of CANCEL_SOURCES) expect(text).toContain(source);
  });
});
