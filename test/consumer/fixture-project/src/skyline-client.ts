/**
 * The travel team's client for its in-house model gateway, "skyline": one JSON
 * answer per request (no streaming). `SKYLINE_BUG=no-retry-after` is the bug
 * the gate must catch: the gateway's retry-after is ignored.
 */
import type { AssistantBlock, ModelClient, ModelRequest, ModelResult, TransportErrorKind } from 'loopgate';

export interface SkylineOptions {
  readonly baseURL: string;
  readonly apiKey: string;
}

interface SkylineAnswer {
  readonly blocks: readonly ({ type: 'text'; text: string } | { type: 'call'; id: string; name: string; args: string })[];
  readonly stop: 'end' | 'tool_use';
  readonly usage: { input: number; output: number };
}

function failed(kind: TransportErrorKind, message: string, extra: { status?: number; retryAfterMs?: number } = {}): ModelResult {
  return { type: 'transport_error', kind, message, ...extra };
}

/** The wait a 429 or 5xx asked for, in ms (retry-after in seconds), if it said. */
function retryAfter(response: Response): number | undefined {
  const header = response.headers.get('retry-after');
  if (header === null || header.trim() === '' || process.env.SKYLINE_BUG === 'no-retry-after') return undefined;
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}

function kindOf(status: number): TransportErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate_limited';
  if (status === 503) return 'overloaded';
  if (status >= 500) return 'server_error';
  return 'invalid_request';
}

export function createSkylineClient(options: SkylineOptions): ModelClient {
  return {
    name: 'skyline',
    async call(request: ModelRequest): Promise<ModelResult> {
      const lost = (error: unknown) =>
        failed(request.signal?.aborted ? 'aborted' : 'network', `skyline: ${error instanceof Error ? error.message : String(error)}`);
      let response: Response;
      let text: string;
      try {
        response = await fetch(`${options.baseURL}/v1/generate`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${options.apiKey}` },
          body: JSON.stringify({ model: request.model, system: request.system, messages: request.messages, tools: request.tools.map((t) => t.name) }),
          ...(request.signal ? { signal: request.signal } : {}),
        });
        text = await response.text();
      } catch (error) {
        return lost(error);
      }
      if (response.status !== 200) {
        const wait = retryAfter(response);
        return failed(kindOf(response.status), `skyline answered ${response.status}`, {
          status: response.status,
          ...(wait !== undefined ? { retryAfterMs: wait } : {}),
        });
      }
      let answer: SkylineAnswer;
      try {
        answer = JSON.parse(text) as SkylineAnswer;
      } catch {
        return failed('malformed_stream', 'skyline answered 200 with a body that is not JSON');
      }
      const content: AssistantBlock[] = [];
      const calls: { id: string; name: string; args: unknown }[] = [];
      for (const block of answer.blocks) {
        if (block.type === 'text') content.push({ type: 'text', text: block.text });
        else {
          let args: unknown;
          try {
            args = JSON.parse(block.args);
          } catch {
            return failed('malformed_stream', `skyline sent call ${block.id} with arguments that are not JSON`);
          }
          content.push({ type: 'tool_call', id: block.id, name: block.name, args });
          calls.push({ id: block.id, name: block.name, args });
        }
      }
      const usage = { inputTokens: answer.usage.input, outputTokens: answer.usage.output };
      const joined = content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
      if (answer.stop === 'tool_use') return { type: 'tool_use', content, calls, text: joined, usage, stopReason: 'tool_use' };
      return { type: 'reply', content, text: joined, usage, stopReason: 'end' };
    },
  };
}
