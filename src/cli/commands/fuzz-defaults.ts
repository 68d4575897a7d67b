/** The default when neither --runs nor --time is given. */
export const DEFAULT_FUZZ_RUNS = 1_000;
