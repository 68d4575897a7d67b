/** How the CLI tells an error: `loopgate: ` and one escaped line per line of the message. */
import { printable } from '../report/terminal-text.ts';

export function errorLines(message: string): string {
  const lines = message.split('\n').filter((line) => line.trim() !== '');
  return lines.map((line) => `loopgate: ${printable(line)}\n`).join('');
}
