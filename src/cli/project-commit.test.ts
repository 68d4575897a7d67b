/** A run's commit: CI's variable first, the working directory's git HEAD otherwise, nothing when neither says. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectCommit } from './project-commit.ts';

const SHA = '0123456789abcdef0123456789abcdef01234567';

describe('projectCommit', () => {
  it("takes CI's commit variable before git, and only a commit id", () => {
    expect(projectCommit('.', { GITHUB_SHA: SHA.toUpperCase() }, () => 'f'.repeat(40))).toBe(SHA);
    expect(projectCommit('.', { CI_COMMIT_SHA: 'not a commit' }, () => `${'f'.repeat(40)}\n`)).toBe('f'.repeat(40));
    expect(projectCommit('.', {}, () => undefined)).toBeUndefined();
    expect(projectCommit('.', {}, () => 'fatal: not a git repository')).toBeUndefined();
  });

  it('reads the git HEAD of a checkout, and nothing outside one', () => {
    expect(projectCommit(process.cwd(), {})).toMatch(/^[0-9a-f]{40}$/);
    expect(projectCommit(mkdtempSync(join(tmpdir(), 'no-git-')), {})).toBeUndefined();
  });
});
