/**
 * A fetch that does not pass the abort signal on: a user's wrapper (a logging or
 * header-adding one) that builds its own init from the method, headers and body
 * and leaves the signal out. Aborting the SDK's request then never reaches the
 * connection: a stalled body stays open, and the SDK waits on it. The call must
 * still end at its deadline or its caller's abort.
 */
export function signalDroppingFetch(): typeof globalThis.fetch {
  return (input, init) => {
    const { signal: _dropped, ...rest } = init ?? {};
    return globalThis.fetch(input, rest);
  };
}
