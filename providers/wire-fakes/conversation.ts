/**
 * What a request body said to the model, read back from the wire: the system
 * prompt, the declared tools and the conversation, one short line each, in the
 * same form for every protocol — so the contract suite can check that an adapter
 * sent the loop's request as it was (each call's arguments, each result under
 * its call's id, nothing dropped, nothing reordered).
 *
 *   max tokens: <n>                    (the protocol's output limit: max_tokens,
 *                                       max_completion_tokens, max_output_tokens)
 *   temperature: <n>                   (only when the request sets one, or the body
 *                                       carries one)
 *   system: <text>
 *   tool <name>: <description> <schema as canonical JSON>
 *   user: <text>                       assistant: <text>
 *   call <name>#<id> <arguments as canonical JSON>
 *   result#<call id>[ (error)]: <content>
 *   store: <value>                     (Responses only, last)
 *
 * The Responses API keeps what it is sent unless the body says `store: false`;
 * loopgate's log is the record, so its adapter says false (a body without the
 * field reads `store: (absent)`).
 *
 * A body the protocol would not produce reads as a line saying what is off
 * (`?: …`), never a throw: the comparison then fails, naming it.
 */
import { canonicalJson, type Message, type ModelRequest } from '../../src/kernel/index.ts';
import type { WireProvider } from '../names.ts';

/** Keys sorted at every level: the same arguments give the same text, whatever their order (`undefined` as a word). */
const canonical = (value: unknown): string => canonicalJson(value) ?? 'undefined';

/** Arguments sent as a JSON string (OpenAI) read as the value they hold. */
function parsedArgs(text: unknown): string {
  if (typeof text !== 'string') return `?: arguments not a string (${canonical(text)})`;
  try {
    return canonical(JSON.parse(text));
  } catch {
    return `?: arguments not JSON (${text})`;
  }
}

/**
 * The lines the loop's request should read as on `provider`'s wire. Only the
 * Messages API marks a result that is not `ok` (`is_error`); OpenAI's protocols
 * carry that in the content alone.
 */
export function requestConversation(request: ModelRequest, provider: WireProvider): string[] {
  const lines: string[] = [`max tokens: ${request.maxTokens}`];
  if (request.temperature !== undefined) lines.push(`temperature: ${canonical(request.temperature)}`);
  if (request.system !== '') lines.push(`system: ${request.system}`);
  for (const t of request.tools) lines.push(`tool ${t.name}: ${t.description} ${canonical(t.inputSchema)}`);
  for (const m of request.messages) lines.push(...messageLines(m, provider));
  if (provider === 'openai-responses') lines.push('store: false');
  return lines;
}

/**
 * A call's arguments as the protocol carries them: OpenAI sends the JSON text of
 * any value (`{}` for none or null); a Messages `tool_use` input must be an
 * object, so anything else goes as `{"value": …}` there (none as `{}`).
 */
function sentArgs(args: unknown, anthropic: boolean): unknown {
  if (args === undefined) return {};
  if (!anthropic || (typeof args === 'object' && args !== null && !Array.isArray(args))) return args ?? {};
  return { value: args };
}

/**
 * Chat Completions carries an assistant message's texts in `content` and its
 * calls in `tool_calls`, so its texts read before its calls; the other protocols
 * keep the blocks' order.
 */
function messageLines(message: Message, provider: WireProvider): string[] {
  const anthropic = provider === 'anthropic';
  const lines: string[] = [];
  if (message.role === 'user') {
    // Every protocol sends a message's tool results before its text.
    for (const b of message.content)
      if (b.type === 'tool_result') lines.push(`result#${b.callId}${b.status !== 'ok' && anthropic ? ' (error)' : ''}: ${b.content}`);
    for (const b of message.content) if (b.type === 'text' && b.text !== '') lines.push(`user: ${b.text}`);
    return lines;
  }
  const calls: string[] = [];
  for (const b of message.content) {
    if (b.type === 'text') {
      if (b.text !== '') lines.push(`assistant: ${b.text}`);
    } else (provider === 'openai-chat' ? calls : lines).push(`call ${b.name}#${b.id} ${canonical(sentArgs(b.args, anthropic))}`);
  }
  return [...lines, ...calls];
}

/** The lines a request body of `provider`'s protocol reads as. */
export function sentConversation(provider: WireProvider, body: unknown): string[] {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  switch (provider) {
    case 'anthropic':
      return anthropicLines(b);
    case 'openai-chat':
      return chatLines(b);
    case 'openai-responses':
      return responsesLines(b);
  }
}

type Obj = Record<string, unknown>;
const list = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);
const texts = (content: unknown, type: string): string[] =>
  typeof content === 'string' ? [content] : list(content).map((p) => (p.type === type && typeof p.text === 'string' ? p.text : `?: a ${String(p.type)} part`));

/** The output limit as the body says it (`(absent)` when it does not). */
const maxTokensLine = (value: unknown): string => `max tokens: ${value === undefined ? '(absent)' : canonical(value)}`;

/** The sampling temperature, when the body carries one (every protocol calls it `temperature`). */
const temperatureLines = (b: Obj): string[] => ('temperature' in b ? [`temperature: ${canonical(b.temperature)}`] : []);

function anthropicLines(b: Obj): string[] {
  const lines: string[] = [maxTokensLine(b.max_tokens), ...temperatureLines(b)];
  for (const s of typeof b.system === 'string' ? [b.system] : texts(b.system, 'text')) lines.push(`system: ${s}`);
  // No tools is no `tools` field, as on the OpenAI protocols (mutation seed 52: the Anthropic adapter sent `[]`).
  if (Array.isArray(b.tools) && b.tools.length === 0) lines.push('?: tools sent as an empty list');
  for (const t of list(b.tools)) lines.push(`tool ${String(t.name)}: ${String(t.description)} ${canonical(t.input_schema)}`);
  for (const m of list(b.messages)) {
    const role = m.role === 'assistant' ? 'assistant' : 'user';
    if (typeof m.content === 'string') {
      lines.push(`${role}: ${m.content}`);
      continue;
    }
    for (const block of list(m.content)) {
      if (block.type === 'text') lines.push(`${role}: ${String(block.text)}`);
      else if (block.type === 'tool_use') lines.push(`call ${String(block.name)}#${String(block.id)} ${canonical(block.input)}`);
      else if (block.type === 'tool_result') {
        const content = typeof block.content === 'string' ? block.content : texts(block.content, 'text').join('');
        lines.push(`result#${String(block.tool_use_id)}${block.is_error === true ? ' (error)' : ''}: ${content}`);
      } else lines.push(`?: a ${String(block.type)} block`);
    }
  }
  return lines;
}

function chatLines(b: Obj): string[] {
  const lines: string[] = [];
  // No tools is no `tools` field: OpenAI-compatible servers refuse an empty list (400; vLLM, Azure OpenAI, DeepSeek).
  if (Array.isArray(b.tools) && b.tools.length === 0) lines.push('?: tools sent as an empty list');
  for (const t of list(b.tools)) {
    const f = (t.function ?? {}) as Obj;
    lines.push(`tool ${String(f.name)}: ${String(f.description)} ${canonical(f.parameters)}`);
  }
  const conversation: string[] = [];
  for (const m of list(b.messages)) {
    if (m.role === 'system' || m.role === 'developer') lines.push(...texts(m.content, 'text').map((t) => `system: ${t}`));
    else if (m.role === 'user') conversation.push(...texts(m.content, 'text').map((t) => `user: ${t}`));
    else if (m.role === 'tool') conversation.push(`result#${String(m.tool_call_id)}: ${texts(m.content, 'text').join('')}`);
    else if (m.role === 'assistant') {
      if (m.content !== null && m.content !== undefined) conversation.push(...texts(m.content, 'text').map((t) => `assistant: ${t}`));
      for (const c of list(m.tool_calls)) {
        const f = (c.function ?? {}) as Obj;
        conversation.push(`call ${String(f.name)}#${String(c.id)} ${parsedArgs(f.arguments)}`);
      }
    } else conversation.push(`?: a ${String(m.role)} message`);
  }
  // The limit, then the system prompt, as the other protocols carry it apart from the messages.
  return [
    maxTokensLine(b.max_completion_tokens),
    ...temperatureLines(b),
    ...lines.filter((l) => l.startsWith('system: ')),
    ...lines.filter((l) => !l.startsWith('system: ')),
    ...conversation,
  ];
}

function responsesLines(b: Obj): string[] {
  const lines: string[] = [maxTokensLine(b.max_output_tokens), ...temperatureLines(b)];
  if (typeof b.instructions === 'string') lines.push(`system: ${b.instructions}`);
  // No tools is no `tools` field, as on Chat: the adapters never send an empty list (mutation seed 42).
  if (Array.isArray(b.tools) && b.tools.length === 0) lines.push('?: tools sent as an empty list');
  for (const t of list(b.tools)) lines.push(`tool ${String(t.name)}: ${String(t.description)} ${canonical(t.parameters)}`);
  for (const item of list(b.input)) {
    if (item.type === 'function_call') lines.push(`call ${String(item.name)}#${String(item.call_id)} ${parsedArgs(item.arguments)}`);
    else if (item.type === 'function_call_output') lines.push(`result#${String(item.call_id)}: ${String(item.output)}`);
    else if (item.role === 'user' || item.role === 'assistant') {
      const type = item.role === 'user' ? 'input_text' : 'output_text';
      lines.push(...texts(item.content, type).map((t) => `${String(item.role)}: ${t}`));
    } else lines.push(`?: a ${String(item.type ?? item.role)} item`);
  }
  lines.push(`store: ${'store' in b ? canonical(b.store) : '(absent)'}`);
  return lines;
}
