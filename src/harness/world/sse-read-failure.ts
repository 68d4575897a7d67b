/**
 * After a production-host case whose agent has secrets, a UI follows a
 * conversation over the host's own SSE handler (`eventsHandler`) while the store
 * fails a read in the middle of the follow — after the catch-up read (of a
 * conversation with nothing stored), when the follower goes to the store for
 * what came since — with an error whose message names one of the agent's
 * secrets (a driver error that prints its connection URL with the password, a
 * damaged record quoted in a parse error). The stream
 * must end with an `event: error` message, redacted like everything else the
 * host serves; `sse-errors-redacted` judges the text the client received.
 *
 * Sent to a host of its own, built as the case's is (`createHostFromConfig`, the
 * case's config and agent) over a store and a model of its own.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { reply } from '../../../providers/fake/results.ts';
import { ScriptedModelClient } from '../../../providers/fake/scripted.ts';
import type { HostConfig } from '../../host/config.ts';
import { createHostFromConfig } from '../../host/from-config.ts';
import { eventsHandler } from '../../host/sse.ts';
import type { Agent, EventRecord } from '../../kernel/index.ts';
import { MemoryEventStore } from '../../stores/memory-store.ts';

export interface SseReadFailure {
  /** The status the SSE request was answered with. */
  readonly status: number;
  /** Everything the client received. */
  readonly body: string;
  /** The secret the store's error message named. */
  readonly secret: string;
}

const CONVERSATION = 'sse-read-failure';
const LIMIT_MS = 5_000;

/** A store whose reads of the conversation fail from the `failFrom`-th on (1-based), naming `secret`. */
class FailingReads extends MemoryEventStore {
  #reads = 0;
  readonly #failFrom: number;
  readonly #secret: string;
  constructor(failFrom: number, secret: string) {
    super();
    this.#failFrom = failFrom;
    this.#secret = secret;
  }
  override async read(conversationId: string, fromSeq = 0): Promise<EventRecord[]> {
    if (conversationId === CONVERSATION && ++this.#reads >= this.#failFrom)
      throw new Error(`lost the connection to postgres://loopgate:${this.#secret}@db.internal:5432/agent while reading from seq ${fromSeq}`);
    return super.read(conversationId, fromSeq);
  }
}

/** Undefined when the agent has no secret to leak. */
export async function followWithFailingRead(config: HostConfig, agent: Agent): Promise<SseReadFailure | undefined> {
  const secret = (agent.secrets ?? []).find((s) => s.length > 0);
  if (secret === undefined) return undefined;
  // No turn is run (the case's agent may wait on the case's own clock): the catch-up read finds nothing stored, and the
  // follower's next read, for what came since, is the one that fails.
  const host = await createHostFromConfig(config, {
    store: new FailingReads(2, secret),
    agent: () => agent,
    modelClient: () => new ScriptedModelClient([reply('Noted.')]),
    env: {},
    recover: false,
  });
  const server = createServer(eventsHandler(host, { heartbeatMs: 0 }));
  try {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/conversations/${CONVERSATION}/events`, { signal: AbortSignal.timeout(LIMIT_MS) });
    return { status: res.status, body: await res.text(), secret };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    host.halt();
  }
}
