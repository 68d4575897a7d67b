/**
 * Following a conversation (host/follow.ts), where no scenario takes it: events
 * a live follower reads from the store rather than from the log this host wrote.
 *
 * The log redacts what it appends, so a live event from this host's own log is
 * already clean, and every scenario's follower reads those: a follower that let
 * its live events out without the host's redactor passed the gate (outside probe
 * 57, MED-1). The store holds more than this host wrote — events another host or
 * an earlier process stored before a value was known to be a secret — and the
 * follower reads them from there whenever no log is at hand. "Every event passes
 * the host's redactor before it is yielded": the case feeds a follower such an
 * event live and checks it comes out redacted.
 */
import { followConversation, type FollowSource } from '../host/follow.ts';
import type { FollowerListener } from '../host/followers.ts';
import { createRedactor, type AnyEvent } from '../kernel/index.ts';
import type { CheckResult } from '../report/results.ts';
import { checksCase, type Case } from './cases.ts';

const FILE = 'src/harness/follow-cases.ts';
const SECRET = 'rotated-Qx81vN3kLp0Zt7Wc';
const CONVERSATION = 'follow-1';

const event = (seq: number, text: string): AnyEvent =>
  ({ seq, type: 'user.message', v: 1, at: 1_700_000_000_000 + seq, payload: { turn: 0, id: `m${seq}`, text, source: 'user' } }) as unknown as AnyEvent;

/**
 * A store of one conversation a turn is writing to (busy), holding its first event: `store` adds an event as another
 * writer would, ends the turn and wakes the follower with no log at hand.
 */
function runningConversation(secrets: readonly string[]): { source: FollowSource; store: (e: AnyEvent) => void } {
  const stored: AnyEvent[] = [event(0, 'Where is my order?')];
  let listener: FollowerListener | undefined;
  let busy = true;
  const source: FollowSource = {
    read: async (_id, from) => stored.filter((e) => e.seq >= from),
    subscribe: (_id, l) => {
      listener = l;
      return () => {
        listener = undefined;
      };
    },
    busy: () => busy,
    closing: () => false,
    redact: createRedactor({ secrets }),
  };
  const store = (e: AnyEvent) => {
    stored.push(e);
    busy = false;
    listener?.(undefined);
  };
  return { source, store };
}

/** `waiting`, or 'hung' after 5 s (the timer cleared either way). */
async function within<T>(waiting: Promise<T>): Promise<T | 'hung'> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([waiting, new Promise<'hung'>((resolve) => (timer = setTimeout(resolve, 5_000, 'hung')))]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A follower of `source`'s conversation and its first event (the stored one, replayed), each wait bounded: 'hung'
 * when either never comes.
 */
async function followAndReplay(source: FollowSource, signal: AbortSignal, seen: AnyEvent[]): Promise<AsyncIterator<AnyEvent> | 'hung'> {
  const events = await within(followConversation(source, CONVERSATION, { signal }));
  if (events === 'hung') return 'hung';
  const iterator = events[Symbol.asyncIterator]();
  const first = await within(iterator.next());
  if (first === 'hung') return 'hung';
  if (!first.done) seen.push(first.value);
  return iterator;
}

/**
 * Reads a follower to its end from `next` on, into `seen`, each wait bounded: a follower that never ends fails its
 * case instead of holding the run. The caller aborts the follow when done, whatever this answered (return() would
 * queue behind a pending next(), so a follower still waiting would stay subscribed).
 */
async function readToEnd(iterator: AsyncIterator<AnyEvent>, next: Promise<IteratorResult<AnyEvent>>, seen: AnyEvent[]): Promise<'ended' | 'hung'> {
  for (let answer = await within(next); ; answer = await within(iterator.next())) {
    if (answer === 'hung') return 'hung';
    if (answer.done) return 'ended';
    seen.push(answer.value);
  }
}

async function liveEventsFromTheStoreRedacted(): Promise<CheckResult[]> {
  const { source, store } = runningConversation([SECRET]);
  const seen: AnyEvent[] = [];
  const stop = new AbortController();
  let hung = false;
  try {
    const iterator = await followAndReplay(source, stop.signal, seen);
    if (iterator === 'hung') return hungCheck(seen);
    // Another writer stores an event holding a value this host knows as a secret; the follower is woken with no log.
    store(event(1, `My recovery code is ${SECRET}, please unlock my account.`));
    hung = (await readToEnd(iterator, iterator.next(), seen)) === 'hung';
  } finally {
    stop.abort();
  }
  const live = seen.find((e) => e.seq === 1);
  const shown = live ? JSON.stringify((live as { payload?: unknown }).payload) : 'none';
  return [
    {
      name: 'the follower yields the event stored after it connected, live',
      passed: live !== undefined && !hung,
      message: `seqs yielded: ${JSON.stringify(seen.map((e) => e.seq))}${hung ? ', then it never ended' : ''}`,
      expected: '[0,1]',
      actual: JSON.stringify(seen.map((e) => e.seq)),
    },
    {
      name: 'a live event read from the store passes the host’s redactor before it is yielded',
      passed: live !== undefined && !shown.includes(SECRET) && shown.includes('[REDACTED]'),
      message:
        live === undefined ? 'not yielded' : shown.includes(SECRET) ? `yielded with the secret in it: ${shown.replaceAll(SECRET, '<the secret>')}` : shown,
      expected: 'the secret [REDACTED]',
      actual: live === undefined ? 'not yielded' : shown.includes(SECRET) ? 'the secret in plain text' : 'redacted',
    },
  ];
}

/**
 * A follower that is not kept open still follows the turn that is running when it catches up: it ends once the
 * conversation is idle, not as soon as it has read what is stored (outside probe 68: a follower that ended there
 * showed a UI half a turn, and every case passed — each woke its follower with the next event already stored).
 */
async function followerWaitsOutARunningTurn(): Promise<CheckResult[]> {
  const { source, store } = runningConversation([]);
  const stop = new AbortController();
  const seen: AnyEvent[] = [];
  let hung = false;
  try {
    const iterator = await followAndReplay(source, stop.signal, seen);
    if (iterator === 'hung') return hungCheck(seen);
    // The follower has caught up while the turn still runs: it asks for the next event before anything more is stored.
    const waiting = iterator.next();
    await new Promise((resolve) => setImmediate(resolve));
    store(event(1, 'It shipped on Monday.'));
    hung = (await readToEnd(iterator, waiting, seen)) === 'hung';
  } finally {
    stop.abort();
  }
  const seqs = JSON.stringify(seen.map((e) => e.seq));
  return [
    {
      name: 'the follower waits for the running turn’s next event, then ends when the conversation is idle',
      passed: !hung && seqs === '[0,1]',
      message: `seqs yielded: ${seqs}${hung ? ', then it never ended' : ''}`,
      expected: '[0,1]',
      actual: seqs,
    },
  ];
}

/** The one check of a case whose follower never started, or never replayed what was stored. */
function hungCheck(seen: readonly AnyEvent[]): CheckResult[] {
  const seqs = JSON.stringify(seen.map((e) => e.seq));
  return [
    {
      name: 'the follower starts and replays what is stored',
      passed: false,
      message: `seqs yielded: ${seqs}, then it waited 5 s for more`,
      expected: '[0]',
      actual: seqs,
    },
  ];
}

export function followCases(): Case[] {
  return [
    checksCase(
      {
        id: 'contract:host/follower-redacts-live-events-read-from-the-store',
        title: 'host: a live follower redacts an event it reads from the store (another writer’s, stored before its value was a secret)',
        file: FILE,
        secrets: [SECRET],
      },
      liveEventsFromTheStoreRedacted,
    ),
    checksCase(
      {
        id: 'contract:host/follower-waits-out-a-running-turn',
        title: 'host: a follower that is not kept open, caught up while a turn runs, waits for its next event and ends when the conversation is idle',
        file: FILE,
      },
      followerWaitsOutARunningTurn,
    ),
  ];
}
