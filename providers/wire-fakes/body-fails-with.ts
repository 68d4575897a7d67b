/**
 * A fetch whose body read fails with a value that is not an Error. The adapters
 * take a `fetch` of the user's (a wrapper, a proxy agent's, a polyfill); a web
 * stream may be errored with any value, and such a fetch passes it on where
 * Node's own fetch gives TypeError("terminated"). The SDKs rethrow what the read
 * threw as it is, so the adapter's catch sees the bare value. Everything else
 * (status, headers, the body up to the failure) is the wire fake's answer.
 */
export function bodyFailsWithFetch(value: unknown): typeof globalThis.fetch {
  return async (input, init) => {
    const response = await globalThis.fetch(input, init);
    if (response.body === null) return response;
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch {
          controller.error(value);
          return;
        }
        if (chunk.done) controller.close();
        else controller.enqueue(chunk.value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
