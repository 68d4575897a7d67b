/**
 * No result and no delta of a call carries a credential the client was given
 * (its API key) in any form the redactor knows: an adapter that writes the
 * request's headers, its URL with a key parameter, or a provider body echoing
 * the key into an error message hands the key to every log, trace and report
 * the result reaches. The problem names where, never the key.
 */
import type { ModelDelta, ModelResult } from '../../src/kernel/index.ts';
import { redactEncodedForms, secretFinder } from '../../src/kernel/index.ts';
import type { ReceivedByProvider } from './harness.ts';

function* strings(value: unknown, path: string): Generator<[string, string]> {
  if (typeof value === 'string') yield [path, value];
  else if (Array.isArray(value)) for (const [i, item] of value.entries()) yield* strings(item, `${path}[${i}]`);
  else if (value !== null && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) {
      yield [`${path}.${key} (a key)`, key];
      yield* strings(item, `${path}.${key}`);
    }
}

/** Where the first credential is, with the text around it redacted; undefined when there is none. */
export function credentialLeak(result: ModelResult, deltas: readonly ModelDelta[], secrets: readonly string[]): string | undefined {
  const finders = secrets.map(secretFinder);
  const found = (text: string) => finders.some((has) => has(text));
  const shown = (text: string) => JSON.stringify(redactEncodedForms(text, secrets).slice(0, 200));
  for (const [path, text] of strings(result, 'result')) if (found(text)) return `${path} carries a credential the client was given: ${shown(text)}`;
  for (const [i, delta] of deltas.entries())
    for (const [path, text] of strings(delta, `delta ${i}`)) if (found(text)) return `${path} carries a credential the client was given: ${shown(text)}`;
  for (const [stream, text] of joinedStreams(deltas))
    if (found(text)) return `the ${stream}, joined, carries a credential the client was given (split across deltas): ${shown(text)}`;
  if (found(JSON.stringify(result))) return 'the result carries a credential the client was given (across its fields)';
  return undefined;
}

/**
 * Where the first credential is in what the provider received, apart from the auth header: another header (its name
 * or value), the path with its query, or the body. Undefined when there is none.
 */
export function sentCredentialLeak(received: readonly ReceivedByProvider[], secrets: readonly string[]): string | undefined {
  const finders = secrets.map(secretFinder);
  const found = (text: string) => finders.some((has) => has(text));
  const shown = (text: string) => JSON.stringify(redactEncodedForms(text, secrets).slice(0, 200));
  const leak = (where: string, text: string) =>
    `${where} carries a credential the client was given: ${shown(text)}; only its auth header may (a key elsewhere reaches every proxy and gateway log)`;
  for (const [i, request] of received.entries()) {
    const n = `request ${i + 1}'s`;
    for (const [name, value] of Object.entries(request.headers)) {
      if (found(name)) return leak(`${n} header name`, name);
      if (found(value)) return leak(`${n} header ${name}`, value);
    }
    if (found(request.path)) return leak(`${n} path`, request.path);
    for (const [path, text] of strings(request.body, 'body')) if (found(text)) return leak(`${n} ${path}`, text);
  }
  return undefined;
}

/** Each stream of the deltas as the listener puts it back together: the text, and each tool call's arguments. */
function joinedStreams(deltas: readonly ModelDelta[]): [string, string][] {
  let text = '';
  const args = new Map<number, string>();
  for (const delta of deltas) {
    if (delta.kind === 'text') text += delta.text;
    else if (delta.kind === 'tool_args') args.set(delta.index, (args.get(delta.index) ?? '') + delta.json);
  }
  return [['streamed text', text], ...[...args].map(([index, json]): [string, string] => [`streamed arguments of call ${index}`, json])];
}

/** `text` with every form of the secrets redacted (for messages that quote what the client said). */
export function withoutCredentials(text: string, secrets: readonly string[]): string {
  return secrets.length === 0 ? text : redactEncodedForms(text, secrets);
}
