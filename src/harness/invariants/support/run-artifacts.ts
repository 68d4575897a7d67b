/**
 * Everything a run stores, exports, writes or returns, as named texts — what
 * invariant 15 searches for secrets: the log (also each model call's streamed
 * deltas joined back into the text the model sent), the store, the traces, the
 * requests that left for the provider, the turn results, the host's response
 * envelopes (rebuilt from the results, and as the production host answered),
 * and the case's report in every format.
 *
 * Each text is made once per run, when first asked, and shared by the
 * invariants that search them (invariant 15, credential shapes): a run is not
 * changed once it is judged.
 */
import { type LogEvent } from '../../../kernel/index.ts';
import { summarizeTurn } from '../../../host/envelope.ts';
import { REPORT_FORMATS, sampleRun } from '../../../report/own-text.ts';
import type { CaseResult, RunResults } from '../../../report/results.ts';
import type { ScenarioRun } from '../../second-host.ts';
import { buildTimeline } from '../../timeline.ts';
import { viewOf } from './log-view.ts';

/** One artifact: where it is, and its text (computed when asked). */
export type Artifact = readonly [where: string, text: () => string];

const made = new WeakMap<ScenarioRun, Artifact[]>();

export function runArtifacts(run: ScenarioRun): Artifact[] {
  let artifacts = made.get(run);
  if (!artifacts) {
    artifacts = artifactsOf(run).map(([where, text]) => [where, once(text)] as const);
    made.set(run, artifacts);
  }
  return artifacts;
}

function once(text: () => string): () => string {
  let value: string | undefined;
  return () => (value ??= text());
}

function artifactsOf(run: ScenarioRun): Artifact[] {
  return [
    ['the log', () => JSON.stringify(run.log.events)],
    ['the streamed deltas of a model call, joined', () => joinedDeltas(viewOf(run).known).join('\n')],
    ['the store', () => JSON.stringify(run.store.peek(run.conversation))],
    ['the traces', () => JSON.stringify(run.traces)],
    ['the requests sent to the provider', () => JSON.stringify(run.requests)],
    ['the turn results', () => JSON.stringify(run.results.map(({ trace: _trace, ...rest }) => rest))],
    ['the host response envelopes', () => JSON.stringify(run.results.map((r) => summarizeTurn(r)))],
    // Through the production host: what AgentHost.handle answered, as the client got it.
    ["the production host's answers", () => JSON.stringify(run.posts?.map((p) => p.envelope) ?? [])],
    ...reportArtifacts(run),
  ];
}

/** The text each model call streamed, per stream (its text, each tool call's arguments), joined. */
export function joinedDeltas(events: readonly LogEvent[]): string[] {
  const streams = new Map<string, string>();
  for (const e of events) {
    if (e.type !== 'model.delta') continue;
    const { turn, step, attempt, delta } = e.payload;
    const d = delta as { kind?: string; text?: string; json?: string; index?: number; id?: string; name?: string };
    const piece = d.kind === 'text' ? d.text : d.kind === 'tool_args' ? d.json : d.kind === 'tool_call_start' ? `${d.id ?? ''} ${d.name ?? ''}` : undefined;
    if (typeof piece !== 'string') continue;
    const key = `${turn}/${step}/${attempt}/${d.kind === 'text' ? 'text' : `call ${d.index}`}`;
    streams.set(key, (streams.get(key) ?? '') + piece);
  }
  return [...streams.values()];
}

/** The case's report (its timeline, outcome and metrics) in every format the CLI writes. */
function reportArtifacts(run: ScenarioRun): Artifact[] {
  let results: RunResults | undefined;
  const once = (): RunResults => {
    if (results) return results;
    const last = run.results[run.results.length - 1];
    const failed = last?.outcome.kind === 'failed' ? last.outcome.detail : undefined;
    const one: CaseResult = {
      id: 'scenario:artifacts',
      kind: 'scenario',
      // Not the scenario's name: that is the user's text, which the reports written redact with the case's secrets
      // (a name holding one failed the case here, blaming the loop: outside probe 38, F3). What the run produced is judged.
      title: 'the case',
      status: failed === undefined ? 'passed' : 'failed',
      ...(failed !== undefined ? { failure: failed } : {}),
      durationMs: 0,
      virtualMs: run.virtualMs,
      checks: [],
      timeline: buildTimeline(run),
    };
    results = sampleRun([one]);
    return results;
  };
  return REPORT_FORMATS.map(([name, render]): Artifact => [name, () => render(once())]);
}
