/**
 * The console report's table: fixed column widths, cells already wrapped to
 * them (one string per cell, lines split at `\n`), drawn with box characters —
 * one pass over the text, so a failure of any length costs what it is long.
 * (cli-table3, used before, measured each cell again for every line it drew,
 * and a few hundred failed cases of a few kilobytes each took minutes.)
 */

const ANSI = /\u001b\[[0-9;]*m/g;

/** Columns a line takes on a terminal: code points, colour codes not counted. */
function visibleWidth(line: string): number {
  let n = 0;
  for (const _ of line.replace(ANSI, '')) n++;
  return n;
}

function cut(line: string, width: number): string {
  if (visibleWidth(line) <= width) return line;
  return [...line.replace(ANSI, '')].slice(0, Math.max(0, width - 1)).join('') + '…';
}

/** `widths` include one column of padding on each side, as the borders' width excludes. */
export function boxTable(head: readonly string[], widths: readonly number[], rows: readonly (readonly string[])[]): string {
  const rule = (left: string, mid: string, right: string) => left + widths.map((w) => '─'.repeat(w)).join(mid) + right;
  const draw = (cells: readonly string[]): string[] => {
    const split = widths.map((_, i) => (cells[i] ?? '').split('\n'));
    const height = Math.max(1, ...split.map((lines) => lines.length));
    const out: string[] = [];
    for (let k = 0; k < height; k++) {
      const parts = widths.map((w, i) => {
        const inner = Math.max(0, w - 2);
        const line = cut(split[i]![k] ?? '', inner);
        return ` ${line}${' '.repeat(Math.max(0, inner - visibleWidth(line)))} `;
      });
      out.push(`│${parts.join('│')}│`);
    }
    return out;
  };
  const lines = [rule('┌', '┬', '┐'), ...draw(head)];
  for (const row of rows) lines.push(rule('├', '┼', '┤'), ...draw(row));
  lines.push(rule('└', '┴', '┘'));
  return lines.join('\n');
}
