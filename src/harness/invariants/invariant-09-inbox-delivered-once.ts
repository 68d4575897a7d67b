/**
 * Invariant 9: inject never wakes an idle loop; a taken message is never lost or
 * delivered twice.
 *
 * A turn opens only when a follow-up or steer waits; a message taken into a turn
 * that is cancelled before the model completed a step with it goes back to the
 * inbox, in order — and so does a message the loop wrote itself (a side-effect
 * notice) taken into any turn that ends before the model completed a step with
 * it, or whose steps are not kept. Against the reference predictions (support/inbox-reference.ts):
 * - every message the scenario posted (when its moment came) was received once;
 * - replayed from the log, a message is delivered only while pending and
 *   returned only while taken; at the end each is taken once or still pending,
 *   and the loop's own inbox index agrees;
 * - a follow-up is only ever taken when its turn starts, one per turn; a turn
 *   takes messages in arrival order;
 * - a steer or inject waiting when a step starts joins that step;
 * - a cancel is recorded only while a turn is open.
 */
import { createRedactor, type LogEvent } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import { defineInvariant, firstViolation } from './invariant.ts';
import { expectedMessages } from './support/inbox-reference.ts';
import { isWaking, replayInbox, type InboxMessage } from './support/inbox-replay.ts';
import { viewOf, type TurnView } from './support/log-view.ts';
import { messagesKeptObservably } from './observable/messages-kept.ts';

export const inboxDeliveredOnce = defineInvariant({
  id: 'invariant-09-inbox-delivered-once',
  title: 'inject never wakes an idle loop; a taken message is never lost or delivered twice',
  invariant: 9,
  checkObservable: messagesKeptObservably,
  check: (run) =>
    firstViolation(
      () => injectNeverWakes(run),
      () => returnsReturnSomething(run),
      () => inboxFollowsReference(run),
      () => steersJoinTheirTurn(run),
      () => run.drainsLeftWork?.[0],
    ),
});

/**
 * An `inbox.returned` gives back at least one message (an empty one records nothing that happened) and says why:
 * its reason is what `loopgate replay` prints beside the ids, the one record of why a customer's message went back.
 */
function returnsReturnSomething(run: ScenarioRun): string | undefined {
  for (const e of viewOf(run).known) {
    if (e.type !== 'inbox.returned') continue;
    if (e.payload.ids.length === 0) return `event seq ${e.seq}: an inbox.returned that returns no message (turn ${e.payload.turn})`;
    if (e.payload.reason.trim() === '')
      return `event seq ${e.seq}: an inbox.returned of ${e.payload.ids.join(', ')} that does not say why (blank reason; turn ${e.payload.turn})`;
  }
  return undefined;
}

/**
 * A steer posted while a turn's model was still at work joins that turn (seed 000 §6): a turn that ends replied,
 * with steps left, has taken every steer received before its final answer was recorded. (One received after the
 * answer may fall into the close and wait for the next turn; with several hosts, another host's steer reaches this
 * one's log only when it next reads the store.)
 */
function steersJoinTheirTurn(run: ScenarioRun): string | undefined {
  if ((run.scenario.hosts ?? 1) > 1) return undefined;
  for (const turn of viewOf(run).turns) {
    if (turn.recovered || turn.outcome?.kind !== 'replied') continue;
    const closed = turn.events.find((e) => e.type === 'turn.closed') as Extract<LogEvent, { type: 'turn.closed' }> | undefined;
    if (!closed || closed.payload.steps >= run.config.maxSteps) continue;
    const answer = turn.events.findLast((e) => e.type === 'assistant.message');
    if (!answer) continue;
    const taken = new Set(turn.events.filter((e) => e.type === 'user.message').map((e) => (e as Extract<LogEvent, { type: 'user.message' }>).payload.id));
    for (const e of turn.events) {
      if (e.seq >= answer.seq) break;
      if (e.type !== 'inbox.received' || e.payload.intent !== 'steer' || taken.has(e.payload.id)) continue;
      return `turn ${turn.turn} ended replied after ${closed.payload.steps} of ${run.config.maxSteps} steps without the steer ${e.payload.id} (seq ${e.seq}), received before its final answer (seq ${answer.seq}): a steer joins the running turn`;
    }
  }
  return undefined;
}

function inboxFollowsReference(run: ScenarioRun): string | undefined {
  const view = viewOf(run);
  const redact = createRedactor({ secrets: run.secrets });
  const received = view.known
    .filter((e): e is Extract<LogEvent, { type: 'inbox.received' }> => e.type === 'inbox.received' && e.payload.source === 'user')
    .map((e) => `${e.payload.intent}: ${e.payload.text}`);
  // Requests the final log no longer records (lost with a crash) still went out: they count for `at: { request }`.
  const facts = {
    requests: run.requests.length + run.lost.requests,
    executions: run.executions,
    events: run.reached.events,
    deltas: run.reached.deltas,
    approvals: run.reached.approvals,
    checkpoints: run.reached.checkpoints,
    attempts: highestAttempts(run),
    recorded: run.reached.recorded,
  };
  const expected = expectedMessages(run.scenario.inbox, facts).map((m) => `${m.intent}: ${redact(m.text)}`);
  if (run.thrown === undefined) {
    // Through the production host, "stored" means in the store: the final log may be ahead of it (a write the store refused last).
    const problem = run.posts ? receivedThroughTheHost(run, expected, redact) : sameMessages(expected, received);
    if (problem) return problem;
  }

  let openTurn: number | undefined;
  let firstRequestSeen = false;
  let followUps = 0;
  let lastTakenSeq = -1;
  const replay = replayInbox(view.known, (e, messages) => {
    switch (e.type) {
      case 'turn.opened':
        openTurn = e.payload.turn;
        firstRequestSeen = false;
        followUps = 0;
        lastTakenSeq = -1;
        return undefined;
      case 'turn.closed':
        openTurn = undefined;
        return undefined;
      case 'cancel.requested':
        return openTurn === undefined ? `a cancel was recorded (seq ${e.seq}) while no turn was open: it must be ignored` : undefined;
      case 'user.message': {
        const m = messages.get(e.payload.id);
        if (m && m.seq < lastTakenSeq) return `turn ${e.payload.turn} took message ${e.payload.id} after a later one: messages are taken in arrival order`;
        if (m) lastTakenSeq = m.seq;
        if (e.payload.intent !== 'follow_up') return undefined;
        followUps++;
        if (followUps > 1) return `turn ${e.payload.turn} took a second follow-up (${e.payload.id}): each follow-up is its own turn`;
        if (firstRequestSeen) return `turn ${e.payload.turn} took follow-up ${e.payload.id} mid-turn: follow-ups wait for the next turn`;
        return undefined;
      }
      case 'model.request': {
        firstRequestSeen = true;
        if (e.payload.attempt !== 1) return undefined;
        for (const m of messages.values()) {
          if (m.state === 'pending' && m.intent !== 'follow_up')
            return `step ${e.payload.step} of turn ${e.payload.turn} started without ${m.intent} ${m.id}, which was waiting: it must join the step`;
        }
        return undefined;
      }
      default:
        return undefined;
    }
  });
  if (replay.problem) return replay.problem;

  const pending = new Set(run.log.positions.pending().map((m) => m.id));
  for (const m of replay.messages.values()) {
    if (m.held !== (m.state === 'taken' ? 1 : 0)) return `message ${m.id} was taken ${m.held} time(s) net`;
    if ((m.state === 'pending') !== pending.has(m.id))
      return `message ${m.id} is ${m.state} in the log but the loop's inbox says ${pending.has(m.id) ? 'pending' : 'taken'}`;
  }
  return undefined;
}

/**
 * What a closed turn must give back (the order within `inbox.returned` does not
 * matter: returned messages take their arrival order again): after a cancel,
 * every message taken after the model's last completed step; and the loop's own
 * messages (source `loop:…`) taken after it, or taken at all by a turn whose steps
 * are not kept (a failure, a full conversation, a refused or empty input). A
 * cancelled turn whose closing write then failed ends failed{persistence}: its
 * messages go back as for the cancel, and the loop's own as for the failure.
 */
function expectedReturns(turn: TurnView, messages: ReadonlyMap<string, InboxMessage>): string[] {
  const outcome = turn.outcome;
  if (!outcome) return [];
  const cancelRequested = turn.events.some((e) => e.type === 'cancel.requested');
  const persistence = outcome.kind === 'failed' && outcome.reason === 'persistence';
  // Cut short: cancelled, or interrupted by a crash and closed by recovery (through the production host).
  const cancelled = outcome.kind === 'cancelled' || outcome.kind === 'interrupted' || turn.recovered || (persistence && cancelRequested);
  const keeps = outcome.kind === 'replied' || outcome.kind === 'cancelled' || outcome.kind === 'interrupted';
  let lastAssistant = -1;
  turn.events.forEach((e, i) => {
    if (e.type === 'assistant.message') lastAssistant = i;
  });
  const out: string[] = [];
  turn.events.forEach((e, i) => {
    if (e.type !== 'user.message') return;
    const loopWritten = messages.get(e.payload.id)?.source.startsWith('loop:') === true;
    const unseen = i > lastAssistant;
    if ((unseen && (cancelled || loopWritten)) || (!keeps && loopWritten)) out.push(e.payload.id);
  });
  return out;
}

function injectNeverWakes(run: ScenarioRun): string | undefined {
  const view = viewOf(run);
  const replay = replayInbox(view.known, (e, messages) => {
    if (e.type !== 'turn.opened') return undefined;
    for (const m of messages.values()) if (m.state === 'pending' && isWaking(m)) return undefined;
    return `turn ${e.payload.turn} opened (seq ${e.seq}) with no follow-up or steer waiting: only injects (or nothing) woke the loop`;
  });
  if (replay.problem?.startsWith('turn ')) return replay.problem;
  for (const turn of view.turns) {
    const returned = turn.events.filter((e): e is Extract<LogEvent, { type: 'inbox.returned' }> => e.type === 'inbox.returned').flatMap((e) => e.payload.ids);
    const expected = expectedReturns(turn, replay.messages);
    if (JSON.stringify([...returned].sort()) !== JSON.stringify([...expected].sort())) {
      return `turn ${turn.turn} ended ${turn.outcome?.kind ?? 'open'}: it should have returned ${expected.join(', ') || 'nothing'} to the inbox (messages the model will not read in a kept history), but returned ${returned.join(', ') || 'nothing'}`;
    }
  }
  return undefined;
}

/** The highest attempt a body of each tool started, over every call (for `toolStart` triggers with an `attempt`). */
function highestAttempts(run: ScenarioRun): Map<string, number> {
  const highest = new Map<string, number>();
  for (const bodies of run.toolBodies?.values() ?? []) for (const b of bodies) highest.set(b.tool, Math.max(highest.get(b.tool) ?? 0, b.attempt));
  return highest;
}

function sameMessages(expected: readonly string[], received: readonly string[]): string | undefined {
  if (JSON.stringify([...expected].sort()) === JSON.stringify([...received].sort())) return undefined;
  const missing = expected.filter((m) => !received.includes(m));
  const extra = received.filter((m) => !expected.includes(m));
  return `the scenario posted ${expected.length} message(s) but the log received ${received.length}${missing.length ? `; missing: ${missing.join(' | ')}` : ''}${extra.length ? `; unexpected: ${extra.join(' | ')}` : ''}`;
}

/** The users' messages the case's store holds, as `intent: text`. */
function storedReceived(run: ScenarioRun): string[] {
  return run.store.peek(run.conversation).flatMap((r) => {
    const p = r.payload as { intent?: string; text?: string; source?: string } | null;
    return r.type === 'inbox.received' && p?.source === 'user' ? [`${p.intent}: ${p.text}`] : [];
  });
}

/**
 * A text holding a secret the agent gained on a reopen (`secretsOnReopen`) is stored as it was by the process before
 * the reopen and redacted by the ones after: both sides are read with that secret redacted, so a message the new
 * process stored redacted counts as the one posted (outside probe 63, F1: a correct host failed here).
 */
function receivedThroughTheHost(run: ScenarioRun, expected: readonly string[], redact: (t: string) => string): string | undefined {
  const gained = run.scenario.secretsOnReopen ?? [];
  const asStored = gained.length > 0 ? createRedactor({ secrets: [...run.secrets, ...gained] }) : redact;
  return receivedAsAnswered(run.posts!, expected.map(asStored), storedReceived(run).map(asStored), asStored);
}

/**
 * Through the production host a client learns from the envelope whether its message
 * was stored: one the host said it stored must be in the store, once; one it said it
 * did not store must not be; one it never answered (a crash cut the request off)
 * may or may not be. Posts that give the same client message id, text and intent are
 * one message (a client retrying it): stored once at most, whichever of its requests
 * was answered.
 */
function receivedAsAnswered(
  posts: NonNullable<ScenarioRun['posts']>,
  expected: readonly string[],
  received: readonly string[],
  redact: (t: string) => string,
): string | undefined {
  const sent = posts.map((p) => `${p.intent}: ${redact(p.text)}`);
  if (JSON.stringify([...expected].sort()) !== JSON.stringify([...sent].sort()))
    return `the scenario should have posted ${expected.length} message(s) through the host, but ${sent.length} were: ${sent.join(' | ') || 'none'}`;
  // One message per client message id, text and intent (the same id with another text or intent is another
  // message, refused 422), one per post without an id.
  const groups = new Map<string, { message: string; id: string | undefined; posts: (typeof posts)[number][] }>();
  for (const [i, post] of posts.entries()) {
    const key = post.messageId !== undefined ? `id:${post.messageId}\u0000${sent[i]}` : `post:${i}`;
    const group = groups.get(key) ?? { message: sent[i]!, id: post.messageId, posts: [] };
    group.posts.push(post);
    groups.set(key, group);
  }
  const left = [...received];
  const take = (m: string) => {
    const i = left.indexOf(m);
    if (i >= 0) left.splice(i, 1);
    return i >= 0;
  };
  const said = (g: { posts: (typeof posts)[number][] }) =>
    g.posts.some((p) => p.envelope?.delivery !== undefined) ? 'stored' : g.posts.some((p) => p.envelope === undefined) ? 'unknown' : 'not stored';
  for (const group of groups.values()) {
    if (said(group) !== 'stored') continue;
    if (!take(group.message)) {
      const post = group.posts.find((p) => p.envelope?.delivery !== undefined)!;
      return `the host answered ${post.envelope!.status} (${post.envelope!.delivery}: stored) for "${group.message}", but the store never received it`;
    }
  }
  for (const group of groups.values()) if (said(group) === 'unknown') take(group.message); // never answered: either way
  for (const group of groups.values()) {
    if (said(group) !== 'not stored' || !left.includes(group.message)) continue;
    const post = group.posts.at(-1)!;
    return `the host answered ${post.envelope!.status} for "${group.message}" saying it was not stored (${post.envelope!.error ?? 'no error'}), but the store holds it`;
  }
  for (const group of groups.values()) {
    if (group.id === undefined || group.posts.length < 2 || !left.includes(group.message)) continue;
    return `the store holds "${group.message}" more than once, though the client posted it ${group.posts.length} times with one message id (${group.id}): a retry must not store the message again`;
  }
  if (left.length > 0) return `the log received message(s) nobody posted: ${left.join(' | ')}`;
  return undefined;
}
