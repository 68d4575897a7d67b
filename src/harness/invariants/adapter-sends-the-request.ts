/**
 * Over the wire (`provider.kind: wire`), the adapter sends what the loop asked it
 * to: the body the SDK put on the wire for each step holds every piece of the
 * request the loop built — the system prompt, each non-empty text of every
 * message, each tool call's id and name, each tool result's call id and content,
 * and the name of each tool offered — as JSON text, in the provider's own shape.
 *
 * `adapter-follows-the-wire` judges what an adapter reads from the wire; this is
 * the way out. Every other check reads the request the loop built, before the
 * adapter: an adapter that sent only the first of a user message's texts (a steer
 * and the notice beside it), dropped a tool result's content or the system prompt
 * passed them all (outside probe 70, resp-req-multi-text: caught only by a
 * bundled contract case, fuzz passed it).
 *
 * Each piece is looked for as a JSON string of its own, whole, as many times as
 * the request holds it (a call's id is the call's and its result's);
 * arguments are left out (each provider writes them its own way: an object, or
 * JSON text in a string). A Responses body must also say `store: false`.
 */
import { redactEncodedForms, type ModelRequest } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';

export const adapterSendsTheRequest = defineInvariant({
  id: 'adapter-sends-the-request',
  title: 'over the wire, the body the adapter sent for each step holds every text, call and result of the request the loop built',
  appliesTo: loopgateOnly("a peer's loop builds its requests with its own provider package"),
  check: (run) => adapterSendsRequest(run),
});

function adapterSendsRequest(run: ScenarioRun): string | undefined {
  const wire = run.wire;
  if (!wire) return undefined; // no wire-level provider in this case
  // A body the provider would refuse (the fake checks each as the API does): the loop's requests are well-formed, so
  // the adapter broke it — a tool result under another field than its call's id (outside probe 71, responses-output-callid).
  // Whole (a cut could leave part of a secret an id carried), its secrets' escaped and encoded forms redacted here: the
  // fake quotes ids as JSON, where the report's redaction of the literal secret misses an escaped one.
  if (wire.refused.length > 0) {
    const said = redactEncodedForms(wire.refused[0]!, [...(run.scenario.secrets ?? []), wire.apiKey]);
    return `${wire.provider}: the adapter sent a request the provider would refuse: ${said}`;
  }
  for (let i = 0; i < wire.sent.length; i++) {
    const sent = wire.sent[i];
    if (!sent) continue;
    const body = JSON.stringify(sent.body) ?? '';
    // As often as the request holds it: a call id is the call's and its result's (an adapter that wrote the result
    // under another field lost the pairing, the id still there once: outside probe 71, responses-output-callid).
    const wanted = new Map<string, { where: string[]; chars: number }>();
    for (const [where, text] of pieces(sent.request)) {
      const form = JSON.stringify(text);
      const seen = wanted.get(form);
      if (seen) seen.where.push(where);
      else wanted.set(form, { where: [where], chars: text.length });
    }
    for (const [form, { where, chars }] of wanted) {
      const found = body.split(form).length - 1;
      if (found < where.length) {
        const said = found === 0 ? 'is not in the body the adapter sent' : `is in the body the adapter sent ${found} time(s), in the request ${where.length}`;
        return `${wire.provider} step ${i + 1}: ${where.join(' and ')} (${chars} characters) ${said}`;
      }
    }
    // The Responses API keeps what it is sent unless told not to: the loop's log is the record (outside probe 71,
    // responses-store-default-true). No wire case asks for storing.
    if (wire.provider === 'openai-responses' && (sent.body as { store?: unknown } | null)?.store !== false) {
      return `openai-responses step ${i + 1}: the body says store: ${JSON.stringify((sent.body as { store?: unknown } | null)?.store)}, not false: OpenAI keeps the conversation`;
    }
  }
  return undefined;
}

/** The pieces of the request the body must hold, each with where it is in the request. */
function pieces(request: ModelRequest): [string, string][] {
  const out: [string, string][] = [];
  if (request.system !== '') out.push(['the system prompt', request.system]);
  request.messages.forEach((message, m) => {
    message.content.forEach((block, b) => {
      const at = `message ${m + 1} (${message.role}) block ${b + 1}`;
      if (block.type === 'text') {
        if (block.text !== '') out.push([`the text of ${at}`, block.text]);
      } else if (block.type === 'tool_call') {
        out.push([`the call id of ${at}`, block.id], [`the tool name of ${at}`, block.name]);
      } else {
        out.push([`the call id of the result in ${at}`, block.callId]);
        if (block.content !== '') out.push([`the content of the result in ${at}`, block.content]);
      }
    });
  });
  for (const tool of request.tools) out.push([`the offered tool ${tool.name}`, tool.name]);
  return out;
}
