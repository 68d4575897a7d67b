import type { WireProvider } from '../names.ts';
import { anthropicWire } from './anthropic.ts';
import { openAIChatWire } from './openai-chat.ts';
import { openAIResponsesWire } from './openai-responses.ts';
import type { ProtocolKit } from './protocol.ts';

export const WIRE_KITS: Readonly<Record<WireProvider, ProtocolKit>> = {
  anthropic: anthropicWire,
  'openai-chat': openAIChatWire,
  'openai-responses': openAIResponsesWire,
};
