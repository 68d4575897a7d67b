/**
 * `loopgate replay <store-or-file> [--conversation ID] [--at SEQ] [--json]`: the
 * conversation's timeline, or the exact request the model received at a step,
 * recomputed from the log (invariant 1).
 */
import { recomputeRequest, type AnyEvent } from '../../kernel/index.ts';
import { openEvents } from '../event-source.ts';
import { EXIT } from '../exit-codes.ts';
import { UsageError } from '../usage-error.ts';
import { jsonForTerminal, printable } from '../../report/terminal-text.ts';
import { renderEvent, renderRequest } from '../render-events.ts';

export interface ReplayArgs {
  source: string;
  conversation?: string;
  at?: number;
  json?: boolean;
}

/** The request in force at `seq`: the model.request at or before it. */
export function requestAtOrBefore(events: readonly AnyEvent[], seq: number): number | undefined {
  for (let i = Math.min(seq, events.length - 1); i >= 0; i--) if (events[i]!.type === 'model.request') return i;
  return undefined;
}

export async function replay(args: ReplayArgs, out: (line: string) => void): Promise<number> {
  const { conversation, events } = await openEvents(args.source, args.conversation);
  if (args.at === undefined) {
    if (args.json) out(jsonForTerminal(events, 2));
    else {
      out(`conversation ${printable(conversation)}: ${events.length} events`);
      for (const event of events) if (event.type !== 'model.delta') out(renderEvent(event));
    }
    return EXIT.passed;
  }
  if (!Number.isInteger(args.at) || args.at < 0 || args.at >= events.length) {
    throw new UsageError(`--at ${args.at}: conversation ${conversation} has seqs 0..${events.length - 1}`);
  }
  const seq = requestAtOrBefore(events, args.at);
  if (seq === undefined) throw new UsageError(`--at ${args.at}: no model request at or before seq ${args.at}`);
  const request = recomputeRequest(events, seq);
  if (args.json) out(jsonForTerminal({ seq, request }, 2));
  else {
    out(`request #${seq} (${renderEvent(events[seq]!).trim()}), recomputed from the log:`);
    for (const line of renderRequest(request)) out(line);
  }
  return EXIT.passed;
}
