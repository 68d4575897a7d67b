/**
 * Reading report files back (results.json for merge-reports, baselines for
 * --baseline): every problem names the file and the field.
 */
import type { z } from 'zod';
import { InputError } from '../kernel/index.ts';
import { formatPath } from '../yaml/load-yaml.ts';
import { valueAt } from '../yaml/value-at.ts';
import { printable } from './terminal-text.ts';

export class ReportFileError extends InputError {
  readonly file: string;
  constructor(file: string, message: string) {
    super(`${file}: ${message}`);
    this.name = 'ReportFileError';
    this.file = file;
  }
}

/**
 * Parses `text` as JSON and checks its `schema` tag before the full validation, so a wrong file gets a short answer.
 * `tag`: the version this loopgate writes, or every version it reads (the one it writes last).
 */
export function parseTaggedJson<S extends z.ZodType>(text: string, file: string, tags: string | readonly string[], what: string, schema: S): z.output<S> {
  const readable: readonly string[] = typeof tags === 'string' ? [tags] : tags;
  const tag = readable[readable.length - 1]!;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    // JSON.parse quotes the text it stopped in: its newlines and escapes are shown, so the problem stays one line.
    throw new ReportFileError(file, `not valid JSON (${printable((error as Error).message)}); expected ${what}`);
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new ReportFileError(file, `expected ${what} (a JSON object with "schema": "${tag}"), got ${describe(data)}`);
  }
  const found = (data as { schema?: unknown }).schema;
  if (typeof found !== 'string' || !readable.includes(found)) {
    const family = tag.slice(0, tag.lastIndexOf('/') + 1);
    const hint =
      typeof found === 'string' && found.startsWith(family)
        ? `written by a different loopgate version (schema "${found}"); this loopgate reads ${readable.map((t) => `"${t}"`).join(' and ')}`
        : found === undefined
          ? `no "schema" field; expected ${what} with "schema": "${tag}"`
          : `schema is ${JSON.stringify(found)}; expected ${what} with "schema": "${tag}"`;
    throw new ReportFileError(file, hint);
  }
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues;
  const lines = issues.slice(0, 5).map((issue) => {
    const field = formatPath(issue.path) || '(top level)';
    const got = issue.code === 'unrecognized_keys' ? '' : ` (got ${describe(valueAt(data, issue.path))})`;
    return `${field}: ${issue.message}${got}`;
  });
  if (issues.length > 5) lines.push(`… and ${issues.length - 5} more problems`);
  throw new ReportFileError(file, `not a valid ${what}:\n  ${lines.join('\n  ')}`);
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (value !== null && typeof value === 'object') return 'an object';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}
