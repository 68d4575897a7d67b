/**
 * A connection attempt that times out, as Node's fetch (undici) reports it: a
 * TypeError "fetch failed" whose cause is a ConnectTimeoutError — what a client
 * sees when a firewall drops its packets or the route leads nowhere. No server
 * is ever reached, so the wire fake cannot send it: the client's fetch fails
 * instead, with the error the SDKs read as a timeout.
 */
export function connectTimeoutFetch(address: string, timeoutMs = 10_000): typeof globalThis.fetch {
  return async () => {
    await Promise.resolve();
    const cause = Object.assign(new Error(`Connect Timeout Error (attempted address: ${address}, timeout: ${timeoutMs}ms)`), {
      name: 'ConnectTimeoutError',
      code: 'UND_ERR_CONNECT_TIMEOUT',
    });
    throw new TypeError('fetch failed', { cause });
  };
}
