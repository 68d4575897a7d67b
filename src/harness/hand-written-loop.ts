/**
 * A hand-written loop, as a team writes one behind the port ("call the model, run the tools, repeat", README "A loop
 * of your own"): the loop the default gate's own checks run behind the port, so the port, the peer runner and every
 * invariant's outside view are exercised by `loopgate run` without any framework installed (outside probes 44, 45:
 * plants on that path were caught only with `ai` installed and `--loop ai-sdk`), and the loop `loopgate fuzz` is
 * checked against behind the port (fuzz/contract-cases.ts): it holds every invariant judged from outside.
 *
 * A turn: the message (with any notice still owed) joins the history; then steps — ask the model, run the calls it
 * asks for, keep the step — until it replies, fails or is cancelled. It asks the case's approver, where there is
 * one, before any tool that changes something; it reads a cancel by `cancelOf(signal)` after each model call and
 * before each tool, and stops waiting for a tool the cancel cuts short; a call id the conversation used before is
 * never run again. A cancelled turn keeps its message and the steps that completed; a failed one keeps nothing and
 * owes the next turn a notice of each world-changing call it ran.
 */
import {
  createRedactor,
  redactDeep,
  wellFormedData,
  type AssistantBlock,
  type Message,
  type Outcome,
  type ToolCall,
  type ToolResultBlock,
  type Usage,
} from '../kernel/index.ts';
import { cancelOf } from './loop-port/peer-cancel.ts';
import type { LoopUnderTestFactory, PeerTool, PeerWorld } from './loop-port/peer-world.ts';
import type { PeerEnding, TurnReport } from './loop-port/port.ts';

export interface HandWrittenOptions {
  /** It hands the model its own message list, and goes on adding to it (outside probe 45, F2). */
  readonly shares?: boolean;
  /** It keeps the case's secrets (`world.secrets`) out of all it keeps, as the README asks a team's loop to: redacted as they come in. */
  readonly redacts?: boolean;
  /** A bug the gate plants: a cancel aborts the tools' signal, but the loop still waits for each running body to end. */
  readonly waitsForTools?: boolean;
  /**
   * It retries a step a transient error (a rate limit, an overload, a server error, a drop) ended, up to
   * `world.retries` times, waiting the retry-after the provider gave (else a second) — or, a bug the gate plants,
   * always a second, whatever the provider asked.
   */
  readonly retries?: 'honours-retry-after' | 'ignores-retry-after';
  /** A bug the gate plants: it calls each tool with no abort signal (a cancel stops its wait; the body runs on). */
  readonly givesToolsNoSignal?: boolean;
  /**
   * A bug the gate plants: each tool gets a signal of its own, aborted by the loop's own tool timeout this many ms
   * after the body starts — not by the turn's cancel (a cancel stops its wait; the body runs on until then).
   */
  readonly toolSignalOnlyTimesOutAfterMs?: number;
  /** A bug the gate plants: a cancelled turn is reported failed{internal}. */
  readonly reportsCancelAsFailed?: boolean;
  /** A bug the gate plants: a turn its step limit stopped is reported replied, with no reply. */
  readonly reportsMaxStepsAsReplied?: boolean;
}

const TRANSIENT = new Set(['rate_limited', 'overloaded', 'server_error', 'network', 'timeout']);

export function handWritten(options: HandWrittenOptions = {}): LoopUnderTestFactory {
  return {
    id: 'hand-written',
    version: 'hand-written 1.0.0',
    capabilities: { supports: ['approver'], history: 'session', time: 'patched-timers' },
    create: (world) => {
      const conversation = new Conversation(world, options);
      return {
        runTurn: (turn) => conversation.runTurn(turn.turn, turn.text, turn.signal),
        persistedHistory: () => [...conversation.history],
        waiting: () => conversation.waiting(),
        traces: () => [],
      };
    },
  };
}

const USAGE: Usage = { inputTokens: 1, outputTokens: 1 };

/** How a turn's steps ended. */
type Ending = { readonly outcome: Outcome; readonly steps: number; readonly reply?: string; readonly ending?: PeerEnding };

class Conversation {
  readonly history: Message[] = [];
  /** Lines naming world-changing calls of failed turns, owed to the model until a turn that carried them is kept. */
  #owed: string[] = [];
  /** Every call id the conversation has used: one used again is never run again. */
  readonly #usedIds = new Set<string>();
  readonly #world: PeerWorld;
  readonly #options: HandWrittenOptions;
  readonly #redact: <T>(value: T) => T;

  constructor(world: PeerWorld, options: HandWrittenOptions) {
    this.#world = world;
    this.#options = options;
    const redactor = options.redacts ? createRedactor({ secrets: world.secrets }) : undefined;
    this.#redact = <T>(value: T): T => (redactor ? (redactDeep(value, redactor) as T) : value);
  }

  /** The notice the next turn owes the model, as the message it will open with. */
  waiting(): Message[] {
    return this.#owed.length > 0 ? [{ role: 'user', content: [noticeOf(this.#owed)] }] : [];
  }

  async runTurn(turn: number, text: string, signal: AbortSignal): Promise<TurnReport> {
    // A message that says nothing is not kept, and nothing is asked of the model: a provider refuses a blank text.
    if (text.trim() === '') return { turn, outcome: { kind: 'nothing_to_do' }, ending: { kind: 'resolved' }, steps: 0, usage: USAGE };
    const start = this.history.length;
    const owed = this.#owed;
    const notice = owed.length > 0 ? [noticeOf(owed)] : [];
    this.history.push({ role: 'user', content: [...notice, { type: 'text', text: this.#redact(text) }] });
    const ran: string[] = [];
    const ended = this.#planted(await this.#steps(signal, ran));
    if (ended.outcome.kind !== 'replied' && ended.outcome.kind !== 'cancelled') {
      // A failed turn (or a full conversation) keeps nothing: its message and steps go, and what it changed is owed to the next turn.
      this.history.length = start;
      this.#owed = [...owed, ...ran];
    } else this.#owed = [];
    return {
      turn,
      outcome: ended.outcome,
      ending: ended.ending ?? { kind: 'resolved' },
      ...(ended.reply !== undefined ? { reply: ended.reply } : {}),
      steps: ended.steps,
      usage: USAGE,
    };
  }

  /** The ending as a planted bug reports it. */
  #planted(ended: Ending): Ending {
    if (this.#options.reportsCancelAsFailed && ended.outcome.kind === 'cancelled')
      return { ...ended, outcome: { kind: 'failed', reason: 'internal', detail: 'stopped' } };
    if (this.#options.reportsMaxStepsAsReplied && ended.outcome.kind === 'failed' && ended.outcome.reason === 'max_steps')
      return { ...ended, outcome: { kind: 'replied' } };
    return ended;
  }

  async #steps(signal: AbortSignal, ran: string[]): Promise<Ending> {
    const world = this.#world;
    let retried = 0;
    for (let step = 1; step <= world.maxSteps; step++) {
      // Kept well-formed, as a sound loop keeps a model's text (half a surrogate pair would ride in every later request).
      const answer = await world.model
        .call({
          model: 'm',
          system: world.system,
          messages: this.#options.shares ? this.history : [...this.history],
          tools: [],
          maxTokens: world.maxTokens,
          signal,
        })
        .then(wellFormedData, (error: unknown) => error as Error);
      const cancel = cancelOf(signal);
      if (cancel) return { outcome: { kind: 'cancelled', by: cancel.by }, steps: step };
      if (answer instanceof Error) return { outcome: { kind: 'failed', reason: 'internal', detail: answer.message }, steps: step };
      switch (answer.type) {
        case 'reply':
          // A reply that says nothing is not kept: a provider refuses a blank text block in the next request.
          if (answer.text.trim() !== '') this.history.push({ role: 'assistant', content: [{ type: 'text', text: this.#redact(answer.text) }] });
          return { outcome: { kind: 'replied' }, steps: step, reply: this.#redact(answer.text), ending: { kind: 'resolved', finishReason: 'stop' } };
        case 'tool_use': {
          // The last step the limit allows: no call runs whose result the model could never see.
          if (step === world.maxSteps) return { outcome: { kind: 'failed', reason: 'max_steps' }, steps: step };
          const stopped = await this.#toolStep(answer.content, answer.calls, signal, ran);
          if (stopped) return { outcome: { kind: 'cancelled', by: stopped }, steps: step };
          break;
        }
        case 'transport_error':
          if (this.#options.retries && TRANSIENT.has(answer.kind) && retried < world.retries) {
            retried++;
            const waitMs = this.#options.retries === 'honours-retry-after' ? (answer.retryAfterMs ?? 1000) : 1000;
            await world.clock.sleep(waitMs, signal);
            const stopped = cancelOf(signal);
            if (stopped) return { outcome: { kind: 'cancelled', by: stopped.by }, steps: step };
            step--; // the same step again
            break;
          }
          return { outcome: { kind: 'failed', reason: transportReason(answer.kind) }, steps: step };
        case 'refusal':
          return { outcome: { kind: 'failed', reason: 'refusal' }, steps: step };
        case 'max_tokens':
          return { outcome: { kind: 'failed', reason: 'max_tokens' }, steps: step };
        case 'context_window_exceeded':
          return { outcome: { kind: 'conversation_full' }, steps: step };
        case 'unknown':
          return { outcome: { kind: 'failed', reason: 'unknown_stop_reason' }, steps: step };
      }
    }
    return { outcome: { kind: 'failed', reason: 'max_steps' }, steps: world.maxSteps };
  }

  /** Runs a step's calls and keeps the step (the calls with their results); the cancel that stopped it, if one did. */
  async #toolStep(content: readonly AssistantBlock[], calls: readonly ToolCall[], signal: AbortSignal, ran: string[]) {
    // A call id the conversation used before is answered under a fresh one, never run again: a provider refuses a
    // request that repeats an id, and a repeated world-changing call must not run twice.
    const ids = new Map<ToolCall, string>();
    for (const call of calls) {
      const id = this.#usedIds.has(call.id) ? freshId(call.id, this.#usedIds) : call.id;
      ids.set(call, id);
      this.#usedIds.add(id);
    }
    const results: ToolResultBlock[] = [];
    let stopped: ReturnType<typeof cancelOf>;
    for (const call of calls) {
      const callId = ids.get(call)!;
      const answer = (status: ToolResultBlock['status'], text: string) => results.push({ type: 'tool_result', callId, status, content: text });
      stopped ??= cancelOf(signal);
      if (stopped) {
        answer('failed', 'not run: the turn was cancelled');
        continue;
      }
      if (callId !== call.id) {
        answer('failed', `not run: call id ${call.id} was used before in this conversation (a repeat is never run again)`);
        continue;
      }
      const tool = this.#world.tools.find((t) => t.name === call.name);
      if (!tool) {
        answer('failed', `no tool named ${call.name}`);
        continue;
      }
      if (!(await this.#approved(tool, call, signal))) {
        answer('failed', 'denied by the approver');
        continue;
      }
      // The cancel may have come while the approver was asked.
      stopped = cancelOf(signal);
      if (stopped) {
        answer('failed', 'not run: the turn was cancelled');
        continue;
      }
      if (tool.sideEffect === 'STATEFUL' || tool.sideEffect === 'CRITICAL') ran.push(this.#redact(`${call.name} (call ${callId})`));
      const late = this.#options.toolSignalOnlyTimesOutAfterMs;
      const given = this.#options.givesToolsNoSignal ? undefined : late !== undefined ? timedOutAfter(this.#world, late) : signal;
      const settled = await runCut(tool, call, signal, this.#options.waitsForTools === true, given);
      if (settled.kind === 'cut') {
        stopped = cancelOf(signal);
        answer('unknown', 'may have run: the turn was cancelled while it ran');
      } else if (settled.kind === 'ok') answer('ok', JSON.stringify(settled.output) ?? '(no output)');
      else answer('failed', `the tool failed: ${settled.message}`);
    }
    // The k-th call block is the k-th call: it keeps the id it was answered under.
    let k = 0;
    const assistant = content
      .map((b) => (b.type === 'tool_call' ? { ...b, id: ids.get(calls[k++]!) ?? b.id } : b))
      .filter((b) => b.type !== 'text' || b.text.trim() !== ''); // the "\n\n" before a call says nothing
    this.history.push({ role: 'assistant', content: this.#redact(assistant) }, { role: 'user', content: this.#redact(results) });
    return stopped?.by ?? cancelOf(signal)?.by;
  }

  async #approved(tool: PeerTool, call: ToolCall, signal: AbortSignal): Promise<boolean> {
    const approver = this.#world.approver;
    if (!approver || tool.sideEffect === 'NONE') return true;
    const request = { callId: call.id, tool: call.name, args: call.args, sideEffect: tool.sideEffect, reason: 'it changes something' };
    return (await approver.approve(request, signal).catch(() => 'deny')) === 'approve';
  }
}

/** The tool's body, waited for until it settles or the turn's cancel cuts it short (a body may ignore its signal). */
async function runCut(
  tool: PeerTool,
  call: ToolCall,
  signal: AbortSignal,
  waits: boolean,
  given: AbortSignal | undefined,
): Promise<{ kind: 'ok'; output: unknown } | { kind: 'failed'; message: string } | { kind: 'cut' }> {
  let release = () => {};
  const cut = new Promise<{ kind: 'cut' }>((resolve) => {
    const onAbort = () => resolve({ kind: 'cut' });
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    release = () => signal.removeEventListener('abort', onAbort);
  });
  const body = tool.run(call.args, given ? { callId: call.id, signal: given } : { callId: call.id }).then(
    (output) => ({ kind: 'ok' as const, output }),
    (error: unknown) => ({ kind: 'failed' as const, message: error instanceof Error ? error.message : String(error) }),
  );
  try {
    return await (waits ? body : Promise.race([body, cut]));
  } finally {
    release();
  }
}

/** A signal the loop's own tool timeout aborts `ms` after it is made (on the case's clock), and nothing else. */
function timedOutAfter(world: PeerWorld, ms: number): AbortSignal {
  const controller = new AbortController();
  void world.clock.sleep(ms).then(() => controller.abort(new Error(`the tool took longer than ${ms} ms`)));
  return controller.signal;
}

/** The notice of world-changing calls a failed turn ran, each named `tool (call id)`. */
function noticeOf(owed: readonly string[]): { readonly type: 'text'; readonly text: string } {
  return { type: 'text', text: `Before this message, these calls ran and may have changed something: ${owed.join('; ')}.` };
}

function freshId(id: string, used: ReadonlySet<string>): string {
  let n = 2;
  while (used.has(`${id}~${n}`)) n++;
  return `${id}~${n}`;
}

function transportReason(kind: string): 'rate_limited' | 'auth' | 'invalid_request' | 'provider_unavailable' {
  return kind === 'rate_limited' || kind === 'auth' || kind === 'invalid_request' ? kind : 'provider_unavailable';
}
