/** A contract behaviour as the bytes a provider sends: a wire plan in its protocol. */
import type { Behaviour } from './behaviours.ts';
import { duplicated, inOneRead, insertAfter, movedAfter, nullDataAfter, upToNth, withoutIndexes, withoutTags } from '../wire-fakes/faults.ts';
import { type ErrorKind, type StreamErrorKind, UnsupportedOnWire, type WireTurn } from '../wire-fakes/turn.ts';
import type { WirePlan } from '../wire-fakes/plan.ts';
import { jsonPlan, streamPlan } from '../wire-fakes/plan.ts';
import type { ProtocolKit } from '../wire-fakes/protocol.ts';

export interface PlanOptions {
  /** The credential the client under test sends, for an error that quotes it. */
  readonly credential?: string;
  /** The clock a retry-after HTTP date is written from (default Date.now): the client under test reads it with the same. */
  readonly now?: () => number;
}

/**
 * The error body with its message quoting the credential, as a gateway's 401 may: as sent, every byte `%HH`
 * (`percent`: a gateway echoing the URL it was given) or in base64 (`base64`: an echoed Basic authorization).
 */
function quoting(body: unknown, credential: string, form: true | 'percent' | 'base64'): unknown {
  const error = (body as { error?: { message?: unknown } }).error;
  if (typeof error !== 'object' || error === null) throw new UnsupportedOnWire('this error body has no message to quote the credential in');
  const message =
    form === 'percent'
      ? `Invalid API key provided in https://gateway.example/v1/chat?api_key=${percentEncoded(credential)}`
      : form === 'base64'
        ? `Invalid credentials in Authorization: Basic ${Buffer.from(`user:${credential}`, 'utf8').toString('base64')}`
        : `Invalid API key provided: ${credential}. Received API Key = ${credential}`;
  return { ...(body as object), error: { ...error, message } };
}

/**
 * The turn with the credential written where its text, call ids, names and arguments say `{{credential}}` (or its base64 where
 * `{{credential:base64}}`, its UTF-8 bytes in lower-case hex where `{{credential:hex}}`, every byte of it `%HH` where
 * `{{credential:percent}}`).
 */
function quotingIn(turn: WireTurn, credential: string | undefined): WireTurn {
  if (credential === undefined) throw new UnsupportedOnWire('no credential was given to quote');
  const write = (text: string) => withCredential(text, credential);
  return {
    ...turn,
    blocks: turn.blocks.map((block) =>
      block.type === 'text' ? { ...block, text: write(block.text) } : { ...block, id: write(block.id), name: write(block.name), args: write(block.args) },
    ),
  };
}

/** `text` with the credential written where it says `{{credential}}`, `{{credential:base64}}`, `{{credential:hex}}` or `{{credential:percent}}`. */
export function withCredential(text: string, credential: string): string {
  if (!text.includes('{{credential')) return text;
  return text
    .replaceAll('{{credential:base64}}', Buffer.from(credential, 'utf8').toString('base64'))
    .replaceAll('{{credential:hex}}', Buffer.from(credential, 'utf8').toString('hex'))
    .replaceAll('{{credential:percent}}', percentEncoded(credential))
    .replaceAll('{{credential}}', credential);
}

/** Every UTF-8 byte of `text` written `%HH` (upper case), as a form encoder that escapes every character writes it. */
function percentEncoded(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

/** The HTTP error a stream's error event is when the request did not stream: a rate limit told by its type alone is the 429 it is. */
function answeredAs(error: StreamErrorKind | undefined): ErrorKind {
  if (error === undefined) return 'overloaded';
  if (error === 'untyped') return 'server_error';
  return error === 'rate_limited_by_type' ? 'rate_limited' : error;
}

/** Throws UnsupportedOnWire when the provider cannot produce the behaviour. */
export function wirePlanFor(kit: ProtocolKit, behaviour: Behaviour, options: PlanOptions = {}): WirePlan {
  switch (behaviour.kind) {
    case 'turn':
      return streamPlan(kit.streamFrames(behaviour.quotesCredential ? quotingIn(behaviour.turn, options.credential) : behaviour.turn));
    case 'http_error': {
      const answer = kit.errorAnswer(behaviour.error, behaviour.status);
      const headers: Record<string, string> = { ...answer.headers };
      if (behaviour.retryAfterSeconds !== undefined)
        headers['retry-after'] =
          behaviour.retryAfterAsDate && behaviour.retryAfterSeconds !== ''
            ? new Date((options.now ?? Date.now)() + behaviour.retryAfterSeconds * 1000).toUTCString()
            : String(behaviour.retryAfterSeconds);
      if (behaviour.retryAfterMsHeader !== undefined) headers['retry-after-ms'] = String(behaviour.retryAfterMsHeader);
      if (!behaviour.quotesCredential) return jsonPlan(answer.status, answer.body, headers);
      if (options.credential === undefined) throw new UnsupportedOnWire('no credential was given to quote');
      return jsonPlan(answer.status, quoting(answer.body, options.credential, behaviour.quotesCredential), headers);
    }
    case 'reset_before_response':
      return { kind: 'reset' };
    case 'connect_timeout':
      // No server ever answers. The wire harness also makes the client's fetch fail as undici's
      // connect timeout does (wire-fakes/connect-timeout.ts); without it the call's own deadline ends it.
      return { kind: 'hang' };
    case 'empty_stream':
      return streamPlan([]);
    case 'gateway_answer':
      if (behaviour.onlyFor && !behaviour.onlyFor.providers.includes(kit.provider)) throw new UnsupportedOnWire(behaviour.onlyFor.why);
      return { kind: 'body', status: behaviour.status, body: behaviour.body, contentType: behaviour.contentType };
    case 'stream_fault': {
      const frames = kit.streamFrames(behaviour.turn);
      const fault = behaviour.fault;
      switch (fault.type) {
        case 'stall': {
          const sent = upToNth(frames, fault.after, fault.nth);
          return streamPlan(fault.oneRead ? inOneRead(sent) : sent, 'stall');
        }
        case 'reset': {
          // The frame reporting usage: a protocol with no usage frame of its own reports it on its stop frame
          // (Anthropic's message_delta carries the output count).
          const after = fault.after === 'usage' && !frames.some((f) => f.tag === 'usage') ? 'stop' : fault.after;
          // A reset after a frame the protocol never sends would send the whole stream: the case would check nothing.
          if (!frames.some((f) => f.tag === after))
            throw new UnsupportedOnWire(`the ${kit.provider} protocol sends no ${fault.after} frame to cut the stream after`);
          return streamPlan(upToNth(frames, after, fault.nth), 'reset');
        }
        case 'malformed':
          return streamPlan(insertAfter(frames, fault.after, kit.malformedFrame()));
        case 'error_event':
          // After the error event the server closes the stream, as the APIs do.
          if (fault.asFailedResponse) {
            if (kit.failedResponseFrame === undefined)
              throw new UnsupportedOnWire(`${kit.provider} has no failed ending of a response: a failure mid-stream comes as an error event`);
            return streamPlan([
              ...upToNth(frames, fault.after),
              kit.failedResponseFrame(fault.error ?? 'overloaded', fault.failedWithUsage ? behaviour.turn.usage : undefined),
            ]);
          }
          return streamPlan([...upToNth(frames, fault.after), kit.errorEventFrame(fault.error ?? 'overloaded')]);
        case 'drop_end':
          return streamPlan(withoutTags(frames, kit.endTags));
        case 'duplicate':
          return streamPlan(duplicated(frames, kit.duplicableTags));
        case 'stall_after_end':
          return streamPlan(frames, 'stall');
        case 'without':
          return streamPlan(withoutTags(frames, [fault.tag]));
        case 'null_data':
          return streamPlan(nullDataAfter(frames, fault.after));
        case 'without_index':
          return streamPlan(withoutIndexes(frames));
        case 'content_before_start':
          if (kit.contentBeforeStart !== undefined) throw new UnsupportedOnWire(kit.contentBeforeStart);
          return streamPlan(movedAfter(frames, 'start', 'block_stop'));
        case 'block_start_before_start':
          if (kit.contentBeforeStart !== undefined) throw new UnsupportedOnWire(kit.contentBeforeStart);
          return streamPlan(movedAfter(frames, 'start', 'block_start'));
        case 'stop_before_start':
          if (kit.contentBeforeStart !== undefined) throw new UnsupportedOnWire(kit.contentBeforeStart);
          return streamPlan([...frames.filter((f) => f.tag === 'stop'), ...frames.filter((f) => f.tag !== 'stop')]);
      }
    }
  }
}

/**
 * The plan for a request that did not ask to stream (`"stream": true` absent),
 * as a server answers one: a turn as one complete JSON body, and an overload
 * that would have arrived inside the stream as the HTTP error it is then. Every
 * other behaviour is what `wirePlanFor` gives (errors and resets do not depend
 * on streaming; a stream fault other than an overload has no non-streaming form
 * and is sent as the stream it is). loopgate's own adapters always stream; a
 * peer's model may not (OpenAI Agents' `run()` asks without streaming).
 */
export function wirePlanForRequest(kit: ProtocolKit, behaviour: Behaviour, body: unknown, options: PlanOptions = {}): WirePlan {
  const streams = typeof body === 'object' && body !== null && (body as { stream?: unknown }).stream === true;
  if (streams) return wirePlanFor(kit, behaviour, options);
  if (behaviour.kind === 'turn')
    return jsonPlan(200, kit.completeBody(behaviour.quotesCredential ? quotingIn(behaviour.turn, options.credential) : behaviour.turn));
  if (behaviour.kind === 'stream_fault' && behaviour.fault.type === 'error_event') {
    const answer = kit.errorAnswer(answeredAs(behaviour.fault.error));
    return jsonPlan(answer.status, answer.body, { ...answer.headers });
  }
  return wirePlanFor(kit, behaviour, options);
}

/**
 * A contract behaviour as a server answers a request that did not ask to stream:
 * a turn as one complete JSON body, an overload as the HTTP error it is then,
 * broken JSON as the body cut off halfway, a stream without its end as a body
 * without the part that carries the answer; errors and resets as `wirePlanFor`
 * gives them. A fault that only a stream can have (a stall, a cut connection, a
 * repeated event, no events) has no such answer:
 * UnsupportedOnWire, with the reason; the streaming harness runs those.
 */
export function nonStreamingPlanFor(kit: ProtocolKit, behaviour: Behaviour, options: PlanOptions = {}): WirePlan {
  const streamOnly = streamOnlyReason(behaviour);
  if (streamOnly !== undefined) throw new UnsupportedOnWire(streamOnly);
  // A 200 with nothing in it: the JSON `null` a gateway's empty answer parses to.
  if (behaviour.kind === 'empty_stream') return jsonPlan(200, null);
  if (behaviour.kind === 'turn')
    return jsonPlan(200, kit.completeBody(behaviour.quotesCredential ? quotingIn(behaviour.turn, options.credential) : behaviour.turn));
  if (behaviour.kind === 'stream_fault' && behaviour.fault.type === 'malformed') {
    // The body's JSON cut off halfway: what a broken proxy or a truncated read gives.
    const whole = JSON.stringify(kit.completeBody(behaviour.turn));
    return { kind: 'body', status: 200, body: whole.slice(0, Math.floor(whole.length / 2)), contentType: 'application/json' };
  }
  if (behaviour.kind === 'stream_fault' && behaviour.fault.type === 'drop_end') {
    // A complete body without the part that carries the answer: a proxy's or a gateway's half-answer.
    const { [kit.answerKey]: _answer, ...rest } = kit.completeBody(behaviour.turn) as Record<string, unknown>;
    return jsonPlan(200, rest);
  }
  if (behaviour.kind === 'stream_fault') {
    const answer = kit.errorAnswer(behaviour.fault.type === 'error_event' ? answeredAs(behaviour.fault.error) : 'overloaded');
    return jsonPlan(answer.status, answer.body, { ...answer.headers });
  }
  return wirePlanFor(kit, behaviour, options);
}

/** Stream faults a complete body can also have: an overload, broken JSON, a body without its answer. */
const NON_STREAMING_FAULTS: ReadonlySet<string> = new Set(['error_event', 'malformed', 'drop_end']);

/** Why a behaviour has no non-streaming form, or undefined when it has one. */
export function streamOnlyReason(behaviour: Behaviour): string | undefined {
  if (behaviour.kind === 'stream_fault' && behaviour.fault.type === 'error_event' && behaviour.fault.failedWithUsage) {
    return "a failed ending that reports its usage is a stream's (the non-streaming form of this fault is an HTTP error, which has none); the streaming harness runs this case";
  }
  if (behaviour.kind === 'stream_fault' && !NON_STREAMING_FAULTS.has(behaviour.fault.type)) {
    return `a non-streaming answer has no stream to fault (${behaviour.fault.type}); the streaming harness runs this case`;
  }
  return undefined;
}
