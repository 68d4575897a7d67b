/**
 * Pinned verdicts of a peer loop (`verdicts:` in loopgate.config.ts): what
 * another framework's loop — the AI SDK's, OpenAI Agents' — does on these
 * scenarios, recorded from a real run, so that its documented failures (DESIGN.md's
 * field failures, docs/field-failures.md) are data and a run can say "fails
 * exactly as documented" (exit 0) or name every difference (exit 1).
 *
 * Per case: its status, its outcome, a skip's reason, and the lines it was judged
 * on — each failed check (`✗ name: message`) and each line shown as a diff
 * against loopgate's exact expectations (`~ name: message`: what the peer
 * persisted or sent, never failed on its own; all but `diff: clock`, the virtual
 * time, which a peer's unseeded retry jitter moves from run to run), and each line
 * of the history the peer persisted (`~ persisted 000: …`). A case that newly fails, one that
 * newly passes, one that fails or persists differently, one pinned but not run
 * (in a whole run) and one run but not pinned are all differences.
 *
 * Re-recorded from a run with `loopgate run --loop NAME --update-verdicts`.
 */
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { ensureDirectory, INPUT_LIMITS, readInputFile, writeFileAtomic } from '../files/index.ts';
import { parseTaggedJson, ReportFileError } from './file-error.ts';
import { compareIds } from './format.ts';
import type { CaseResult, CaseStatus, VerdictDifference } from './results.ts';

export type { VerdictDifference };
import { caseStatusSchema } from './results-schema.ts';

export const VERDICTS_SCHEMA = 'loopgate.peer-verdicts/v1' as const;

export interface PinnedCase {
  readonly status: CaseStatus;
  readonly outcome?: string;
  readonly skipReason?: string;
  /** `✗ name: message` for each failed check, `~ name: message` for each diff line and persisted line; sorted. */
  readonly lines?: readonly string[];
}

export interface PinnedVerdicts {
  readonly schema: typeof VERDICTS_SCHEMA;
  /** The loop these verdicts are of (`ai-sdk`, `openai-agents`). */
  readonly loop: string;
  /** The peer's version when they were recorded (e.g. `ai 6.0.326`). */
  readonly version: string;
  readonly seed: number;
  readonly summary: { readonly total: number; readonly passed: number; readonly failed: number; readonly skipped: number };
  /** By case id, ids sorted. */
  readonly cases: Readonly<Record<string, PinnedCase>>;
}

const pinnedCaseSchema = z.strictObject({
  status: caseStatusSchema,
  outcome: z.string().optional(),
  skipReason: z.string().optional(),
  lines: z.array(z.string()).optional(),
});

const verdictsSchema = z.strictObject({
  schema: z.literal(VERDICTS_SCHEMA),
  loop: z.string().min(1),
  version: z.string(),
  seed: z.number().int(),
  summary: z.strictObject({ total: z.number().int(), passed: z.number().int(), failed: z.number().int(), skipped: z.number().int() }),
  cases: z.record(z.string(), pinnedCaseSchema),
});

/** A case as its pinned verdict. */
export function pinCase(c: CaseResult): PinnedCase {
  const lines = (c.checks ?? [])
    // The virtual time a peer's case took is not pinned: a peer's own retry jitter is not seeded (Agents' backoff uses Math.random).
    .filter((check) => !check.passed || (check.name.startsWith('diff') && check.name !== 'diff: clock') || check.name.startsWith('persisted '))
    .map((check) => `${check.passed ? '~' : '✗'} ${check.name}: ${check.message}`)
    .sort();
  return {
    status: c.status,
    ...(c.outcome !== undefined ? { outcome: c.outcome } : {}),
    ...(c.skipReason !== undefined ? { skipReason: c.skipReason } : {}),
    ...(lines.length > 0 ? { lines } : {}),
  };
}

/** The verdicts of a run of `loop`. */
export function verdictsOf(loop: string, version: string, seed: number, cases: readonly CaseResult[]): PinnedVerdicts {
  const sorted = [...cases].sort((a, b) => compareIds(a.id, b.id));
  const summary = { total: cases.length, passed: 0, failed: 0, skipped: 0 };
  for (const c of cases) summary[c.status]++;
  return { schema: VERDICTS_SCHEMA, loop, version, seed, summary, cases: Object.fromEntries(sorted.map((c) => [c.id, pinCase(c)])) };
}

/**
 * The differences between the pinned verdicts and a run's cases. `whole`: the run
 * selected every case (no paths, --grep or --shard), so a pinned case it did not
 * run is a difference too.
 */
export function compareVerdicts(pinned: PinnedVerdicts, cases: readonly CaseResult[], whole: boolean): VerdictDifference[] {
  const differences: VerdictDifference[] = [];
  const seen = new Set<string>();
  for (const c of [...cases].sort((a, b) => compareIds(a.id, b.id))) {
    seen.add(c.id);
    const was = pinned.cases[c.id];
    const now = pinCase(c);
    if (!was) {
      differences.push({ id: c.id, kind: 'not pinned', message: `not in the pinned verdicts; ran ${describeCase(now)}` });
      continue;
    }
    if (was.status !== now.status) {
      const kind = now.status === 'failed' ? 'newly fails' : was.status === 'failed' && now.status === 'passed' ? 'newly passes' : 'status';
      differences.push({ id: c.id, kind, message: `pinned ${describeCase(was)}; now ${describeCase(now)}` });
      continue;
    }
    const before = new Set(was.lines ?? []);
    const after = new Set(now.lines ?? []);
    const gone = [...before].filter((l) => !after.has(l));
    const added = [...after].filter((l) => !before.has(l));
    const outcome = was.outcome !== now.outcome ? [`outcome ${was.outcome ?? '(none)'} → ${now.outcome ?? '(none)'}`] : [];
    const skip = was.skipReason !== now.skipReason ? [`skip reason "${was.skipReason ?? ''}" → "${now.skipReason ?? ''}"`] : [];
    if (gone.length + added.length + outcome.length + skip.length > 0)
      differences.push({
        id: c.id,
        kind: 'judged differently',
        message: [...outcome, ...skip, ...gone.map((l) => `pinned: ${l}`), ...added.map((l) => `now:    ${l}`)].join('\n'),
      });
  }
  if (whole) differences.push(...notSelected(pinned, seen));
  return differences;
}

/**
 * The pinned cases a run of the whole suite does not hold (renamed or gone). A shard of the whole suite knows every
 * case the suite selects, not only its own: shard 1 tells these, so the merged shards fail as the unsharded run does.
 */
export function notSelected(pinned: PinnedVerdicts, selected: Iterable<string>): VerdictDifference[] {
  const held = new Set(selected);
  return Object.keys(pinned.cases)
    .filter((id) => !held.has(id))
    .map((id) => ({ id, kind: 'not run' as const, message: `pinned ${describeCase(pinned.cases[id]!)}; not in this run (renamed or gone?)` }));
}

function describeCase(c: PinnedCase): string {
  const failed = (c.lines ?? []).filter((l) => l.startsWith('✗')).map((l) => l.slice(2, l.indexOf(':') > 0 ? l.indexOf(':') : undefined));
  if (c.status === 'skipped') return `skipped (${c.skipReason ?? 'no reason'})`;
  return `${c.status}${c.outcome ? ` (${c.outcome})` : ''}${failed.length > 0 ? `: ${failed.join(', ')}` : ''}`;
}

/** The console lines of a comparison (`skipped`, `failed`: how many of the `ran` cases were skipped, failed). */
export function renderVerdictComparison(
  file: string,
  loop: string,
  differences: readonly VerdictDifference[],
  ran: number,
  limit = 20,
  skipped = 0,
  failed?: number,
): string {
  // Skips pinned as skips match, yet a run of nothing but skips checked nothing (outside probe 45, F10).
  if (differences.length === 0 && skipped === ran)
    return `${loop} ${ran === 0 ? 'ran no case' : `skipped all ${ran} case(s)`}, as pinned in ${file}: nothing was checked\n`;
  // A loop that failed nothing does not "fail as documented" (outside probe 54, LOW).
  if (differences.length === 0 && failed === 0)
    return `${loop} passes every case it ran, as pinned in ${file}: ${ran} case(s)${skipped > 0 ? `, ${skipped} skipped` : ''}\n`;
  if (differences.length === 0) return `${loop} fails exactly as documented: ${ran} case(s) judged as pinned in ${file}\n`;
  const lines = [`${loop} differs from the pinned verdicts in ${file} (${differences.length} case${differences.length === 1 ? '' : 's'}):`];
  for (const d of differences.slice(0, limit)) {
    const [first, ...rest] = d.message.split('\n');
    lines.push(`  ✗ ${d.id} [${d.kind}] ${first}`);
    for (const line of rest.slice(0, 6)) lines.push(`      ${line}`);
    if (rest.length > 6) lines.push(`      … and ${rest.length - 6} more lines`);
  }
  if (differences.length > limit) lines.push(`  … and ${differences.length - limit} more`);
  lines.push(
    `  a change you meant (a fixed peer defect, a new scenario, a new ${loop} version): re-record with loopgate run --loop ${loop} --update-verdicts, and review the diff`,
  );
  return `${lines.join('\n')}\n`;
}

export function readVerdictsFile(path: string): PinnedVerdicts {
  if (!existsSync(path)) throw new ReportFileError(path, 'no such verdicts file (record one from a whole run with --update-verdicts)');
  const text = readInputFile(path, { what: 'verdicts file', maxBytes: INPUT_LIMITS.baselineBytes });
  return parseTaggedJson(text, path, VERDICTS_SCHEMA, 'pinned peer verdicts', verdictsSchema) as PinnedVerdicts;
}

export function writeVerdictsFile(path: string, verdicts: PinnedVerdicts): void {
  ensureDirectory(dirname(path), 'verdicts directory');
  writeFileAtomic(path, `${JSON.stringify(verdicts, null, 2)}\n`, 'verdicts file');
}
