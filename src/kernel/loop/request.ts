/**
 * Invariant 1: every model request is recomputable from the log. Before a request
 * is sent the loop records a `model.request` event pointing at the system prompt
 * and tool specs it used (`prompt.assembled`, `tools.declared`, written only when
 * they change) and at the log prefix whose projection is its messages.
 * `recomputeRequest` rebuilds the request from the log alone; `replay --at` uses it.
 */
import type { Message, ToolSpec } from '../model/client.ts';
import type { AnyEvent, LogEvent } from '../log/envelope.ts';
import type { EventLog } from '../log/event-log.ts';
import { InputError } from '../input-error.ts';
import { appendToolsDeclared } from '../log/builders.ts';
import { project } from '../projection/projection.ts';
import type { PromptSource } from './types.ts';

export interface RecordedRequest {
  readonly model: string;
  readonly system: string;
  readonly tools: readonly ToolSpec[];
  readonly messages: readonly Message[];
  readonly maxTokens: number;
  readonly temperature?: number;
}

/**
 * Records the prompt and tools if they changed; returns their seqs, and the
 * fragments left out of the prompt because they failed (recorded with it).
 */
export function recordPromptAndTools(
  log: EventLog,
  prompt: PromptSource,
  tools: readonly ToolSpec[],
  lastTools: { specs: readonly ToolSpec[] | undefined },
): { prompt: number; tools: number; errors: readonly { readonly id: string; readonly message: string }[] } {
  const assembled = prompt.assemble();
  const errors = assembled.errors && assembled.errors.length > 0 ? assembled.errors.map((e) => ({ id: e.id, message: e.message })) : NO_ERRORS;
  let promptSeq = log.positions.lastPrompt;
  const previous = promptSeq === undefined ? undefined : (log.at(promptSeq) as Extract<LogEvent, { type: 'prompt.assembled' }>);
  if (!previous || previous.payload.system !== assembled.system || !sameErrors(previous.payload.errors, errors)) {
    promptSeq = log.append('prompt.assembled', {
      system: assembled.system,
      fragments: assembled.fragments.map((f) => ({ id: f.id, priority: f.priority })),
      ...(errors.length > 0 ? { errors: errors.slice() } : {}),
    }).seq;
  }
  let toolsSeq = log.positions.lastTools;
  if (toolsSeq === undefined || (lastTools.specs !== tools && !sameSpecs(log.at(toolsSeq) as Extract<LogEvent, { type: 'tools.declared' }>, tools))) {
    toolsSeq = appendToolsDeclared(log, tools).seq;
  }
  lastTools.specs = tools;
  return { prompt: promptSeq!, tools: toolsSeq, errors };
}

const NO_ERRORS: readonly { readonly id: string; readonly message: string }[] = Object.freeze([]);

function sameErrors(
  recorded: readonly { readonly id: string; readonly message: string }[] | undefined,
  errors: readonly { readonly id: string; readonly message: string }[],
): boolean {
  if ((recorded ?? NO_ERRORS).length === 0 && errors.length === 0) return true;
  return JSON.stringify(recorded ?? []) === JSON.stringify(errors);
}

function sameSpecs(event: Extract<LogEvent, { type: 'tools.declared' }>, tools: readonly ToolSpec[]): boolean {
  const recorded = event.payload.tools;
  if (recorded.length !== tools.length) return false;
  return recorded.every((r, i) => {
    const t = tools[i]!;
    return r.name === t.name && r.description === t.description && JSON.stringify(r.inputSchema) === JSON.stringify(t.inputSchema);
  });
}

/** The log does not hold what a recorded request points at: bad data given to `replay --at`, an `InputError`. */
export class RecomputeError extends InputError {
  constructor(message: string) {
    super(message);
    this.name = 'RecomputeError';
  }
}

/** Rebuilds, from the log alone, the request recorded at `requestSeq`. */
export function recomputeRequest(events: readonly AnyEvent[], requestSeq: number): RecordedRequest {
  const event = events[requestSeq];
  if (!event || event.type !== 'model.request' || event.opaque) {
    throw new RecomputeError(`seq ${requestSeq} is not a model.request event${event ? ` (it is ${event.type})` : ''}`);
  }
  const p = (event as Extract<LogEvent, { type: 'model.request' }>).payload;
  const promptEvent = events[p.prompt] as Extract<LogEvent, { type: 'prompt.assembled' }> | undefined;
  const toolsEvent = events[p.tools] as Extract<LogEvent, { type: 'tools.declared' }> | undefined;
  if (promptEvent?.type !== 'prompt.assembled') throw new RecomputeError(`request ${requestSeq}: seq ${p.prompt} is not a prompt.assembled event`);
  if (toolsEvent?.type !== 'tools.declared') throw new RecomputeError(`request ${requestSeq}: seq ${p.tools} is not a tools.declared event`);
  return {
    model: p.model,
    system: promptEvent.payload.system,
    tools: toolsEvent.payload.tools,
    messages: project(events.slice(0, p.upTo)),
    maxTokens: p.maxTokens,
    ...(p.temperature !== undefined ? { temperature: p.temperature } : {}),
  };
}

/** Seqs of every `model.request` in the log. */
export function requestSeqs(events: readonly AnyEvent[]): number[] {
  const out: number[] = [];
  for (const e of events) if (e.type === 'model.request') out.push(e.seq);
  return out;
}
