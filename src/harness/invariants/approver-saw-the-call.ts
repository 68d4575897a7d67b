/**
 * The approver is shown the call it decides: the call id, the tool, its
 * side-effect level and its arguments as the log records them (validated and
 * redacted — what runs, and what an auditor reads back). The run keeps what the
 * approver was shown (world/recorded-approver.ts); each request is held to the
 * call in the log: to its `tool.started` record when it ran (the arguments the
 * tool was given, as logged), else to the model's call in `assistant.message`:
 * every argument the model gave that the tool's schema declares (validation drops
 * the others), with its value, and nothing the schema does not declare; and the
 * arguments shown are valid against that schema (a default filled in is fine).
 *
 * `approver-answers-followed` holds the log's decisions to the answers; it cannot
 * see a pipeline that asks with empty or other arguments — a human approving a
 * refund of nothing, or of someone else's order, while the real one runs
 * (outside probe 7, plant P12: "blind approval").
 *
 * A request about a call no stored record holds fails here too: the call must be
 * stored before anyone is asked (`approver-asked-only-about-stored-calls`; probe
 * 7, F6).
 */
import type { LogEvent } from '../../kernel/index.ts';
import type { ScenarioRun } from '../second-host.ts';
import type { ApprovalAnswer } from '../world/recorded-approver.ts';
import { defineInvariant, loopgateOnly } from './invariant.ts';
import { referenceRead } from './arguments-read-as-sent.ts';
import { validatorOf } from './arguments-validated.ts';
import { sameData } from './support/same-data.ts';

export const approverSawTheCall = defineInvariant({
  id: 'approver-saw-the-call',
  title: "the approver is shown the call's id, tool, side-effect level and arguments as the log records them",
  appliesTo: loopgateOnly("a peer's approval hook is its own: what it was shown is not recorded"),
  check: (run) => sawTheCall(run),
});

type Decision = Extract<LogEvent, { type: 'policy.decision' }>;
type Started = Extract<LogEvent, { type: 'tool.started' }>;
type Message = Extract<LogEvent, { type: 'assistant.message' }>;

function sawTheCall(run: ScenarioRun): string | undefined {
  const events = run.log.events.filter((e) => !e.opaque) as LogEvent[];
  const used = new Set<number>(); // seqs of approver decisions already matched to an answer
  for (const approval of run.approvals) {
    const problem = checkOne(approval, events, used);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function checkOne(approval: ApprovalAnswer, events: readonly LogEvent[], used: Set<number>): string | undefined {
  const { shown } = approval;
  const where = `the approver's request for call ${approval.callId} (${approval.tool})`;
  if (shown.callId !== approval.callId || shown.tool !== approval.tool) return `${where} named call ${shown.callId} (${shown.tool})`;
  // The decision this answer made (the first by the approver for the call not yet matched), and the call it decided.
  const decision = events.find(
    (e): e is Decision => e.type === 'policy.decision' && e.payload.by === 'approver' && e.payload.callId === shown.callId && !used.has(e.seq),
  );
  if (decision) used.add(decision.seq);
  const before = decision?.seq ?? Number.POSITIVE_INFINITY;
  let modelArgs: { args: unknown; seq: number } | undefined;
  let schema: unknown;
  for (const e of events) {
    if (e.seq >= before) break;
    if (e.type === 'tools.declared')
      schema = (e as Extract<LogEvent, { type: 'tools.declared' }>).payload.tools.find((t) => t.name === shown.tool)?.inputSchema;
    if (e.type !== 'assistant.message') continue;
    for (const block of (e as Message).payload.content) {
      if (block.type === 'tool_call' && block.id === shown.callId && block.name === shown.tool) modelArgs = { args: block.args, seq: e.seq };
    }
  }
  const started =
    decision &&
    events.find((e): e is Started => e.type === 'tool.started' && e.seq > decision.seq && e.payload.callId === shown.callId && e.payload.name === shown.tool);
  if (started) {
    if (started.payload.sideEffect !== shown.sideEffect)
      return `${where} said side effect ${shown.sideEffect}, but the call ran as ${started.payload.sideEffect} (seq ${started.seq})`;
    if (!sameData(shown.args, started.payload.args))
      return `${where} showed arguments ${brief(shown.args)}, but the call ran with ${brief(started.payload.args)} (tool.started seq ${started.seq})`;
    return undefined;
  }
  if (modelArgs === undefined) return `${where}: the log holds no call ${shown.callId} of ${shown.tool} from the model before the decision`;
  const model = asData(modelArgs.args);
  const mismatch = `${where} showed arguments ${brief(shown.args)}, but the model called it with ${brief(modelArgs.args)} (assistant.message seq ${modelArgs.seq})`;
  const properties = declaredProperties(schema);
  if (!isRecord(shown.args) || !isRecord(model) || properties === undefined) return sameData(shown.args, model) ? undefined : mismatch;
  for (const key of Object.keys(model)) if (properties.has(key) && !sameData(shown.args[key], model[key])) return `${mismatch}: ${key} differs`;
  for (const key of Object.keys(shown.args)) if (!properties.has(key)) return `${mismatch}: ${key} is no argument of the tool`;
  const validate = validatorOf(schema);
  if (validate && !validate(shown.args)) return `${mismatch}: what it showed is not valid for the tool (${validate.errors?.[0]?.message ?? 'invalid'})`;
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The property names an object schema declares, or undefined when it does not list them. */
function declaredProperties(schema: unknown): Set<string> | undefined {
  const properties = isRecord(schema) ? schema['properties'] : undefined;
  return isRecord(properties) ? new Set(Object.keys(properties)) : undefined;
}

/** The model's arguments as data: text read by `arguments-read-as-sent`'s reference reading (kept as text if it cannot). */
function asData(args: unknown): unknown {
  return typeof args === 'string' ? (referenceRead(args) ?? args) : args;
}

function brief(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
