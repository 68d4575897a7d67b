/**
 * A wire scenario's model for the AI SDK: the provider's own package —
 * `@ai-sdk/anthropic`, or `@ai-sdk/openai` (chat or responses) — pointed at the
 * wire fake, so the package parses the provider's real bytes. The fakes speak
 * the streaming protocol, so `generateText` gets the package's `doStream`,
 * gathered into one generate result (text, tool calls with their raw input, the
 * finish reason and usage the package parsed); an error part inside the
 * stream ends it with finish `error`, the text so far kept — as `streamText`
 * reports it.
 */
import type { LanguageModelV3, LanguageModelV3Content, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import type { PeerWorld } from '../../harness/loop-port/peer-world.ts';
import { AgentBuildError } from '../../harness/world/agent-under-test.ts';

/** The AI SDK's own provider package of a wire case is not installed: the case fails in one line saying what to install. */
export class WirePackageMissingError extends AgentBuildError {
  constructor(pkg: string, cause: unknown) {
    super(
      `the AI SDK's wire cases run its own provider package, ${pkg}, which is not installed — an optional peer dependency of loopgate; npm install --save-dev @ai-sdk/anthropic @ai-sdk/openai`,
      { cause },
    );
    this.name = 'WirePackageMissingError';
  }
}

export async function provider<T>(pkg: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if ((error as { code?: unknown })?.code === 'ERR_MODULE_NOT_FOUND') throw new WirePackageMissingError(pkg, error);
    throw error;
  }
}

export async function wireLanguageModel(wire: NonNullable<PeerWorld['wire']>): Promise<LanguageModelV3> {
  let model: LanguageModelV3;
  if (wire.provider === 'anthropic') {
    const { createAnthropic } = await provider('@ai-sdk/anthropic', () => import('@ai-sdk/anthropic'));
    model = createAnthropic({ baseURL: `${wire.baseURL}/v1`, apiKey: wire.apiKey })(wire.model);
  } else {
    const { createOpenAI } = await provider('@ai-sdk/openai', () => import('@ai-sdk/openai'));
    const openai = createOpenAI({ baseURL: wire.baseURL, apiKey: wire.apiKey });
    model = wire.provider === 'openai-chat' ? openai.chat(wire.model) : openai.responses(wire.model);
  }
  return gathered(model);
}

type GenerateResult = Awaited<ReturnType<LanguageModelV3['doGenerate']>>;

function gathered(model: LanguageModelV3): LanguageModelV3 {
  return {
    specificationVersion: 'v3',
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doStream: (options) => model.doStream(options),
    async doGenerate(options): Promise<GenerateResult> {
      const { stream, request, response } = await model.doStream(options);
      const content: LanguageModelV3Content[] = [];
      const inputs = new Map<string, { name: string; input: string }>();
      let text = '';
      let finish: Extract<LanguageModelV3StreamPart, { type: 'finish' }> | undefined;
      const reader = stream.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        switch (value.type) {
          case 'text-delta':
            text += value.delta;
            break;
          case 'text-end':
            if (text) content.push({ type: 'text', text });
            text = '';
            break;
          case 'tool-input-start':
            inputs.set(value.id, { name: value.toolName, input: '' });
            break;
          case 'tool-input-delta': {
            const call = inputs.get(value.id);
            if (call) call.input += value.delta;
            break;
          }
          case 'tool-call':
            inputs.delete(value.toolCallId);
            content.push(value);
            break;
          case 'error':
            finish = { type: 'finish', finishReason: { unified: 'error', raw: errorText(value.error) }, usage: emptyUsage() };
            break;
          case 'finish':
            finish = value;
            break;
          default:
            break;
        }
      }
      if (text) content.push({ type: 'text', text });
      // A call the stream cut off (max_tokens mid-call): what the package left of it, as it left it.
      for (const [id, call] of inputs) content.push({ type: 'tool-call', toolCallId: id, toolName: call.name, input: call.input });
      return {
        content,
        finishReason: finish?.finishReason ?? { unified: 'other', raw: 'stream ended without finish' },
        usage: finish?.usage ?? emptyUsage(),
        warnings: [],
        ...(request ? { request } : {}),
        ...(response ? { response } : {}),
      };
    },
  };
}

function emptyUsage(): GenerateResult['usage'] {
  return {
    inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: undefined, text: undefined, reasoning: undefined },
  };
}

function errorText(error: unknown): string {
  const e = error as { message?: unknown; error?: { message?: unknown } };
  return String(e?.message ?? e?.error?.message ?? JSON.stringify(error)).slice(0, 200);
}
