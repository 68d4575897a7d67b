/**
 * One host process of the SQLite two-process test: the production AgentHost on a
 * SQLite file, claiming it and sweeping it for crashed turns at start.
 *
 * Environment: SQLITE_HOST_DB (the file), SQLITE_HOST_NAME, SQLITE_HOST_WAIT_MS
 * (how long to wait for another host to let go; default 0: refuse at once).
 *
 * IPC to the parent: {type: 'ready', pid, sweep} once it holds the file, or
 * {type: 'refused', error} (then it exits 3); {type: 'hanging'} when its model is
 * asked a question containing "hang:<its name>" (that call only ends when the turn
 * is cancelled); {type: 'answered', envelope} per handled message.
 * From the parent: {type: 'handle', conversationId, text}; {type: 'shutdown'}.
 */
import { reply, transportError } from '../../providers/fake/results.ts';
import { defaultHostConfig } from '../../src/host/config.ts';
import { AgentHost } from '../../src/host/host.ts';
import type { ModelClient, ModelRequest, ModelResult } from '../../src/kernel/model/client.ts';
import { SqliteEventStore } from '../../src/stores/sqlite-store.ts';

const path = process.env.SQLITE_HOST_DB!;
const name = process.env.SQLITE_HOST_NAME!;
const waitMs = Number(process.env.SQLITE_HOST_WAIT_MS ?? 0);
const tell = (message: Record<string, unknown>) => process.send?.(message);

function lastUserText(request: ModelRequest): string {
  const last = request.messages[request.messages.length - 1];
  return last?.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(' ') ?? '';
}

const model: ModelClient = {
  name: `fake:${name}`,
  call(request: ModelRequest): Promise<ModelResult> {
    if (!lastUserText(request).includes(`hang:${name}`)) return Promise.resolve(reply(`answer from ${name}`));
    tell({ type: 'hanging' });
    return new Promise((resolve) => {
      if (request.signal?.aborted) return resolve(transportError('aborted'));
      request.signal?.addEventListener('abort', () => resolve(transportError('aborted')), { once: true });
    });
  },
};

const store = new SqliteEventStore(path);
const host = new AgentHost({ config: defaultHostConfig(), store, model, storeClaimWaitMs: waitMs });
try {
  const sweep = await host.recoverAll();
  tell({ type: 'ready', pid: process.pid, sweep });
} catch (error) {
  tell({ type: 'refused', error: (error as Error).message });
  await store.close();
  process.exit(3);
}

process.on('message', (message: { type?: string; conversationId?: string; text?: string }) => {
  if (message.type === 'handle') {
    void host.handle(message.conversationId!, message.text!).then((envelope) => tell({ type: 'answered', envelope }));
  } else if (message.type === 'shutdown') {
    void host.close().then(() => process.exit(0));
  }
});
