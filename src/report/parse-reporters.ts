/** Reporter names from `--reporter` flags, checked. */
import { InputError } from '../kernel/index.ts';
import { REPORTERS, type ReporterName } from './reporters.ts';

export class UnknownReporterError extends InputError {
  readonly reporter: string;
  constructor(reporter: string) {
    super(`unknown reporter "${reporter}"; known reporters: ${REPORTERS.join(', ')}`);
    this.name = 'UnknownReporterError';
    this.reporter = reporter;
  }
}

/** Reporter names from flags: repeated and/or comma-separated (`--reporter junit,html`), de-duplicated, checked. */
export function parseReporters(values: string | readonly string[]): ReporterName[] {
  const names = (typeof values === 'string' ? [values] : values)
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  const out: ReporterName[] = [];
  for (const name of names) {
    if (!(REPORTERS as readonly string[]).includes(name)) throw new UnknownReporterError(name);
    if (!out.includes(name as ReporterName)) out.push(name as ReporterName);
  }
  return out;
}
