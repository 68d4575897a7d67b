/** Reporter names from `--reporter` flags, checked. */
import { InputError } from '../kernel/index.ts';
import { REPORTERS, type ReporterName } from './reporters.ts';

export class UnknownReporterError extends InputError {
  readonly reporter: string;
  /** `given`: the flag's values that named no reporter at all (commas, spaces), for a message of its own. */
  constructor(reporter: string, given?: readonly string[]) {
    super(
      given
        ? `--reporter ${given.map((g) => JSON.stringify(g)).join(' --reporter ')}: names no reporter; known reporters: ${REPORTERS.join(', ')}`
        : `unknown reporter "${reporter}"; known reporters: ${REPORTERS.join(', ')}`,
    );
    this.name = 'UnknownReporterError';
    this.reporter = reporter;
  }
}

/**
 * Reporter names from flags: repeated and/or comma-separated (`--reporter junit,html`), de-duplicated, checked. Values
 * given that name none (`--reporter ,`) are refused: the run would write nothing and pass (outside probe 64, F14).
 */
export function parseReporters(values: string | readonly string[]): ReporterName[] {
  const given = typeof values === 'string' ? [values] : values;
  const names = given
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
  if (names.length === 0 && given.length > 0) throw new UnknownReporterError('', given);
  const out: ReporterName[] = [];
  for (const name of names) {
    if (!(REPORTERS as readonly string[]).includes(name)) throw new UnknownReporterError(name);
    if (!out.includes(name as ReporterName)) out.push(name as ReporterName);
  }
  return out;
}
