/**
 * What each provider refuses in a request body, as the real APIs do (400
 * invalid_request_error): the wire fakes answer such a request with that error
 * instead of the planned response, so an adapter that maps a request wrongly —
 * no model, a bad role, a tool result without its call, a call without its
 * result — fails every contract case and wire scenario that reaches it, not
 * only its own unit tests.
 *
 * Only rules the providers document and enforce; one problem per line, naming
 * the field as the provider would.
 */
import type { WireProvider } from '../names.ts';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const nonEmptyString = (v: unknown): v is string => typeof v === 'string' && v !== '';
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** The provider a request path belongs to, if it is one the fakes speak. */
export function providerOfPath(path: string): WireProvider | undefined {
  const bare = path.split('?')[0]!;
  if (bare === '/v1/messages') return 'anthropic';
  if (bare === '/v1/chat/completions' || bare === '/chat/completions') return 'openai-chat';
  if (bare === '/v1/responses' || bare === '/responses') return 'openai-responses';
  return undefined;
}

export function requestProblems(provider: WireProvider, body: unknown): string[] {
  if (!isObject(body)) return ['the body is not a JSON object'];
  const problems: string[] = [];
  if (!nonEmptyString(body.model)) problems.push(`model: expected a model name, got ${JSON.stringify(body.model)}`);
  switch (provider) {
    case 'anthropic':
      anthropic(body, problems);
      break;
    case 'openai-chat':
      chat(body, problems);
      break;
    case 'openai-responses':
      responses(body, problems);
      break;
  }
  return problems;
}

function anthropic(body: Json, problems: string[]): void {
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1) problems.push('max_tokens: expected a positive integer');
  if (body.system !== undefined && typeof body.system !== 'string' && !Array.isArray(body.system)) problems.push('system: expected text or text blocks');
  tools(body.tools, problems, (t) => ({ name: t.name, schema: t.input_schema }));
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) {
    problems.push('messages: at least one message is required');
    return;
  }
  if (!isObject(messages[0]) || messages[0].role !== 'user') problems.push('messages.0.role: the first message must use the user role');
  let open: string[] = []; // tool_use ids of the previous assistant message, awaiting their results
  messages.forEach((m, i) => {
    const at = `messages.${i}`;
    if (!isObject(m) || (m.role !== 'user' && m.role !== 'assistant')) {
      problems.push(`${at}.role: expected user or assistant`);
      return;
    }
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    if (!Array.isArray(blocks) || blocks.length === 0) {
      problems.push(`${at}.content: expected text or a non-empty list of blocks`);
      return;
    }
    textRules(blocks, at, problems);
    const results = blocks.filter((b) => isObject(b) && b.type === 'tool_result').map((b) => String((b as Json).tool_use_id));
    if (m.role === 'assistant' && results.length > 0) problems.push(`${at}: tool_result blocks belong in a user message`);
    if (m.role === 'user') {
      const missing = open.filter((id) => !results.includes(id));
      if (missing.length > 0) problems.push(`${at}: tool_use ids were found without tool_result blocks immediately after: ${missing.join(', ')}`);
      const unknown = results.filter((id) => !open.includes(id));
      if (unknown.length > 0) problems.push(`${at}: unexpected tool_use_id found in tool_result blocks: ${unknown.join(', ')}`);
      const firstOther = blocks.findIndex((b) => !(isObject(b) && b.type === 'tool_result'));
      if (firstOther !== -1 && blocks.slice(firstOther).some((b) => isObject(b) && b.type === 'tool_result'))
        problems.push(`${at}.content: tool_result blocks must come before any other content`);
      open = [];
    } else {
      if (open.length > 0) problems.push(`${at}: tool_use ids were found without tool_result blocks immediately after: ${open.join(', ')}`);
      open = [];
      blocks.forEach((b, j) => {
        if (!isObject(b) || typeof b.type !== 'string') problems.push(`${at}.content.${j}: expected a content block`);
        else if (b.type === 'tool_use') {
          if (!nonEmptyString(b.id) || !nonEmptyString(b.name) || !isObject(b.input))
            problems.push(`${at}.content.${j}: a tool_use needs an id, a name and an input object`);
          else open.push(b.id);
        }
      });
    }
  });
  if (open.length > 0) problems.push(`messages.${messages.length - 1}: the last message holds tool_use blocks without their tool_result blocks`);
}

/**
 * Anthropic's text rules, in either role: an empty text block is refused, and so
 * is a message whose text blocks hold only whitespace (whitespace beside real
 * text passes). Field reports: claude-code #23369, LibreChat agents #124.
 */
function textRules(blocks: readonly unknown[], at: string, problems: string[]): void {
  let blank = false;
  let text = false;
  blocks.forEach((b, j) => {
    if (!isObject(b) || b.type !== 'text') return;
    if (!nonEmptyString(b.text)) problems.push(`${at}.content.${j}.text: text content blocks must be non-empty`);
    else if (b.text.trim() === '') blank = true;
    else text = true;
  });
  if (blank && !text) problems.push(`${at}: text content blocks must contain non-whitespace text`);
}

function chat(body: Json, problems: string[]): void {
  tools(body.tools, problems, (t) =>
    t.type === 'function' && isObject(t.function)
      ? { name: t.function.name, schema: t.function.parameters, strict: t.function.strict }
      : { name: undefined, schema: undefined },
  );
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) {
    problems.push('messages: at least one message is required');
    return;
  }
  let open: string[] = [];
  messages.forEach((m, i) => {
    const at = `messages[${i}]`;
    if (!isObject(m) || !['system', 'developer', 'user', 'assistant', 'tool'].includes(String(m.role))) {
      problems.push(`${at}.role: expected one of system, developer, user, assistant, tool`);
      return;
    }
    if (m.role === 'tool') {
      if (!open.includes(String(m.tool_call_id)))
        problems.push(
          `${at}: messages with role 'tool' must be a response to a preceding message with 'tool_calls' (tool_call_id ${JSON.stringify(m.tool_call_id)})`,
        );
      open = open.filter((id) => id !== m.tool_call_id);
      if (typeof m.content !== 'string') problems.push(`${at}.content: expected text`);
      return;
    }
    if (open.length > 0)
      problems.push(`${at}: an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id': ${open.join(', ')}`);
    open = [];
    if (m.role === 'assistant') {
      const calls = m.tool_calls;
      if (calls !== undefined) {
        if (!Array.isArray(calls) || calls.length === 0) problems.push(`${at}.tool_calls: expected a non-empty list`);
        else
          calls.forEach((c, j) => {
            if (
              !isObject(c) ||
              c.type !== 'function' ||
              !nonEmptyString(c.id) ||
              !isObject(c.function) ||
              !nonEmptyString(c.function.name) ||
              typeof c.function.arguments !== 'string'
            )
              problems.push(`${at}.tool_calls[${j}]: expected { id, type: "function", function: { name, arguments } }`);
            else open.push(c.id);
          });
      }
      if ((m.content === null || m.content === undefined) && open.length === 0)
        problems.push(`${at}.content: an assistant message needs content or tool_calls`);
    } else if (!(typeof m.content === 'string' || (Array.isArray(m.content) && m.content.length > 0)))
      problems.push(`${at}.content: expected text or content parts`);
  });
  if (open.length > 0) problems.push(`messages: the tool_calls ${open.join(', ')} have no tool message responding to them`);
}

function responses(body: Json, problems: string[]): void {
  tools(body.tools, problems, (t) =>
    t.type === 'function' ? { name: t.name, schema: t.parameters, strict: t.strict } : { name: undefined, schema: undefined },
  );
  if (body.instructions !== undefined && typeof body.instructions !== 'string') problems.push('instructions: expected text');
  const input = body.input;
  if (typeof input === 'string') return;
  if (!Array.isArray(input) || input.length === 0) {
    problems.push('input: expected text or a non-empty list of items');
    return;
  }
  const calls = new Set<string>();
  const answered = new Set<string>();
  input.forEach((item, i) => {
    const at = `input[${i}]`;
    if (!isObject(item)) {
      problems.push(`${at}: expected an item`);
      return;
    }
    if (item.type === 'function_call') {
      if (!nonEmptyString(item.call_id) || !nonEmptyString(item.name) || typeof item.arguments !== 'string')
        problems.push(`${at}: a function_call needs a call_id, a name and arguments as text`);
      else calls.add(item.call_id);
    } else if (item.type === 'function_call_output') {
      if (!calls.has(String(item.call_id))) problems.push(`${at}: no tool call found for function call output with call_id ${JSON.stringify(item.call_id)}`);
      answered.add(String(item.call_id));
      if (typeof item.output !== 'string' && !Array.isArray(item.output)) problems.push(`${at}.output: expected text`);
    } else if (item.type === undefined || item.type === 'message') {
      if (!['user', 'assistant', 'system', 'developer'].includes(String(item.role)))
        problems.push(`${at}.role: expected one of user, assistant, system, developer`);
      if (!(nonEmptyString(item.content) || (Array.isArray(item.content) && item.content.length > 0)))
        problems.push(`${at}.content: expected text or content parts`);
    }
  });
  const unanswered = [...calls].filter((id) => !answered.has(id));
  if (unanswered.length > 0) problems.push(`input: no tool output found for function call ${unanswered.join(', ')}`);
}

function tools(list: unknown, problems: string[], read: (tool: Json) => { name: unknown; schema: unknown; strict?: unknown }): void {
  if (list === undefined) return;
  if (!Array.isArray(list)) {
    problems.push('tools: expected a list');
    return;
  }
  const names = new Set<string>();
  list.forEach((t, i) => {
    const { name, schema, strict } = isObject(t) ? read(t) : { name: undefined, schema: undefined, strict: undefined };
    if (typeof name !== 'string' || !TOOL_NAME.test(name)) problems.push(`tools.${i}.name: expected a name of letters, digits, _ and - (at most 64)`);
    else if (names.has(name)) problems.push(`tools.${i}.name: tool names must be unique (${name})`);
    else names.add(name);
    if (schema !== undefined && !(isObject(schema) && schema.type === 'object'))
      problems.push(`tools.${i}: the input schema must be a JSON Schema of type object`);
    else if (strict === true && isObject(schema)) strictSchema(schema, String(name), '()', problems);
  });
}

/**
 * OpenAI's strict function calling (`strict: true`, Chat and Responses alike) takes
 * only the subset of JSON Schema its structured outputs support, and refuses the
 * request (400) otherwise: every object must say `additionalProperties: false` and
 * list every property in `required` (an optional field is a nullable required one).
 * A tool loopgate declares with an optional field is such a schema: an adapter that
 * sent it strict would fail every request that offers that tool.
 */
function strictSchema(schema: Json, tool: string, context: string, problems: string[]): void {
  const properties = isObject(schema.properties) ? schema.properties : undefined;
  if (schema.type === 'object' || properties) {
    const where = `Invalid schema for function '${tool}': In context=${context}`;
    if (schema.additionalProperties !== false) problems.push(`${where}, 'additionalProperties' is required to be supplied and to be false.`);
    const keys = Object.keys(properties ?? {});
    const required = Array.isArray(schema.required) ? schema.required : [];
    const missing = keys.filter((k) => !required.includes(k));
    if (missing.length > 0)
      problems.push(`${where}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing[0]}'.`);
    for (const key of keys) {
      const child = properties![key];
      if (isObject(child)) strictSchema(child, tool, `${context === '()' ? '' : context}('properties', '${key}')`, problems);
    }
  }
  if (isObject(schema.items)) strictSchema(schema.items, tool, `${context === '()' ? '' : context}('items')`, problems);
  for (const k of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = schema[k];
    if (Array.isArray(list)) list.forEach((s, j) => isObject(s) && strictSchema(s, tool, `${context === '()' ? '' : context}('${k}', ${j})`, problems));
  }
}
