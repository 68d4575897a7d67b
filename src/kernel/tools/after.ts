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
  const logged = toFrozenLoggable(output, redact);
  if (!logged.ok) return { ok: false, error: toolErrors.invalidOutput(declaration.name, `the output is not JSON data (${logged.reason})`) };

  const rendered = render(declaration, output, logged.plain);
  const { content, truncatedFrom } = truncateForModel(redact(rendered), maxOutputChars);
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
