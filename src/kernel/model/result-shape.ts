/**
 * What keeps a client's answer from being a `ModelResult` of a type the loop
 * knows: the parts each type must carry (a reply's content and text, a
 * tool_use's calls, …), as one line, or undefined. A client that settles with
 * less broke its contract as one that rejects does (outside probe 35, F11); a
 * result of a type or kind the loop does not know is not judged here — the
 * loop names it as what it cannot take.
 */
import { TRANSPORT_ERROR_KINDS } from './client.ts';

export function modelResultProblem(result: unknown): string | undefined {
  if (result === null || typeof result !== 'object')
    return `no result (${result === null ? 'null' : typeof result === 'undefined' ? 'undefined' : typeof result})`;
  const r = result as Record<string, unknown>;
  const type = r.type;
  if (typeof type !== 'string') return 'a result without a type';
  const text = () => (typeof r.text === 'string' ? undefined : `a ${type} whose text is not a string`);
  switch (type) {
    case 'reply':
      return contentProblem(type, r.content) ?? text();
    case 'tool_use':
      return contentProblem(type, r.content) ?? text() ?? callsProblem(r.calls);
    case 'max_tokens':
      return contentProblem(type, r.content) ?? text();
    case 'unknown':
      return contentProblem(type, r.content) ?? text() ?? (typeof r.stopReason === 'string' ? undefined : 'an unknown stop whose stopReason is not a string');
    case 'refusal':
      return text();
    case 'context_window_exceeded':
      return contentProblem(type, r.content) ?? (typeof r.message === 'string' ? undefined : `a ${type} whose message is not a string`);
    case 'transport_error':
      if (!(TRANSPORT_ERROR_KINDS as readonly unknown[]).includes(r.kind)) return undefined; // an unknown kind: the loop names it
      return typeof r.message === 'string' ? undefined : 'a transport_error whose message is not a string';
    default:
      return undefined;
  }
}

function contentProblem(type: string, content: unknown): string | undefined {
  if (!Array.isArray(content)) return `a ${type} whose content is not a list of blocks`;
  for (let i = 0; i < content.length; i++) {
    const block = content[i] as Record<string, unknown> | null;
    const at = `a ${type} whose content[${i}]`;
    if (block === null || typeof block !== 'object') return `${at} is not a block`;
    if (block.type === 'text') {
      if (typeof block.text !== 'string') return `${at} is a text block without text`;
    } else if (block.type === 'tool_call') {
      if (typeof block.id !== 'string') return `${at} is a tool_call without an id`;
      if (typeof block.name !== 'string') return `${at} is a tool_call without a name`;
    } else return `${at} is of type ${JSON.stringify(block.type)}, not text or tool_call`;
  }
  return undefined;
}

function callsProblem(calls: unknown): string | undefined {
  if (!Array.isArray(calls)) return 'a tool_use whose calls are not a list';
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i] as Record<string, unknown> | null;
    if (call === null || typeof call !== 'object' || typeof call.id !== 'string' || typeof call.name !== 'string')
      return `a tool_use whose calls[${i}] is not a call with an id and a name`;
  }
  return undefined;
}
