/**
 * `results.json`: written pretty with a stable key order (so two runs diff
 * cleanly), read back validated (for merge-reports and --baseline).
 * The format is documented in docs/results-schema.md.
 */
import { INPUT_LIMITS, readInputFile, unreachable } from '../files/index.ts';
import { parseTaggedJson, ReportFileError } from './file-error.ts';
import { jsonSafe, sortKeysDeep } from './json-safe.ts';
import { READABLE_RESULTS_SCHEMAS, type RunResults } from './results.ts';
import { runResultsSchema } from './results-schema.ts';

// Known keys come out in this order; keys a newer writer added follow, sorted.
const ORDER = {
  run: ['schema', 'tool', 'startedAt', 'finishedAt', 'durationMs', 'seed', 'shard', 'summary', 'regressions', 'cases'],
  tool: ['name', 'version'],
  shard: ['index', 'total'],
  summary: ['total', 'passed', 'failed', 'skipped', 'byKind', 'cost'],
  suiteCost: ['currency', 'amount', 'unpricedCalls', 'unpricedModels', 'uncountedCalls', 'cases'],
  caseCost: ['currency', 'amount', 'unpricedCalls', 'unpricedModels', 'uncountedCalls', 'turns'],
  turnCost: ['turn', 'amount', 'unpricedCalls', 'uncountedCalls'],
  byKind: ['table', 'contract', 'scenario', 'fuzz'],
  kindSummary: ['total', 'passed', 'failed', 'skipped'],
  regression: ['id', 'kind', 'message'],
  case: [
    'id',
    'kind',
    'title',
    'file',
    'status',
    'outcome',
    'durationMs',
    'virtualMs',
    'failure',
    'skipReason',
    'tags',
    'repeats',
    'metrics',
    'checks',
    'timeline',
    'requests',
  ],
  repeats: ['runs', 'passed', 'threshold'],
  metrics: ['turns', 'steps', 'toolCalls', 'modelRequests', 'inputTokens', 'outputTokens', 'cost'],
  check: ['name', 'passed', 'message', 'judge', 'expected', 'actual'],
  judge: ['judge', 'rubric', 'pass', 'reason'],
  timeline: ['at', 'durationMs', 'kind', 'turn', 'step', 'label', 'detail', 'status', 'request', 'data'],
  request: ['turn', 'step', 'attempt', 'seq', 'lines'],
} as const;

type Shape = readonly string[];
type Nested = Record<string, (value: unknown) => unknown>;

function ordered(value: unknown, keys: Shape, nested: Nested = {}): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const extra = Object.keys(source)
    .filter((k) => !keys.includes(k))
    .sort();
  for (const key of [...keys, ...extra]) {
    if (!(key in source) || source[key] === undefined) continue;
    const convert = nested[key];
    out[key] = convert ? convert(source[key]) : sortKeysDeep(source[key]);
  }
  return out;
}

const each = (convert: (value: unknown) => unknown) => (value: unknown) => (Array.isArray(value) ? value.map(convert) : value);

const kindSummary = (v: unknown) => ordered(v, ORDER.kindSummary);
const orderCase = (v: unknown) =>
  ordered(v, ORDER.case, {
    repeats: (r) => ordered(r, ORDER.repeats),
    metrics: (m) => ordered(m, ORDER.metrics, { cost: (c) => ordered(c, ORDER.caseCost, { turns: each((t) => ordered(t, ORDER.turnCost)) }) }),
    checks: each((c) => ordered(c, ORDER.check, { judge: (j) => ordered(j, ORDER.judge) })),
    timeline: each((t) => ordered(t, ORDER.timeline)),
    requests: each((r) => ordered(r, ORDER.request)),
  });

/** The text of `results.json`: pretty, stable key order, plain JSON data only, ending in a newline. */
export function renderResultsJson(results: RunResults): string {
  const safe = jsonSafe(results);
  const tidy = ordered(safe, ORDER.run, {
    tool: (v) => ordered(v, ORDER.tool),
    shard: (v) => ordered(v, ORDER.shard),
    summary: (v) =>
      ordered(v, ORDER.summary, {
        byKind: (b) => ordered(b, ORDER.byKind, { table: kindSummary, contract: kindSummary, scenario: kindSummary, fuzz: kindSummary }),
        cost: (c) => ordered(c, ORDER.suiteCost),
      }),
    regressions: each((r) => ordered(r, ORDER.regression)),
    cases: each(orderCase),
  });
  return `${JSON.stringify(tidy, null, 2)}\n`;
}

/** Validates the text of a results file; `file` names it in errors. */
export function parseResultsJson(text: string, file: string): RunResults {
  return parseTaggedJson(text, file, READABLE_RESULTS_SCHEMAS, 'loopgate results file', runResultsSchema);
}

/** Reads and validates a results file; errors (`ReportFileError`) name the file and the field. */
export async function readResultsFile(path: string): Promise<RunResults> {
  const why = unreachable(path);
  if (why !== undefined) throw new ReportFileError(path, why === 'missing' ? 'no such file' : why);
  return parseResultsJson(readInputFile(path, { what: 'results file', maxBytes: INPUT_LIMITS.resultsBytes }), path);
}
