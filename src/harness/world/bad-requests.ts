/**
 * After a production-host case, a client sends what the README says the host
 * refuses (README, "Running the production host"): conversation ids outside
 * 1–200 letters, digits, ".", "_", ":" or "-", or naming one of the agent's
 * secrets; a message id outside the same syntax or naming a secret; an unknown intent; a `traceparent` that is
 * not W3C trace context. Each must
 * be answered 400 at once, with nothing stored and no secret echoed;
 * `host-refuses-bad-requests` judges what came back. An id such as `a/b` keys
 * the store, every span and the tools' idempotency keys (`conversation/tool:call`),
 * so one the host took would let conversations' keys collide.
 *
 * Sent to a host of their own, built as the case's is (`createHostFromConfig`,
 * the case's config and agent) over a store and a model of its own, so a host
 * that wrongly takes one runs no turn on the case's store, script or recording.
 * Each request has a short real-time limit: a host that took one and waits on
 * something shows as "not answered at once", never as a hang.
 */
import { reply } from '../../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../../providers/fake/scripted.ts';
import type { HostConfig } from '../../host/config.ts';
import { createHostFromConfig } from '../../host/from-config.ts';
import type { Agent } from '../../kernel/index.ts';
import { MemoryEventStore } from '../../stores/memory-store.ts';

export interface BadRequest {
  /** What was wrong with it, for messages. */
  readonly what: string;
  readonly conversationId: string;
  /** The status answered; undefined: not answered at once (the host took it). */
  readonly status: number | undefined;
  /** The answer's text as JSON (checked for the secret). */
  readonly answer: string;
  /** Records the store then held for that conversation id. */
  readonly stored: number;
}

const AT_ONCE_MS = 2_000;

/** The requests the README says are refused, each sent once to a host built from `config` serving `agent`. */
export async function sendBadRequests(config: HostConfig, agent: Agent): Promise<readonly BadRequest[]> {
  const store = new MemoryEventStore();
  const host = await createHostFromConfig(config, {
    store,
    agent: () => agent,
    modelClient: () => new ScriptedModelClient(Array.from({ length: 20 }, () => reply('taken'))),
    env: {},
    recover: false,
  });
  try {
    return await send(host, store, agent.secrets ?? []);
  } finally {
    host.halt();
  }
}

async function send(
  host: Awaited<ReturnType<typeof createHostFromConfig>>,
  store: MemoryEventStore,
  secrets: readonly string[],
): Promise<readonly BadRequest[]> {
  const requests: { what: string; conversationId: string; messageId?: string; intent?: string; text?: string; traceparent?: string; options?: unknown }[] = [
    { what: 'an empty conversation id', conversationId: '' },
    { what: 'a conversation id with "/"', conversationId: 'orders/1001' },
    { what: 'a conversation id with a space', conversationId: 'order 1001' },
    { what: 'a conversation id with a path in it', conversationId: '../case' },
    { what: 'a conversation id of 201 characters', conversationId: 'c'.repeat(201) },
    { what: 'a conversation id with a letter outside ASCII', conversationId: 'café' },
    { what: 'a conversation id with a line break', conversationId: 'case\n' },
    // Letters of the id syntax, but a path segment every URL parser folds away: `/conversations/../events` is
    // `/events`, so such a conversation could never be followed, and a team keying files by id walks up a folder
    // (outside probe 37, F7).
    { what: 'a conversation id of one dot', conversationId: '.' },
    { what: 'a conversation id of two dots', conversationId: '..' },
    { what: 'a message id with "/"', conversationId: 'bad-request-message-id', messageId: 'm/1' },
    // Options from JavaScript (or cast): answered 500 after the turn ran, a client retrying ran it twice (outside probe 37, F6).
    { what: 'options that are null', conversationId: 'bad-request-options-null', options: null },
    { what: 'a signal that is no AbortSignal', conversationId: 'bad-request-signal', options: { signal: { aborted: false } } },
    { what: 'an unknown intent', conversationId: 'bad-request-intent', intent: 'shout' },
    // A caller's span the host cannot read: taken, the turn is traced as a root the caller never asked for, or
    // as a child of an all-zero id no backend joins (outside probe 69: a host that ignored the refusal passed).
    { what: 'a traceparent that is not W3C', conversationId: 'bad-request-traceparent', traceparent: '00-not-a-trace-01' },
    {
      what: 'a traceparent with an all-zero trace id',
      conversationId: 'bad-request-traceparent-zero',
      traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`,
    },
    // Half a UTF-16 pair is no text: a provider that refuses ill-formed Unicode would fail this turn and every later one
    // of the conversation, its history carrying it (outside probe 29, F12).
    { what: 'a message text holding a lone surrogate', conversationId: 'bad-request-text', text: 'Where is ORD-1001? \ud800' },
    ...secrets.slice(0, 1).map((secret) => ({ what: "a conversation id holding one of the agent's secrets", conversationId: `conv-${secret}` })),
    // A client that keys its retries by a value holding a credential: the host would store it in the message's id.
    ...secrets
      .slice(0, 1)
      .map((secret) => ({ what: "a message id holding one of the agent's secrets", conversationId: 'bad-request-message-secret', messageId: `msg-${secret}` })),
  ];
  const out: BadRequest[] = [];
  for (const r of requests) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), AT_ONCE_MS);
    });
    const answer = await Promise.race([
      host.handle(
        r.conversationId,
        r.text ?? 'Where is ORD-1001?',
        'options' in r
          ? (r.options as never)
          : {
              ...(r.messageId !== undefined ? { messageId: r.messageId } : {}),
              ...(r.intent !== undefined ? { intent: r.intent as 'follow_up' } : {}),
              ...(r.traceparent !== undefined ? { traceparent: r.traceparent } : {}),
            },
      ),
      late,
    ]);
    clearTimeout(timer);
    out.push({
      what: r.what,
      conversationId: r.conversationId,
      status: answer?.status,
      answer: answer ? JSON.stringify(answer) : '',
      stored: store.count(r.conversationId),
    });
  }
  return out;
}
