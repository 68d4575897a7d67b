/** Exit codes, the same for every command. No imports: `--help` and `--version` load it. */
export const EXIT = {
  /** Everything passed. */
  passed: 0,
  /** Failures or regressions. */
  failed: 1,
  /** Usage, config or input errors. */
  usage: 2,
} as const;
