/**
 * The after stage for a tool that returned (seed 000 §5): check the output against
 * its declaration, render it for the model, redact secrets in both the text and
 * the structured output kept for the log, and cap the text the model reads.
 */
import type { Redactor } from '../redact/index.ts';
import { toFrozenLoggable } from '../log/plain-data.ts';
import { toolErrors } from './tool-errors.ts';
import { truncateForModel } from './truncate.ts';
import type { AnyToolDeclaration, ToolError } from './types.ts';
import { describeIssues } from './validate.ts';

export type AfterResult =
  | { readonly ok: true; readonly content: string; readonly output?: unknown; readonly truncatedFrom?: number }
  | { readonly ok: false; readonly error: ToolError };

export function afterReturn(declaration: AnyToolDeclaration, returned: unknown, redact: Redactor, maxOutputChars: number): AfterResult {
  let output = returned;
  if (declaration.output) {
    const checked = declaration.output.safeParse(returned);
    if (!checked.success) return { ok: false, error: toolErrors.invalidOutput(declaration.name, describeIssues(checked.error.issues, returned).join('; ')) };
    output = checked.data;
  }
  // The output as the log keeps it (plain, redacted, frozen: logged without a copy) and, unredacted, as it renders.
  // Half a surrogate pair (a name cut with slice(0, n) inside an emoji) is no text: a provider refuses a request
  // holding it, and the history would send it on every turn. It is repaired (U+FFFD) in both (outside probe 35, F4).
  // Logged without a copy by a log with the same redactor: its copy of a repaired, redacted text is that text.
  const logged = toFrozenLoggable(output, wellFormed(redact), redact);
  if (!logged.ok) return { ok: false, error: toolErrors.invalidOutput(declaration.name, `the output is not JSON data (${logged.reason})`) };

  const rendered = render(declaration, output, logged.plain);
  const { content, truncatedFrom } = truncateForModel(redact(rendered).toWellFormed(), maxOutputChars);
  const result: { ok: true; content: string; output?: unknown; truncatedFrom?: number } = { ok: true, content };
  // Fields are omitted rather than set to undefined: the log takes plain JSON only.
  if (logged.value !== undefined) result.output = logged.value;
  if (truncatedFrom !== undefined) result.truncatedFrom = truncatedFrom;
  return result;
}

function render(declaration: AnyToolDeclaration, output: unknown, plain: unknown): string {
  if (declaration.renderForModel) {
    try {
      const text = declaration.renderForModel(output);
      if (typeof text === 'string') return text;
      return `${defaultRender(plain)}\n\n[renderForModel returned ${typeof text}, not text; showing the output as JSON]`;
    } catch (error) {
      // The tool ran and succeeded; a rendering bug must not turn that into a failure
      // (the model would retry a call whose side effects already happened).
      return `${defaultRender(plain)}\n\n[renderForModel failed (${error instanceof Error ? error.message : String(error)}); showing the output as JSON]`;
    }
  }
  return defaultRender(plain);
}

/** Text stays text; anything else is compact JSON. */
function defaultRender(plain: unknown): string {
  if (plain === undefined) return '(no output)';
  if (typeof plain === 'string') return plain;
  return JSON.stringify(plain);
}

const WELL_FORMED = new WeakMap<Redactor, (text: string) => string>();

/** The redactor, its texts made well-formed after it; one function per redactor (the log shares values a redactor made). */
function wellFormed(redact: Redactor): (text: string) => string {
  let made = WELL_FORMED.get(redact);
  if (made === undefined) {
    made = (text) => {
      const out = redact(text);
      return out.isWellFormed() ? out : out.toWellFormed();
    };
    WELL_FORMED.set(redact, made);
  }
  return made;
}
