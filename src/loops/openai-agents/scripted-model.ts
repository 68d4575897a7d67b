/**
 * The scenario's provider script as an OpenAI Agents `Model`: each
 * `getResponse` converts the request's items to loopgate's normalized request,
 * asks the harness's scripted model client (on the case's clock, recorded), and
 * answers as an OpenAI model would, inside a generation span (a bare model opens
 * none, and the trace would show no model calls):
 *
 *   reply, tool_use → output items · refusal → a refusal content part
 *   max_tokens → as the Chat Completions model passes it on: the text, and a cut
 *     call as a function_call with truncated arguments (the Responses model
 *     instead throws on `response.incomplete`: the wire level shows that one)
 *   unknown stop → the text (Agents has no finish reason to carry it)
 *   overflow at request, transport errors → a thrown API error with the status
 *     and headers the openai client gives it · an abort → the signal's reason
 */
import { Usage, withGenerationSpan, type Model, type ModelRequest, type ModelResponse } from '@openai/agents';
import type { ModelClient, ModelResult, ToolSpec } from '../../kernel/index.ts';
import { CallEndings, fromAgentItems, outputItems, type Item } from './items.ts';

/** An error shaped as the `openai` client's APIError: a status, headers, and the provider's error body. */
export class ScriptedApiError extends Error {
  readonly status: number | undefined;
  /** A `Headers`, as the `openai` client's APIError carries them: the Agents runner reads retry-after only from one. */
  readonly headers: Headers;
  readonly error: unknown;
  constructor(status: number | undefined, message: string, headers: Record<string, string> = {}, kind = 'api_error') {
    super(status !== undefined ? `${status} ${message}` : message);
    this.name = status === undefined ? 'APIConnectionError' : 'APIError';
    this.status = status;
    this.headers = new Headers(headers);
    this.error = { type: kind, message };
  }
}

const STATUS: Readonly<Record<string, number>> = { rate_limited: 429, overloaded: 529, server_error: 500, auth: 401, invalid_request: 400 };

export class ScriptedAgentsModel implements Model {
  readonly #client: ModelClient;
  readonly #model: string;
  readonly #endings: CallEndings;
  #cuts = 0;

  /** `endings`: how calls ended that the items cannot say (a body threw, the runner timed it out), so the request shows it. */
  constructor(client: ModelClient, model: string, endings: CallEndings = new CallEndings()) {
    this.#client = client;
    this.#model = model;
    this.#endings = endings;
  }

  getResponse(request: ModelRequest): Promise<ModelResponse> {
    return withGenerationSpan(async (span) => {
      span.spanData.model = this.#model;
      const tools: ToolSpec[] = request.tools.flatMap((t) =>
        t.type === 'function' ? [{ name: t.name, description: t.description, inputSchema: t.parameters as ToolSpec['inputSchema'] }] : [],
      );
      const result = await this.#client.call({
        model: this.#model,
        system: request.systemInstructions ?? '',
        messages: fromAgentItems(request.input as string | Item[], this.#endings),
        tools,
        maxTokens: request.modelSettings.maxTokens ?? 4096,
        ...(request.signal ? { signal: request.signal } : {}),
      });
      return this.#answer(result, request.signal);
    });
  }

  getStreamedResponse(): never {
    throw new Error('the scripted model answers run() without streaming (getResponse); streamed runs are not scripted');
  }

  #answer(result: ModelResult, signal: AbortSignal | undefined): ModelResponse {
    const usage = new Usage({ inputTokens: result.usage?.inputTokens ?? 0, outputTokens: result.usage?.outputTokens ?? 0, requests: 1 });
    if (result.type === 'transport_error') {
      if (result.kind === 'aborted' && signal?.aborted) throw signal.reason;
      const headers: Record<string, string> = result.retryAfterMs !== undefined ? { 'retry-after-ms': String(result.retryAfterMs) } : {};
      throw new ScriptedApiError(result.status ?? STATUS[result.kind], result.message, headers, result.kind);
    }
    if (result.type === 'context_window_exceeded' && result.at === 'request')
      throw new ScriptedApiError(400, `context_length_exceeded: ${result.message}`, {}, 'context_length_exceeded');
    if (result.type === 'context_window_exceeded') return { usage, output: [] };
    return { usage, output: outputItems(result, { callId: `cut_${++this.#cuts}` }) as ModelResponse['output'] };
  }
}
