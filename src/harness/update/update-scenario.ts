/**
 * `loopgate run --update`: a scenario's recorded expectations rewritten from
 * what its run actually did — as `vitest -u` accepts new snapshots. Rewritten,
 * where the file has them: `outcome`, `outcomes`, and the `exact` lines and
 * `count` of `history`, `lastRequest`, `system` and `trace`; in `turns.N`, its
 * `outcome`, `requests`, and the `exact` lines and `count` of its `trace`,
 * `lastRequest` and `system`. Only for a case whose
 * invariants all hold (a run that broke one is not a behaviour to accept).
 *
 * The file keeps its comments and formatting (yaml-edit.ts edits the nodes in
 * place), is read back and checked to say exactly what was meant and nothing
 * else changed, and is written whole or not at all.
 */
import { isDeepStrictEqual } from 'node:util';
import { project } from '../../kernel/index.ts';
import { writeFileAtomic, readInputFile } from '../../files/index.ts';
import { YAML_LIMITS } from '../../yaml/limits.ts';
import type { CheckResult } from '../../report/results.ts';
import { renderMessages, spanShape } from '../render.ts';
import { systemLines, turnActuals, turnOutcomes } from '../checks/expectations.ts';
import { parseScenario, type LoadedScenario } from '../scenario/load.ts';
import type { Scenario } from '../scenario/schema.ts';
import type { ScenarioRun } from '../second-host.ts';
import { editYaml, type YamlEdit } from './yaml-edit.ts';

export type UpdateResult =
  | {
      readonly kind: 'updated';
      readonly file: string;
      readonly changes: readonly string[];
      readonly scenario: Scenario;
      readonly stillFailing?: readonly string[];
    }
  /** `stillFailing`: the expectations that fail on keys --update does not rewrite (names of the checks), set by updateCase. */
  | { readonly kind: 'unchanged'; readonly file: string; readonly stillFailing?: readonly string[] }
  | { readonly kind: 'refused'; readonly file: string; readonly reason: string };

const LINE_KEYS = ['history', 'lastRequest', 'system', 'trace'] as const;

/** The file as it is, byte-order mark included, so the rewrite keeps it (as it keeps CRLF line ends). */
const SCENARIO_TEXT = { what: 'scenario file', maxBytes: YAML_LIMITS.bytes, keepBom: true } as const;

/** What the run did, for each key `--update` rewrites. */
function actuals(run: ScenarioRun) {
  // As the check reads them (turns closed by recovery after a crash count too), so the updated file passes.
  const outcomes = turnOutcomes(run);
  const request = run.requests[run.requests.length - 1];
  const trace = run.traces[run.traces.length - 1];
  return {
    outcomes,
    lines: {
      history: renderMessages(project(run.log.events)),
      lastRequest: request ? renderMessages(request.messages) : [],
      system: systemLines(request),
      trace: trace ? spanShape(trace) : [],
    },
  };
}

/** The edits that make the scenario's expectations say what the run did (only keys the file has, only where they differ). */
export function updateEdits(scenario: Scenario, run: ScenarioRun): { edits: YamlEdit[]; changes: string[] } {
  const edits: YamlEdit[] = [];
  const changes: string[] = [];
  const e = scenario.expect;
  const actual = actuals(run);
  const last = actual.outcomes[actual.outcomes.length - 1];
  if (e.outcome !== undefined && last !== undefined && e.outcome !== last) {
    edits.push({ path: ['expect', 'outcome'], value: last });
    changes.push(`expect.outcome: ${e.outcome} → ${last}`);
  }
  if (e.outcomes !== undefined && !isDeepStrictEqual(e.outcomes, actual.outcomes)) {
    edits.push({ path: ['expect', 'outcomes'], value: actual.outcomes });
    changes.push(`expect.outcomes: [${e.outcomes.join(', ')}] → [${actual.outcomes.join(', ')}]`);
  }
  for (const key of LINE_KEYS) linesEdits(['expect', key], e[key], actual.lines[key], edits, changes);
  for (const [turn, want] of Object.entries(e.turns ?? {})) {
    const did = turnActuals(run, Number(turn));
    if (did === undefined) continue; // a turn that never ran has nothing to accept: its check says so
    const at = ['expect', 'turns', turn];
    if (want.outcome !== undefined && want.outcome !== did.outcomeLabel) {
      edits.push({ path: [...at, 'outcome'], value: did.outcomeLabel });
      changes.push(`expect.turns.${turn}.outcome: ${want.outcome} → ${did.outcomeLabel}`);
    }
    if (want.requests !== undefined && want.requests !== did.requests) {
      edits.push({ path: [...at, 'requests'], value: did.requests });
      changes.push(`expect.turns.${turn}.requests: ${want.requests} → ${did.requests}`);
    }
    // A turn crash recovery closed has no trace: its check says so, and there are no lines to accept.
    if (did.trace !== undefined) linesEdits([...at, 'trace'], want.trace, did.trace, edits, changes);
    linesEdits([...at, 'lastRequest'], want.lastRequest, did.lastRequest, edits, changes);
    linesEdits([...at, 'system'], want.system, did.system, edits, changes);
  }
  return { edits, changes };
}

/** The `exact` and `count` of one lines matcher the file has, where they differ from the lines the run gave. */
function linesEdits(
  at: readonly string[],
  matcher: { readonly exact?: readonly string[]; readonly count?: number } | undefined,
  lines: readonly string[],
  edits: YamlEdit[],
  changes: string[],
): void {
  const name = at.join('.');
  if (matcher?.exact !== undefined && !isDeepStrictEqual(matcher.exact, lines)) {
    edits.push({ path: [...at, 'exact'], value: lines });
    changes.push(`${name}.exact: ${describeChange(matcher.exact, lines)}`);
  }
  if (matcher?.count !== undefined && matcher.count !== lines.length) {
    edits.push({ path: [...at, 'count'], value: lines.length });
    changes.push(`${name}.count: ${matcher.count} → ${lines.length}`);
  }
}

function describeChange(before: readonly string[], after: readonly string[]): string {
  const first = after.findIndex((line, i) => line !== before[i]);
  const at = first === -1 ? after.length : first;
  return `${before.length} → ${after.length} lines, from line ${at + 1}`;
}

/**
 * Rewrites the scenario file of a case, when its invariants all hold and its
 * recorded expectations differ from the run. Never throws for a file it cannot
 * update: it says why.
 */
export function updateScenarioFile(loaded: LoadedScenario, run: ScenarioRun, invariantChecks: readonly CheckResult[]): UpdateResult {
  const file = loaded.file;
  const broken = invariantChecks.filter((c) => !c.passed);
  if (broken.length > 0) return { kind: 'refused', file, reason: `not updated: ${broken.map((c) => c.name).join(', ')} failed` };
  if (run.thrown !== undefined) return { kind: 'refused', file, reason: 'not updated: the run threw' };
  const { edits, changes } = updateEdits(loaded.scenario, run);
  if (edits.length === 0) return { kind: 'unchanged', file };
  let text: string;
  let next: string;
  let scenario: Scenario;
  try {
    text = readInputFile(file, SCENARIO_TEXT);
    next = editYaml(text, edits);
    scenario = parseScenario(next, file);
  } catch (error) {
    return { kind: 'refused', file, reason: `not updated: ${(error as Error).message.split('\n')[0]}` };
  }
  // The file must say what was meant, and nothing else may have changed.
  const meant = structuredClone(loaded.scenario) as { expect: Record<string, unknown> };
  for (const edit of edits) setIn(meant as unknown as Record<string, unknown>, edit.path, edit.value);
  if (!isDeepStrictEqual(meant, scenario))
    return { kind: 'refused', file, reason: 'not updated: the edited file would not read back as meant (left as it was)' };
  if (text !== readInputFile(file, SCENARIO_TEXT)) return { kind: 'refused', file, reason: 'not updated: the file changed while the case ran' };
  writeFileAtomic(file, next, 'scenario file');
  return { kind: 'updated', file, changes, scenario };
}

function setIn(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[path[path.length - 1]!] = Array.isArray(value) ? [...value] : value;
}
