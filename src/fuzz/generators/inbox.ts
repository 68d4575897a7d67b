/**
 * Inbox interleavings, model-based (fc.commands over InboxModel): follow-ups,
 * steers, injects and cancels from every source, each either in order (when the
 * loop is idle) or at a moment — while the n-th model request is in flight, at a
 * virtual time, when a tool starts, as the n-th streamed delta arrives, as the log
 * appends event k — including the window between a message being taken into a
 * step and the model answering it (a steer at request n, a cancel at request
 * n + 1).
 */
import fc from 'fast-check';
import { CANCEL_SOURCES, type CancelSource } from '../../kernel/index.ts';
import type { InboxEntry, Trigger } from '../../harness/scenario/schema.ts';
import { InboxModel, type MessageIntent } from './inbox-model.ts';
import type { FuzzTool } from './tools.ts';

/** What the commands build: the scenario's `inbox:` list. */
export interface InboxBuilder {
  readonly entries: InboxEntry[];
}

export type InboxCommand = fc.Command<InboxModel, InboxBuilder>;

function describeAt(at: Trigger | undefined): string {
  if (!at) return '';
  if (at.request !== undefined) return ` at request ${at.request}`;
  if (at.toolStart !== undefined) return ` at toolStart ${at.toolStart}${at.attempt === undefined ? '' : ` attempt ${at.attempt}`}`;
  if (at.toolRecorded !== undefined) return ` at toolRecorded ${at.toolRecorded}`;
  if (at.delta !== undefined) return ` at delta ${at.delta}`;
  if (at.approval !== undefined) return ` at approval ${at.approval}`;
  if (at.checkpoint !== undefined) return ` at checkpoint ${at.checkpoint}`;
  if (at.event !== undefined) return ` at event ${at.event}`;
  return ` at ${at.time} ms`;
}

/** A message that says nothing: a stray Enter and some spaces (never sent to the model; a provider refuses it). */
export const BLANK_MESSAGE = ' \n  ';

class PostCommand implements InboxCommand {
  readonly intent: MessageIntent;
  readonly at: Trigger | undefined;
  readonly blank: boolean;
  constructor(intent: MessageIntent, at: Trigger | undefined, blank = false) {
    this.intent = intent;
    this.at = at;
    this.blank = blank;
  }
  check(model: Readonly<InboxModel>): boolean {
    // A timed follow-up before anything was said would race the first turn for no reason of its own.
    return this.intent !== 'follow_up' || this.at === undefined || model.waking > 0;
  }
  run(model: InboxModel, real: InboxBuilder): void {
    const text = this.blank ? BLANK_MESSAGE : model.text(this.intent);
    const key = this.intent === 'follow_up' ? 'say' : this.intent;
    const entry: InboxEntry = { [key]: text, ...(this.at ? { at: this.at } : {}) } as InboxEntry;
    model.add(entry);
    real.entries.push(entry);
  }
  toString(): string {
    return `${this.blank ? 'blank ' : ''}${this.intent}${describeAt(this.at)}`;
  }
}

class CancelCommand implements InboxCommand {
  readonly by: CancelSource;
  readonly at: Trigger | undefined;
  constructor(by: CancelSource, at: Trigger | undefined) {
    this.by = by;
    this.at = at;
  }
  check(model: Readonly<InboxModel>): boolean {
    // A cancel with nothing that could be running is ignored by the loop; a few are enough.
    return model.waking > 0 && model.cancels < 3;
  }
  run(model: InboxModel, real: InboxBuilder): void {
    const entry: InboxEntry = { cancel: this.by, ...(this.at ? { at: this.at } : {}) };
    model.add(entry);
    real.entries.push(entry);
  }
  toString(): string {
    return `cancel by ${this.by}${describeAt(this.at)}`;
  }
}

/** What the client of the `pick`-th message posted so far (counted round) does again, at once or at a moment. */
abstract class ClientCommand implements InboxCommand {
  readonly pick: number;
  readonly at: Trigger | undefined;
  constructor(pick: number, at: Trigger | undefined) {
    this.pick = pick;
    this.at = at;
  }
  check(model: Readonly<InboxModel>): boolean {
    return model.posted > 0;
  }
  abstract run(model: InboxModel, real: InboxBuilder): void;
  abstract toString(): string;
}

/**
 * The client of an earlier message goes away (its HTTP request aborted): at once,
 * or at a moment. Only the production host answers requests a client can abort;
 * cases through the loop drop these entries (toFuzzCase).
 */
class DisconnectCommand extends ClientCommand {
  run(model: InboxModel, real: InboxBuilder): void {
    const entry: InboxEntry = { disconnect: ((this.pick - 1) % model.posted) + 1, ...(this.at ? { at: this.at } : {}) };
    model.add(entry);
    real.entries.push(entry);
  }
  toString(): string {
    return `disconnect the client of message ${this.pick}${describeAt(this.at)}`;
  }
}

/**
 * The client of an earlier message posts it again with the same message id (its
 * request timed out, or the host died under it): the host must store and run it
 * once and answer the retry with what became of it (invariant 9). The earlier
 * message gets the id if it had none. Only the production host takes message
 * ids; cases through the loop drop the retries and the ids (toFuzzCase).
 */
class RetryCommand extends ClientCommand {
  run(model: InboxModel, real: InboxBuilder): void {
    const posts = real.entries.filter(isPost);
    const index = (this.pick - 1) % posts.length;
    const original = posts[index]! as { -readonly [K in keyof InboxEntry]: InboxEntry[K] };
    original.messageId ??= `client-msg-${index + 1}`;
    const { say, steer, inject, messageId } = original;
    const entry: InboxEntry = {
      ...(say !== undefined ? { say } : steer !== undefined ? { steer } : { inject: inject! }),
      messageId,
      ...(this.at ? { at: this.at } : {}),
    };
    model.add(entry);
    real.entries.push(entry);
  }
  toString(): string {
    return `the client of message ${this.pick} posts it again with its id${describeAt(this.at)}`;
  }
}

/**
 * A client reuses the id of an earlier message for another message: another text
 * with the same intent, or the same text with another intent (a bug in its id
 * scheme, a reused Idempotency-Key). The host compares id, text and intent: this
 * is not a retry, it is refused 422 and nothing is stored
 * (retries-answered-as-their-message, invariant 9). The earlier message gets the
 * id if it had none. Cases through the loop drop it with the ids (toFuzzCase).
 */
class ReuseIdCommand extends ClientCommand {
  readonly otherIntent: boolean;
  constructor(pick: number, at: Trigger | undefined, otherIntent: boolean) {
    super(pick, at);
    this.otherIntent = otherIntent;
  }
  run(model: InboxModel, real: InboxBuilder): void {
    const posts = real.entries.filter(isPost);
    const index = (this.pick - 1) % posts.length;
    const original = posts[index]! as { -readonly [K in keyof InboxEntry]: InboxEntry[K] };
    original.messageId ??= `client-msg-${index + 1}`;
    const intent = intentOf(original);
    const next: MessageIntent = this.otherIntent ? (intent === 'follow_up' ? 'steer' : intent === 'steer' ? 'inject' : 'follow_up') : intent;
    const text = this.otherIntent ? (original.say ?? original.steer ?? original.inject!) : model.text(intent);
    const key = next === 'follow_up' ? 'say' : next;
    const entry: InboxEntry = { [key]: text, messageId: original.messageId, ...(this.at ? { at: this.at } : {}) } as InboxEntry;
    model.add(entry);
    real.entries.push(entry);
  }
  toString(): string {
    return `the client of message ${this.pick} reuses its id with ${this.otherIntent ? 'another intent' : 'another text'}${describeAt(this.at)}`;
  }
}

function intentOf(entry: InboxEntry): MessageIntent {
  return entry.say !== undefined ? 'follow_up' : entry.steer !== undefined ? 'steer' : 'inject';
}

/** A message a client posts (say, steer or inject). */
export function isPost(entry: InboxEntry): boolean {
  return entry.say !== undefined || entry.steer !== undefined || entry.inject !== undefined;
}

/** A steer posted while request n is in flight — taken into step n + 1 — and a cancel landing as request n + 1 is sent. */
class TakenThenCancelledCommand implements InboxCommand {
  readonly request: number;
  readonly by: CancelSource;
  constructor(request: number, by: CancelSource) {
    this.request = request;
    this.by = by;
  }
  check(model: Readonly<InboxModel>): boolean {
    return model.waking > 0 && model.cancels < 3;
  }
  run(model: InboxModel, real: InboxBuilder): void {
    const steer: InboxEntry = { steer: model.text('steer'), at: { request: this.request } };
    const cancel: InboxEntry = { cancel: this.by, at: { request: this.request + 1 } };
    for (const entry of [steer, cancel]) {
      model.add(entry);
      real.entries.push(entry);
    }
  }
  toString(): string {
    return `steer at request ${this.request}, cancel by ${this.by} at request ${this.request + 1}`;
  }
}

/**
 * A steer whose client goes away the moment it is sent (the same trigger): through the production host the host
 * must answer from what the store holds — queued only once its write is stored (not when it is merely the next
 * event after everything stored), not stored when the write is refused (`store.failReceipts`), and a turn that
 * took it cancelled. As a STATEFUL or CRITICAL tool starts, everything before the steer is stored (the write-ahead
 * barrier). Through the loop the disconnect is dropped (toFuzzCase): a plain steer.
 */
class SteerThenGoneCommand implements InboxCommand {
  readonly at: Trigger;
  constructor(at: Trigger) {
    this.at = at;
  }
  check(model: Readonly<InboxModel>): boolean {
    return model.waking > 0;
  }
  run(model: InboxModel, real: InboxBuilder): void {
    const steer: InboxEntry = { steer: model.text('steer'), at: this.at };
    model.add(steer);
    real.entries.push(steer);
    const gone: InboxEntry = { disconnect: model.posted, at: this.at };
    model.add(gone);
    real.entries.push(gone);
  }
  toString(): string {
    return `steer${describeAt(this.at)}, its client gone at once`;
  }
}

function triggerArb(tools: readonly FuzzTool[]): fc.Arbitrary<Trigger | undefined> {
  return fc.oneof(
    { withCrossShrink: true },
    { weight: 4, arbitrary: fc.constant(undefined) },
    { weight: 3, arbitrary: fc.integer({ min: 1, max: 6 }).map((request): Trigger => ({ request })) },
    { weight: 2, arbitrary: fc.integer({ min: 0, max: 60_000 }).map((time): Trigger => ({ time })) },
    { weight: 1, arbitrary: fc.constantFrom(...tools.map((t) => t.name)).map((toolStart): Trigger => ({ toolStart })) },
    // Mid-stream, and between any two records of the log (a steer landing between a call's start and its result).
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 12 }).map((delta): Trigger => ({ delta })) },
    { weight: 1, arbitrary: fc.integer({ min: 2, max: 60 }).map((event): Trigger => ({ event })) },
  );
}

/** The tools a cancel lands on as they start: those that change the world (run one by one), else any. */
function stopPoints(tools: readonly FuzzTool[]): string[] {
  const changing = tools.filter((t) => t.sideEffect === 'STATEFUL' || t.sideEffect === 'CRITICAL').map((t) => t.name);
  return changing.length > 0 ? changing : tools.map((t) => t.name);
}

/** fc.commands over the inbox model; the first command is always an untimed follow-up. */
export function inboxCommandsArb(tools: readonly FuzzTool[], maxCommands = 8): fc.Arbitrary<Iterable<InboxCommand>> {
  const source = fc.constantFrom(...CANCEL_SOURCES);
  return fc.commands<InboxModel, InboxBuilder>(
    [
      // Conversations are mostly "the customer writes, waits, writes again": an untimed follow-up is the common command.
      fc.constant(undefined).map(() => new PostCommand('follow_up', undefined)),
      triggerArb(tools).map((at) => new PostCommand('follow_up', at)),
      triggerArb(tools).map((at) => new PostCommand('steer', at)),
      triggerArb(tools).map((at) => new PostCommand('inject', at)),
      fc
        .tuple(fc.constantFrom<MessageIntent>('follow_up', 'steer', 'inject'), fc.option(triggerArb(tools), { nil: undefined }))
        .map(([intent, at]) => new PostCommand(intent, intent === 'follow_up' ? at : (at ?? { request: 1 }), true)),
      fc.tuple(source, triggerArb(tools)).map(([by, at]) => new CancelCommand(by, at)),
      fc.tuple(fc.integer({ min: 1, max: 5 }), source).map(([request, by]) => new TakenThenCancelledCommand(request, by)),
      // A cancel as a tool that changes the world starts: the calls after it in the step (run one by one) must not start.
      fc.tuple(source, fc.constantFrom(...stopPoints(tools))).map(([by, toolStart]) => new CancelCommand(by, { toolStart })),
      // A cancel as such a call's start record is stored, before its body runs: the body must not start (outside probe
      // 65, P07: a pipeline that skipped its cancel check after the write-ahead ran it, and passed every fuzz case).
      fc.tuple(source, fc.constantFrom(...stopPoints(tools))).map(([by, toolRecorded]) => new CancelCommand(by, { toolRecorded })),
      fc.tuple(fc.integer({ min: 1, max: 8 }), fc.option(triggerArb(tools), { nil: undefined })).map(([pick, at]) => new DisconnectCommand(pick, at)),
      fc.tuple(fc.integer({ min: 1, max: 8 }), fc.option(triggerArb(tools), { nil: undefined })).map(([pick, at]) => new RetryCommand(pick, at)),
      fc
        .tuple(fc.integer({ min: 1, max: 8 }), fc.option(triggerArb(tools), { nil: undefined }), fc.boolean())
        .map(([pick, at, otherIntent]) => new ReuseIdCommand(pick, at, otherIntent)),
      // A cancel in the first seconds, while a call of the first step may wait for its (slow) approver: it is answered
      // CANCELLED, not DENIED — no one said no (denials-say-why).
      fc.tuple(source, fc.integer({ min: 1, max: 3_000 })).map(([by, time]) => new CancelCommand(by, { time })),
      fc.tuple(source, fc.integer({ min: 1, max: 3_000 })).map(([by, time]) => new CancelCommand(by, { time })), // twice as likely
      // The same for sure: a cancel as the first (or second) approval request is put to the approver, before it answers.
      fc.tuple(source, fc.integer({ min: 1, max: 2 })).map(([by, approval]) => new CancelCommand(by, { approval })),
      fc.tuple(source, fc.integer({ min: 1, max: 2 })).map(([by, approval]) => new CancelCommand(by, { approval })), // twice as likely
      // A steer as the first turn opens, before it takes its input: the turn may take the steer before its write is
      // stored (or refused: store.failReceipts).
      fc.integer({ min: 2, max: 4 }).map((event) => new PostCommand('steer', { event })),
      // A steer whose client goes away at once: as a tool that changes the world starts (everything before it
      // stored), or at any moment.
      fc.constantFrom(...stopPoints(tools)).map((toolStart) => new SteerThenGoneCommand({ toolStart })),
      fc.constantFrom(...stopPoints(tools)).map((toolStart) => new SteerThenGoneCommand({ toolStart })), // twice as likely
      fc
        .oneof(
          fc.integer({ min: 1, max: 6 }).map((request): Trigger => ({ request })),
          fc.integer({ min: 2, max: 40 }).map((event): Trigger => ({ event })),
          fc.integer({ min: 0, max: 6_000 }).map((time): Trigger => ({ time })),
        )
        .map((at) => new SteerThenGoneCommand(at)),
    ],
    { maxCommands },
  );
}

/** Runs the commands against the model and returns the inbox they built (an untimed follow-up first). */
export function buildInbox(commands: Iterable<InboxCommand>): InboxEntry[] {
  const real: InboxBuilder = { entries: [] };
  const model = new InboxModel();
  new PostCommand('follow_up', undefined).run(model, real);
  fc.modelRun(() => ({ model, real }), commands);
  return real.entries;
}
