/**
 * vitest config of the "suite" judge: the repository's own (every test of
 * `npm test`), with longer time limits — Stryker runs the test files one at a
 * time on instrumented code, and a test that times out in its first run stops
 * the whole mutation run.
 *
 * The gate judge's cases (gate.judge.ts) run too: `npm test` runs the same
 * cases in its own files, and with them here the whole suite contains the gate
 * exactly, so a suite run after a gate run (`--after-gate`) may carry the gate's
 * kills over instead of judging them again.
 *
 * Two test files are left out; both run the code in a child process, where no
 * mutant is active, so neither could kill one:
 * - test/cli/break-a-transition.test.ts reads src/kernel/loop/runner.ts as text
 *   to prove its hook rewrites a real line; in Stryker's sandbox that file holds
 *   the instrumented code, so it always fails there.
 * - test/consumer/consumer.test.ts packs the package (`npm pack`, whose build
 *   refuses the instrumented sources) and runs it installed in a new project.
 * Nor do the files below, which import nothing of the product into the test's
 * own process — each runs `loopgate` (or a script) in a child process, where no
 * mutant is active — so they can never kill one; left out, Stryker's first run
 * of the suite (19 min on seed 15) is spent on tests that can.
 */
import { configDefaults, mergeConfig } from 'vitest/config';
import base from '../../vitest.config.ts';

/** Test files that import nothing of the product: every check runs it in a child process (its imports are in the YAML or config it writes). */
const CHILD_PROCESS_ONLY = [
  'test/cli/bin-choice.test.ts',
  'test/cli/check-host.test.ts',
  'test/cli/fuzz-config-loop.test.ts',
  'test/cli/loop.test.ts',
  'test/cli/own-loop.test.ts',
  'test/cli/own-peer-loop.test.ts',
  'test/cli/peer-verdicts.test.ts',
  'test/cli/run-baseline-loop.test.ts',
  'test/cli/start-crash.test.ts',
  'test/cli/typos.test.ts',
  'test/docs/readme-example.test.ts',
  'test/fuzz/starved-case.test.ts',
  'test/scripts/gate-coverage.test.ts',
  'test/soak/host-soak.test.ts',
  'test/vitest-entry/nothing-checked.test.ts',
  'test/vitest-entry/pinned-verdicts.test.ts',
];

export default mergeConfig(base, {
  test: {
    root: new URL('../..', import.meta.url).pathname,
    // mergeConfig adds to the base's include list.
    include: ['bench/mutation/gate.judge.ts'],
    testTimeout: 240_000,
    hookTimeout: 240_000,
    exclude: [
      ...configDefaults.exclude,
      'test/consumer/fixture-project/**',
      'test/cli/break-a-transition.test.ts',
      'test/consumer/consumer.test.ts',
      ...CHILD_PROCESS_ONLY,
    ],
  },
});
