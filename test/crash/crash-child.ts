/**
 * The process the crash test kills. It opens the SQLite store, recovers the
 * conversation the previous (killed) run left behind, then writes realistic turns
 * as fast as it can, flushing one batch per step the way the host does.
 *
 * Protocol on stdout (written synchronously, so a line that was printed is a
 * batch that was committed): `ready <events>` once recovered and flushed; around
 * every flush `appending <first seq> <count>` before the append starts and
 * `committed <last seq>` after it succeeded. A kill after `appending` and before
 * `committed` landed inside the append (or just after its commit).
 *
 * Usage: node test/crash/crash-child.ts <database path> <conversation id>
 */
import { writeSync } from 'node:fs';
import { systemClock } from '../../src/kernel/clock.ts';
import { decodeRecords } from '../../src/kernel/log/decode.ts';
import { toRecord } from '../../src/kernel/log/envelope.ts';
import { EventLog } from '../../src/kernel/log/event-log.ts';
import { recoverConversation } from '../../src/host/recovery.ts';
import { SqliteEventStore } from '../../src/stores/sqlite-store.ts';

const [path, conversationId] = process.argv.slice(2);
if (!path || !conversationId) {
  process.stderr.write('usage: crash-child.ts <database path> <conversation id>\n');
  process.exit(2);
}

/** Warming up: turns on a log of its own, flushed nowhere and not reported. */
let warming = false;

const say = (line: string): void => {
  writeSync(1, `${line}\n`);
};

const store = new SqliteEventStore(path);
const records = await store.read(conversationId);
let log = new EventLog(systemClock, decodeRecords(records, `${store.describe} conversation "${conversationId}"`));

async function flush(): Promise<void> {
  const batch = log.unflushed();
  if (batch.length === 0) return;
  if (warming) return log.markFlushed(log.flushedUpTo + batch.length);
  say(`appending ${batch[0]!.seq} ${batch.length}`);
  await store.append(conversationId!, batch.map(toRecord));
  log.markFlushed(log.flushedUpTo + batch.length);
  say(`committed ${batch[batch.length - 1]!.seq}`);
}

const report = recoverConversation(log, { sideEffectOf: () => 'STATEFUL' }); // write_note, the only tool, is STATEFUL
await flush();
// Two turns on a log of its own first, stored nowhere: what runs once a process (a public append's schema check,
// which zod builds on first use: ~8 ms) runs before `ready`, so the kills (up to 12 ms after it) land inside turns.
const stored = log;
warming = true;
log = new EventLog(systemClock);
await oneTurn();
await oneTurn();
log = stored;
warming = false;
say(`ready ${log.length} ${report.recovered ? `recovered turn ${report.turn}` : 'clean'}`);

function modelRound(turn: number, step: number, deltas: number, result: 'tool_use' | 'reply'): void {
  log.append('model.request', {
    turn,
    step,
    attempt: 0,
    client: 'scripted',
    model: 'crash-model',
    upTo: log.length,
    prompt: log.positions.lastPrompt!,
    tools: log.positions.lastTools!,
    maxTokens: 4096,
  });
  for (let i = 0; i < deltas; i++) {
    log.append('model.delta', { turn, step, attempt: 0, delta: { type: 'text', text: `chunk ${i} — 片段 ✓ ` } });
  }
  log.append('model.result', {
    turn,
    step,
    attempt: 0,
    result: { type: result, stopReason: result === 'reply' ? 'end_turn' : 'tool_use', usage: { inputTokens: 1200 + step, outputTokens: 80 } },
  });
}

async function runTool(turn: number, step: number, callId: string): Promise<void> {
  log.append('policy.decision', { turn, step, callId, tool: 'write_note', decision: 'allow', by: 'policy', rule: 'allow write_note' });
  log.append('tool.started', { turn, step, callId, name: 'write_note', args: { title: callId, body: 'notes ✍️' }, sideEffect: 'STATEFUL', attempt: 1 });
  await flush(); // write-ahead: the start is durable before the tool runs
  log.append('tool.result', {
    turn,
    step,
    callId,
    name: 'write_note',
    status: 'ok',
    content: `saved note ${callId}`,
    output: { id: callId, bytes: 42 },
    durationMs: 3,
    attempts: 1,
  });
  await flush();
}

for (;;) await oneTurn();

async function oneTurn(): Promise<void> {
  const turn = log.positions.nextTurn;
  // Step boundary 0: the message arrives, the turn opens and takes everything pending.
  log.append('inbox.received', { id: `m-${log.length}`, intent: 'follow_up', text: `please write notes for turn ${turn}`, source: 'crash-test' });
  log.append('turn.opened', { turn, trigger: 'follow_up' });
  for (const message of log.positions.pending()) {
    log.append('user.message', { turn, id: message.id, intent: message.intent, text: message.text });
  }
  if (log.positions.lastPrompt === undefined) {
    log.append('prompt.assembled', { system: 'You write notes.', fragments: [{ id: 'identity', priority: -100 }] });
    log.append('tools.declared', {
      tools: [{ name: 'write_note', description: 'Saves a note.', inputSchema: { type: 'object', properties: { title: { type: 'string' } } } }],
    });
  }
  await flush();

  // Step 0: the model asks for one or two tool calls.
  modelRound(turn, 0, 4, 'tool_use');
  await flush();
  const calls = Array.from({ length: 1 + (turn % 2) }, (_, i) => `call-${log.length}-${i}`);
  log.append('assistant.message', {
    turn,
    step: 0,
    content: [
      { type: 'text', text: 'Writing the notes.' },
      ...calls.map((id) => ({ type: 'tool_call' as const, id, name: 'write_note', args: { title: id } })),
    ],
  });
  await flush();
  for (const callId of calls) await runTool(turn, 0, callId);

  // A steer lands between steps and is taken into step 1; a long streamed reply ends the turn.
  const steer = `m-${log.length}`;
  log.append('inbox.received', { id: steer, intent: 'steer', text: 'also add a summary', source: 'crash-test' });
  log.append('user.message', { turn, id: steer, intent: 'steer', text: 'also add a summary' });
  modelRound(turn, 1, 24, 'reply');
  await flush();
  log.append('assistant.message', { turn, step: 1, content: [{ type: 'text', text: `Done: ${calls.length} note(s) and a summary.` }] });
  log.append('turn.closed', {
    turn,
    outcome: { kind: 'replied' },
    steps: 2,
    usage: { inputTokens: 2401, outputTokens: 160 },
    toolCalls: calls.length,
  });
  await flush();
}
