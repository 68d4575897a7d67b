/**
 * Merges the results of shards (`--shard i/n`) into the results of one run:
 * cases concatenated and sorted by id, summary recomputed, shard info and
 * per-shard regressions dropped (compare the merged run with the baseline
 * instead: a shard cannot tell a case that is missing from one that ran in
 * another shard). Refuses what would make the merged verdict wrong: the same
 * case in two files, shards of different runs (seed, version, loop, config or
 * selection of cases), a shard missing or given twice, and a part that
 * disagrees with itself or shards that do not add up to their suite (a file cut
 * short or edited). Whole runs of
 * disjoint cases merge whatever their configs (one job per agent, or per kind).
 */
import { InputError } from '../kernel/index.ts';
import { compareIds } from './format.ts';
import { loopOf, RESULTS_SCHEMA, suiteDigest, summarize, type CaseResult, type RunResults, type RunSuite } from './results.ts';

export interface ResultsPart {
  /** Where the part came from (a file path), for error messages. */
  readonly source: string;
  readonly results: RunResults;
}

export class MergeError extends InputError {
  constructor(message: string) {
    super(message);
    this.name = 'MergeError';
  }
}

export function mergeResults(parts: readonly ResultsPart[]): RunResults {
  if (parts.length === 0) throw new MergeError('nothing to merge: give at least one results file');
  const [first] = parts as [ResultsPart, ...ResultsPart[]];

  for (const part of parts) {
    if (part.results.fuzz !== undefined) {
      throw new MergeError(
        `${part.source}: the results of loopgate fuzz, not of a loopgate run shard; merge-reports merges the shards of one run (report the fuzz run on its own)`,
      );
    }
    if (part.results.seed !== first.results.seed) {
      throw new MergeError(
        `seeds differ: ${first.source} has seed ${first.results.seed}, ${part.source} has seed ${part.results.seed}; shards of one run share a seed (give every shard the same --seed)`,
      );
    }
    if (part.results.tool.version !== first.results.tool.version) {
      throw new MergeError(
        `loopgate versions differ: ${first.source} was written by ${first.results.tool.version}, ${part.source} by ${part.results.tool.version}; run every shard with the same loopgate`,
      );
    }
    if (loopOf(part.results) !== loopOf(first.results)) {
      throw new MergeError(
        `loops differ: ${first.source} ran ${loopOf(first.results)}, ${part.source} ran ${loopOf(part.results)}; shards of one run gate one loop`,
      );
    }
  }
  for (const part of parts) checkPart(part);
  checkShards(parts);
  checkSuites(parts);

  const seen = new Map<string, string>();
  const cases: CaseResult[] = [];
  for (const part of parts) {
    for (const c of part.results.cases) {
      const other = seen.get(c.id);
      if (other !== undefined) {
        throw new MergeError(
          other === part.source
            ? `case "${c.id}" appears twice in ${part.source}`
            : `case "${c.id}" is in both ${other} and ${part.source}; shards must run disjoint cases (is a file given twice?)`,
        );
      }
      seen.set(c.id, part.source);
      cases.push(c);
    }
  }
  cases.sort((a, b) => compareIds(a.id, b.id));
  checkSuiteCovered(parts, cases);

  const starts = parts.map((p) => p.results.startedAt).sort((a, b) => Date.parse(a) - Date.parse(b));
  const ends = parts.map((p) => p.results.finishedAt).sort((a, b) => Date.parse(b) - Date.parse(a));
  const startedAt = starts[0]!;
  const finishedAt = ends[0]!;
  return {
    schema: RESULTS_SCHEMA,
    tool: { name: 'loopgate', version: first.results.tool.version },
    // Shards written before the loop was recorded are loopgate's own loop.
    loop: parts.find((p) => p.results.loop)?.results.loop ?? { name: 'loopgate', version: first.results.tool.version },
    startedAt,
    finishedAt,
    // Shards run side by side: the merged run took from the first start to the last finish.
    durationMs: Math.max(0, Date.parse(finishedAt) - Date.parse(startedAt)),
    seed: first.results.seed,
    ...suiteOfMerged(parts, cases),
    summary: summarize(cases),
    cases,
    ...verdictsOfMerged(parts),
  };
}

/**
 * A peer run judged against its pinned verdicts passes when it fails exactly as pinned: the merged run carries every
 * shard's differences (shard 1 also tells the pinned cases the whole suite no longer selects), so it passes exactly
 * when the unsharded run would (outside probe 39, F5: merged, the pinned failures failed the run).
 */
function verdictsOfMerged(parts: readonly ResultsPart[]): Pick<RunResults, 'verdicts'> {
  const judged = parts.filter((p) => p.results.verdicts !== undefined);
  if (judged.length === 0) return {};
  const first = judged[0]!;
  const file = first.results.verdicts!.file;
  const other = parts.find((p) => p.results.verdicts?.file !== file);
  if (other)
    throw new MergeError(
      `${first.source} was judged against the pinned verdicts in ${file}, ${other.source} against ${other.results.verdicts ? `those in ${other.results.verdicts.file}` : 'none'}; run every shard with the same config and flags`,
    );
  const differences = judged.flatMap((p) => p.results.verdicts!.differences).sort((a, b) => compareIds(a.id, b.id));
  return { verdicts: { file, differences } };
}

/**
 * A part tells one verdict: its summary is the tally of its cases, and a case it
 * marks passed has no failed check. A file cut short or edited (cases removed,
 * a failure marked passed) would otherwise merge into a passing run (outside
 * probe 29, F3).
 */
function checkPart(part: ResultsPart): void {
  const { source, results } = part;
  const told = results.summary;
  const tallied = summarize(results.cases);
  const counts = (c: { total: number; passed: number; failed: number; skipped: number }) =>
    `${c.total} (${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped)`;
  if (told.total !== tallied.total || told.passed !== tallied.passed || told.failed !== tallied.failed || told.skipped !== tallied.skipped)
    throw new MergeError(
      `${source}: its summary counts ${counts(told)} cases, but it holds ${counts(tallied)}: the file was cut short or edited; run that part again`,
    );
  for (const c of results.cases) {
    if (c.status !== 'passed') continue;
    const failed = c.checks.find((check) => !check.passed);
    if (failed)
      throw new MergeError(`${source}: case "${c.id}" is marked passed, but its check "${failed.name}" failed: the file was edited; run that part again`);
  }
}

/** Shards of one suite hold, together, exactly the cases the suite selected (its count and digest): none cut from a shard. */
function checkSuiteCovered(parts: readonly ResultsPart[], cases: readonly CaseResult[]): void {
  const suite = parts.find((p) => p.results.shard !== undefined && p.results.suite !== undefined)?.results.suite;
  if (suite === undefined) return;
  if (cases.length !== suite.cases || suiteDigest(cases.map((c) => c.id)) !== suite.digest)
    throw new MergeError(
      `the shards hold ${cases.length} case${cases.length === 1 ? '' : 's'}, not the ${suite.cases} their suite selected (suite ${suite.digest.slice(0, 8)}…): a shard's results were cut short or edited; run the shards again`,
    );
}

/** Shards must all say they are shards of the same `n`, and cover 1..n exactly once. */
function checkShards(parts: readonly ResultsPart[]): void {
  const sharded = parts.filter((p) => p.results.shard !== undefined);
  if (sharded.length === 0) return;
  const plain = parts.find((p) => p.results.shard === undefined);
  const { source, results } = sharded[0]!;
  const total = results.shard!.total;
  if (plain) throw new MergeError(`${plain.source} is a whole run but ${source} is shard ${results.shard!.index}/${total}; merge the shards of one run only`);
  const byIndex = new Map<number, string>();
  for (const part of sharded) {
    const shard = part.results.shard!;
    if (shard.total !== total)
      throw new MergeError(`shard counts differ: ${source} is shard ${results.shard!.index}/${total}, ${part.source} is shard ${shard.index}/${shard.total}`);
    const other = byIndex.get(shard.index);
    if (other !== undefined) throw new MergeError(`shard ${shard.index}/${total} given twice: ${other} and ${part.source}`);
    byIndex.set(shard.index, part.source);
  }
  const missing = Array.from({ length: total }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  if (missing.length > 0) {
    throw new MergeError(
      `missing shard${missing.length === 1 ? '' : 's'} ${missing.map((i) => `${i}/${total}`).join(', ')}: the merged results would leave their cases out`,
    );
  }
}

/** Shards of one run selected the same cases of one config: a shard of another suite would leave the rest of both unrun. */
function checkSuites(parts: readonly ResultsPart[]): void {
  const sharded = parts.filter((p) => p.results.shard !== undefined && p.results.suite !== undefined);
  const [first] = sharded;
  if (first === undefined) return;
  const name = (part: ResultsPart) => `${part.source} is shard ${part.results.shard!.index}/${part.results.shard!.total}`;
  const a = first.results.suite!;
  for (const part of sharded) {
    const b = part.results.suite!;
    if (b.config !== a.config)
      throw new MergeError(
        `configs differ: ${name(first)} of the suite of ${a.config}, ${name(part)} of the suite of ${b.config}; shards of one run share one config`,
      );
    if (a.commit !== undefined && b.commit !== undefined && b.commit !== a.commit)
      throw new MergeError(
        `commits differ: ${name(first)} of commit ${a.commit.slice(0, 12)}, ${name(part)} of commit ${b.commit.slice(0, 12)}; shards of one run are made from one commit (a shard left from an earlier run?)`,
      );
    if (b.digest !== a.digest)
      throw new MergeError(
        `suites differ: ${name(first)} of ${a.cases} cases (suite ${a.digest.slice(0, 8)}…), ${name(part)} of ${b.cases} cases (suite ${b.digest.slice(0, 8)}…); shards of one run select the same cases (same config, paths and --grep)`,
      );
  }
}

/** The merged run's suite: the cases it holds, of the config every part names (none if a part predates suites, or configs differ). */
function suiteOfMerged(parts: readonly ResultsPart[], cases: readonly CaseResult[]): { suite?: RunSuite } {
  const suites = parts.map((p) => p.results.suite);
  const config = suites[0]?.config;
  if (config === undefined || suites.some((s) => s?.config !== config)) return {};
  const commit = suites[0]?.commit;
  const oneCommit = commit !== undefined && suites.every((s) => s?.commit === commit);
  return { suite: { config, cases: cases.length, digest: suiteDigest(cases.map((c) => c.id)), ...(oneCommit ? { commit } : {}) } };
}
