/** Exit codes, the same for every command. No imports: `--help` and `--version` load it. */
export const EXIT = {
  /** Everything passed. */
  passed: 0,
  /** Failures or regressions. */
  failed: 1,
  /** Usage, config or input errors. */
  usage: 2,
  /** Stopped by SIGINT (Ctrl-C), as a shell reports it (128 + 2): the command did not finish; `run` leaves no report. */
  interrupted: 130,
  /** Stopped by SIGTERM (a CI runner cancelling the job), 128 + 15: as `interrupted`. */
  terminated: 143,
} as const;
