/**
 * The commit the project a run is made from is at, for its results (`suite.commit`,
 * which merge-reports holds shards of one run to): CI's own variable when it sets
 * one, else the git HEAD of the working directory; undefined when neither says.
 */
import { spawnSync } from 'node:child_process';

/** Where CI systems put the commit a job runs (GitHub Actions, GitLab, Buildkite, CircleCI, Jenkins). */
const CI_COMMIT_VARIABLES = ['GITHUB_SHA', 'CI_COMMIT_SHA', 'BUILDKITE_COMMIT', 'CIRCLE_SHA1', 'GIT_COMMIT'] as const;

const COMMIT = /^[0-9a-f]{7,64}$/i;

export function projectCommit(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
  gitHead: (cwd: string) => string | undefined = readGitHead,
): string | undefined {
  for (const name of CI_COMMIT_VARIABLES) {
    const value = env[name]?.trim();
    if (value && COMMIT.test(value)) return value.toLowerCase();
  }
  const head = gitHead(cwd)?.trim();
  return head && COMMIT.test(head) ? head.toLowerCase() : undefined;
}

/** `git rev-parse HEAD` in `cwd`: undefined outside a repository, without git, or if it takes more than 2 s. */
function readGitHead(cwd: string): string | undefined {
  try {
    const git = spawnSync('git', ['rev-parse', '--verify', '--quiet', 'HEAD'], { cwd, encoding: 'utf8', timeout: 2_000, stdio: ['ignore', 'pipe', 'ignore'] });
    return git.status === 0 ? git.stdout : undefined;
  } catch {
    return undefined;
  }
}
