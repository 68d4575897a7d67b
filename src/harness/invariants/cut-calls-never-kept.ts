/**
 * A tool call the stream broke off inside its arguments was never sent whole:
 * it is never run, never sent back to the model and never kept in the history.
 * The scenario says where such a call is (a provider step's
 * `error.midStream: tool_args`, or `{ tool_args: NAME }` for a tool of the
 * agent's: the call `call_cut`, cut after the first piece of its arguments); a loop that keeps what it had streamed — a call with half
 * its arguments, or none — offers the model a call it never finished, and runs
 * it when the tool accepts what was left.
 *
 * A model may use the id again in a later, whole answer: a call with that id is
 * a violation only when no whole call of the script has it with those arguments.
 * Judged on loopgate's runs and on other loops' alike, from the requests the
 * model was sent, the history kept and the tool bodies run.
 */
import { project, type Message } from '../../kernel/index.ts';
import { finalHistory, isPeerRun } from '../loop-port/peer-run.ts';
import type { ProviderStep } from '../scenario/schema.ts';
import { BROKEN_STREAM, cutCallOf } from '../world/scripted-provider.ts';
import { defineInvariant, type AnyRun } from './invariant.ts';

const CUT = BROKEN_STREAM.call.id;

export const cutCallsNeverKept = defineInvariant({
  id: 'cut-calls-never-kept',
  title: 'a tool call the stream broke off inside its arguments is never run, sent back or kept',
  check: (run) => cutCallsKept(run),
  checkObservable: (run) => cutCallsKept(run),
});

function cutCallsKept(run: AnyRun): string | undefined {
  const provider = run.scenario.provider;
  const steps: readonly ProviderStep[] = [...provider.script, ...(provider.fallback ?? [])];
  if (!steps.some((step) => cutCallOf(step.error?.midStream))) return undefined;
  const whole = wholeArguments(steps);
  const kept = (messages: readonly Message[]): string | undefined => {
    for (const message of messages) {
      if (message.role !== 'assistant') continue;
      for (const block of message.content) {
        if (block.type !== 'tool_call' || block.id !== CUT) continue;
        if (whole === 'any' || whole.has(JSON.stringify(block.args))) continue;
        return `${block.name}#${block.id} ${JSON.stringify(block.args)}`;
      }
    }
    return undefined;
  };
  for (let i = 0; i < run.requests.length; i++) {
    const call = kept(run.requests[i]!.messages);
    if (call) return `request ${i + 1} sends the model back the call the stream cut inside its arguments: ${call}`;
  }
  const history = isPeerRun(run) ? finalHistory(run) : project(run.log.events);
  const call = kept(history);
  if (call) return `the history keeps the call the stream cut inside its arguments: ${call}`;
  const runs = run.executionsByCall.get(CUT) ?? 0;
  if (runs > 0 && whole !== 'any' && whole.size === 0) return `the call the stream cut inside its arguments (${CUT}) ran ${runs} time(s)`;
  return undefined;
}

/** The arguments (as JSON) of the script's whole calls that use the cut call's id; `any` when one was sent as text that is not JSON. */
function wholeArguments(steps: readonly ProviderStep[]): ReadonlySet<string> | 'any' {
  const out = new Set<string>();
  for (const step of steps) {
    for (const call of step.tool_use ?? []) {
      if (call.id !== CUT) continue;
      if (typeof call.args !== 'string') {
        out.add(JSON.stringify(call.args ?? {}));
        continue;
      }
      try {
        out.add(JSON.stringify(JSON.parse(call.args)));
      } catch {
        return 'any';
      }
    }
  }
  return out;
}
