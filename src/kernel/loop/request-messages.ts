/**
 * The messages of a model request, from the projection's persistent list. A short
 * history is handed over as an array at once (a small copy). A long one is an own
 * enumerable property that becomes the array the first time it is read — by the
 * client, a recorder, a spread of the request — so a step costs the loop what
 * changed, not the length of the history; a client that serializes the messages
 * pays for the array together with its own pass over them. Either way the client
 * sees a frozen array of the messages as they were when the request was made —
 * also when it reads them through another object (a `Proxy` of the request, an
 * object whose prototype it is): the getter holds its list itself, instead of
 * looking it up by the object it was read on (which answered such reads with no
 * messages at all).
 */
import type { Message, ModelRequest } from '../model/client.ts';
import type { MessageList } from '../projection/message-list.ts';

/** Up to this many messages, the array is made at once. */
const EAGER_UP_TO = 256;

/** A request whose `messages` are `list` (see the file comment). */
export function requestWithMessages(list: MessageList, fields: Omit<ModelRequest, 'messages'>): ModelRequest {
  const request: { -readonly [K in keyof ModelRequest]: ModelRequest[K] } = {
    model: fields.model,
    system: fields.system,
    messages: list.length <= EAGER_UP_TO ? list.toArray() : (undefined as unknown as readonly Message[]),
    tools: fields.tools,
    maxTokens: fields.maxTokens,
    signal: fields.signal,
  };
  if (fields.temperature !== undefined) request.temperature = fields.temperature;
  if (fields.timeoutMs !== undefined) request.timeoutMs = fields.timeoutMs;
  if (list.length > EAGER_UP_TO) Object.defineProperty(request, 'messages', { get: () => list.toArray(), enumerable: true, configurable: true });
  return request;
}
