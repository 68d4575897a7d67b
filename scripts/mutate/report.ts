/**
 * The score of a mutation run, per area, from Stryker's JSON report (the
 * mutation-testing-report schema: lines and columns from 1), and the list of
 * surviving mutants, as Markdown and JSON for bench/results/.
 *
 * Score = detected / (detected + undetected): detected is killed or timed out,
 * undetected is survived or not reached by any test (NoCoverage). Mutants that
 * broke the run itself (RuntimeError, CompileError) are counted apart and left
 * out, as Stryker does; so are ignored ones (not in the sample).
 */
import type { Machine } from '../../bench/lib/machine.ts';
import { machineLine } from '../../bench/lib/machine.ts';
import { AREA_NAMES, areaOf, type AreaName } from './areas.ts';
import type { Judge } from './args.ts';
import type { Population } from './sample.ts';

/** The part of Stryker's JSON report read here. */
export interface StrykerReport {
  readonly files: Readonly<
    Record<
      string,
      {
        readonly source: string;
        readonly mutants: readonly {
          readonly id: string;
          readonly mutatorName: string;
          readonly replacement?: string;
          readonly location: { readonly start: { line: number; column: number }; readonly end: { line: number; column: number } };
          readonly status: string;
          readonly statusReason?: string;
          readonly coveredBy?: readonly string[];
          readonly killedBy?: readonly string[];
          readonly static?: boolean;
        }[];
      }
    >
  >;
}

export interface MutantLine {
  readonly area: AreaName;
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly mutator: string;
  readonly original: string;
  readonly replacement: string;
  readonly status: string;
  /** Tests that reached it (undefined when Stryker did not say). */
  readonly coveredBy?: number;
  readonly static?: boolean;
  readonly killedBy?: string;
}

export interface AreaScore {
  readonly sites: number;
  readonly mutants: number;
  readonly killed: number;
  readonly timeout: number;
  readonly survived: number;
  readonly noCoverage: number;
  readonly errors: number;
  /** Percent, one decimal; undefined when nothing was scored. */
  readonly score: number | undefined;
}

export interface RunInfo {
  readonly judge: Judge;
  readonly sample: number | 'all';
  readonly seed: number;
  readonly concurrency: number;
  /** Absent in reports written before the flag existed: perTest. */
  readonly coverage?: 'perTest' | 'all';
  readonly incremental: boolean;
  readonly files: readonly string[];
  /** --area: only these areas were mutated (all when empty; absent in reports written before the flag). */
  readonly onlyAreas?: readonly AreaName[];
  readonly wallSeconds: number;
  readonly strykerVersion: string;
  readonly machine: Machine;
  readonly population: Record<AreaName, Population>;
  readonly sampledSites: Record<AreaName, number>;
  /** A suite run after a gate run (--after-gate): the gate's summary, how many sites ran again, how many kills were carried over. */
  readonly afterGate?: { readonly path: string; readonly rejudgedSites: number; readonly carried: number };
}

export interface MutationSummary extends RunInfo {
  readonly areas: Record<AreaName, AreaScore>;
  /** All areas' mutants pooled (the sample's own mix). */
  readonly pooledScore: number | undefined;
  /** Each area's score weighted by its share of all mutants: the estimate for the whole population. */
  readonly estimatedScore: number | undefined;
  readonly survivors: readonly MutantLine[];
  readonly mutants: readonly MutantLine[];
}

/** The same mutant in two runs: same place, same mutator, same replacement. */
export const mutantKey = (m: Pick<MutantLine, 'file' | 'line' | 'column' | 'mutator' | 'replacement'>) =>
  `${m.file}:${m.line}:${m.column}:${m.mutator}:${m.replacement}`;

/** The carried kills the suite run did not judge itself (it also mutates nodes enclosing a re-judged site). */
export const notJudgedAgain = (carried: readonly MutantLine[], judged: readonly MutantLine[]) => {
  const seen = new Set(judged.map(mutantKey));
  return carried.filter((m) => !seen.has(mutantKey(m)));
};

const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);
const ERRORS = new Set(['RuntimeError', 'CompileError']);

const percent = (part: number, whole: number) => (whole === 0 ? undefined : Math.round((part / whole) * 1000) / 10);

/** The source text a location spans (lines and columns from 1), on one line, shortened. */
export function snippet(source: string, loc: StrykerReport['files'][string]['mutants'][number]['location'], max = 100): string {
  const lines = source.split('\n');
  const parts: string[] = [];
  for (let l = loc.start.line; l <= loc.end.line; l++) {
    const text = lines[l - 1] ?? '';
    const from = l === loc.start.line ? loc.start.column - 1 : 0;
    const to = l === loc.end.line ? loc.end.column - 1 : text.length;
    parts.push(text.slice(from, to).trim());
  }
  return shorten(parts.join(' '), max);
}

const shorten = (text: string, max: number) => {
  const one = text.replace(/\s+/g, ' ');
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
};

/**
 * `carried`: mutants an earlier run judged (--after-gate), counted as it judged
 * them unless this run judged them too (then this run's verdict stands).
 */
export function summarize(report: StrykerReport, info: RunInfo, carried: readonly MutantLine[] = []): MutationSummary {
  const mutants: MutantLine[] = [];
  for (const [file, { source, mutants: list }] of Object.entries(report.files)) {
    const area = areaOf(file);
    if (!area) continue;
    for (const m of list) {
      if (m.status === 'Ignored') continue;
      mutants.push({
        area,
        file,
        line: m.location.start.line,
        column: m.location.start.column,
        mutator: m.mutatorName,
        original: snippet(source, m.location),
        replacement: shorten(m.replacement ?? '', 100),
        status: m.status,
        ...(m.coveredBy ? { coveredBy: m.coveredBy.length } : {}),
        ...(m.static ? { static: true } : {}),
        ...(m.killedBy?.[0] ? { killedBy: m.killedBy[0] } : {}),
      });
    }
  }
  const kept = notJudgedAgain(carried, mutants);
  mutants.push(...kept);
  if (info.afterGate) info = { ...info, afterGate: { ...info.afterGate, carried: kept.length } };
  mutants.sort(
    (a, b) => AREA_NAMES.indexOf(a.area) - AREA_NAMES.indexOf(b.area) || (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column),
  );
  const areas = {} as Record<AreaName, AreaScore>;
  for (const area of AREA_NAMES) {
    const mine = mutants.filter((m) => m.area === area);
    const count = (statuses: Set<string> | string) =>
      mine.filter((m) => (typeof statuses === 'string' ? m.status === statuses : statuses.has(m.status))).length;
    areas[area] = {
      sites: info.sampledSites[area],
      mutants: mine.length,
      killed: count('Killed'),
      timeout: count('Timeout'),
      survived: count('Survived'),
      noCoverage: count('NoCoverage'),
      errors: count(ERRORS),
      score: percent(count(DETECTED), count(DETECTED) + count(UNDETECTED)),
    };
  }
  const detected = mutants.filter((m) => DETECTED.has(m.status)).length;
  const undetected = mutants.filter((m) => UNDETECTED.has(m.status)).length;
  const scored = AREA_NAMES.filter((a) => areas[a].score !== undefined);
  const weight = scored.reduce((n, a) => n + info.population[a].mutants, 0);
  const estimatedScore =
    weight === 0 ? undefined : Math.round((scored.reduce((n, a) => n + areas[a].score! * info.population[a].mutants, 0) / weight) * 10) / 10;
  return {
    ...info,
    areas,
    pooledScore: percent(detected, detected + undetected),
    estimatedScore,
    survivors: mutants.filter((m) => UNDETECTED.has(m.status)),
    mutants,
  };
}

const JUDGE_TEXT: Record<Judge, string> = {
  gate: 'the gate alone: `loopgate run` on the bundled suite (state-table cells, contract suite on the fakes, every bundled scenario through every host) plus a bounded `loopgate fuzz` (bench/mutation/gate.judge.ts)',
  suite: "the whole vitest suite of `npm test` (vitest.config.ts) with the gate judge's cases (bench/mutation/vitest.suite.config.ts)",
};

/** Inline code that survives backticks in the code itself. */
export const code = (text: string) => (text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``);

const pct = (n: number | undefined) => (n === undefined ? '–' : `${n.toFixed(1)}%`);
const minutes = (s: number) => (s < 90 ? `${Math.round(s)} s` : `${(s / 60).toFixed(1)} min`);

export function renderMarkdown(s: MutationSummary): string {
  const out: string[] = [];
  out.push(`# Mutation score — ${s.judge} judge`, '');
  out.push(`What decides whether a mutant is caught: ${JUDGE_TEXT[s.judge]}.`, '');
  const sample = s.sample === 'all' ? 'every site' : `${s.sample} mutation sites per area, seed ${s.seed}`;
  const areasOnly = s.onlyAreas ?? [];
  const only = `${areasOnly.length > 0 ? `; only the ${areasOnly.join(', ')} area${areasOnly.length === 1 ? '' : 's'}` : ''}${s.files.length > 0 ? `; only ${s.files.join(', ')}` : ''}`;
  const flags = s.afterGate
    ? ` --after-gate ${s.afterGate.path}`
    : `${s.sample === 'all' ? ' --sample all' : ` --sample ${s.sample} --seed ${s.seed}`}${areasOnly.map((a) => ` --area ${a}`).join('')}${s.files.map((f) => ` --file ${f}`).join('')}`;
  out.push(`Sample: ${sample}${only}. Reproduce: \`npm run mutate -- --judge ${s.judge}${flags}\`.`, '');
  if (s.afterGate) {
    out.push(
      `After the gate run \`${s.afterGate.path}\`: the whole suite ran at the ${s.afterGate.rejudgedSites} sites where the gate left a mutant alive (survived, unreached, timed out or an error); the gate's ${s.afterGate.carried} kills at the other sites are carried over (the suite runs the gate's cases, so it kills them by the same test; "killed by" names them \`gate judge: …\`).`,
      '',
    );
  }
  out.push(
    `Stryker ${s.strykerVersion} (vitest runner, ${s.coverage ?? 'perTest'} coverage), concurrency ${s.concurrency}${s.incremental ? ', incremental' : ''}; wall time ${minutes(s.wallSeconds)}.`,
    '',
  );
  out.push(`Machine: ${machineLine(s.machine)}`, '');
  out.push('| area | sites sampled / all | mutants run / all | killed | timed out | survived | no coverage | errors | score |');
  out.push('|---|---|---|---|---|---|---|---|---|');
  for (const area of AREA_NAMES) {
    const a = s.areas[area];
    const p = s.population[area];
    out.push(
      `| ${area} | ${a.sites} / ${p.sites} | ${a.mutants} / ${p.mutants} | ${a.killed} | ${a.timeout} | ${a.survived} | ${a.noCoverage} | ${a.errors} | ${pct(a.score)} |`,
    );
  }
  out.push('');
  out.push(`Pooled over the sample: ${pct(s.pooledScore)}. Estimated for all mutants (each area weighted by its share of them): ${pct(s.estimatedScore)}.`, '');
  out.push(
    'Score = (killed + timed out) / (killed + timed out + survived + no coverage). "Errors" are mutants that broke the run itself (left out, as Stryker does). Equivalent mutants are not subtracted here; see mutation-equivalents.md.',
    '',
  );
  out.push(`## Surviving mutants (${s.survivors.length})`, '');
  for (const area of AREA_NAMES) {
    const list = s.survivors.filter((m) => m.area === area);
    if (list.length === 0) continue;
    out.push(`### ${area}`, '');
    for (const m of list) {
      const reach = m.status === 'NoCoverage' ? 'no test reaches it' : `reached by ${m.coveredBy ?? '?'} test(s)${m.static ? ', static' : ''}`;
      out.push(`- \`${m.file}:${m.line}:${m.column}\` ${m.mutator}: ${code(m.original)} → ${code(m.replacement)} (${reach})`);
    }
    out.push('');
  }
  return `${out.join('\n').trimEnd()}\n`;
}
