/**
 * Writes one benchmark's results: `<name>.json` (everything, machine included) and
 * `<name>.md` (a readable table), both in bench/results/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machine, machineLine, type Machine } from './machine.ts';

export const RESULTS_DIR = process.env.LOOPGATE_BENCH_RESULTS ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'results');

export interface Table {
  readonly title: string;
  readonly columns: readonly string[];
  readonly rows: readonly (readonly (string | number)[])[];
  /** Lines printed under the table (targets, skips, caveats). */
  readonly notes?: readonly string[];
}

export interface BenchResults {
  readonly bench: string;
  readonly description: string;
  readonly machine: Machine;
  readonly tables: readonly Table[];
  readonly data: unknown;
}

export function writeResults(name: string, description: string, tables: readonly Table[], data: unknown): BenchResults {
  const results: BenchResults = { bench: name, description, machine: machine(), tables, data };
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, `${name}.json`), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(RESULTS_DIR, `${name}.md`), toMarkdown(results));
  process.stdout.write(`${toMarkdown(results)}\nwrote ${join(RESULTS_DIR, `${name}.json`)} and .md\n`);
  return results;
}

export function toMarkdown(results: BenchResults): string {
  const out = [`# ${results.bench}`, '', results.description, '', `Machine: ${machineLine(results.machine)}`, ''];
  for (const table of results.tables) out.push(markdownTable(table), '');
  return `${out.join('\n').trimEnd()}\n`;
}

export function markdownTable(table: Table): string {
  const lines = [`## ${table.title}`, '', `| ${table.columns.join(' | ')} |`, `|${table.columns.map(() => '---').join('|')}|`];
  for (const row of table.rows) lines.push(`| ${row.map((c) => String(c).replace(/\|/g, '\\|')).join(' | ')} |`);
  if (table.notes?.length) lines.push('', ...table.notes.map((n) => `- ${n}`));
  return lines.join('\n');
}

/** "✓" / "✗" with the target, for tables. */
export function verdict(ok: boolean, target: string): string {
  return `${ok ? '✓' : '✗'} ${target}`;
}
