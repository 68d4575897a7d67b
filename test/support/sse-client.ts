/**
 * Reads a server-sent-events stream from a `fetch` response, as a browser's
 * EventSource would: messages separated by blank lines, `id:`, `event:` and
 * `data:` fields (data lines joined), comments (`:`) skipped.
 */
export interface SseMessage {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: string;
}

export async function* sseMessages(response: Response): AsyncGenerator<SseMessage> {
  if (!response.body) throw new Error('the response has no body');
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let end: number;
      while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + (buffer.startsWith('\r\n\r\n', end) ? 4 : buffer.startsWith('\n\r\n', end) ? 3 : 2));
        let id: string | undefined;
        let event = 'message';
        const data: string[] = [];
        let fields = 0;
        for (const line of block.split(/\r?\n/)) {
          if (line === '' || line.startsWith(':')) continue;
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          fields++;
          if (field === 'id') id = value;
          else if (field === 'event') event = value;
          else if (field === 'data') data.push(value);
        }
        if (fields > 0 && data.length > 0) yield { id, event, data: data.join('\n') };
      }
    }
  } finally {
    reader.releaseLock();
  }
}
