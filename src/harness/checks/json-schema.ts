/**
 * JSON Schema (draft 2020-12) for reply assertions, on Ajv. A schema is
 * compiled when the scenario file loads — a bad one (an unknown keyword, a
 * wrong type, a bad `pattern`) is a file error there, never a surprise at run
 * time — and compiled schemas are kept, so a suite compiles each once.
 * `format` is an annotation, as 2020-12 has it by default: not checked.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';

const ajv = new Ajv2020({
  allErrors: true,
  strictSchema: true,
  strictNumbers: true,
  strictTypes: false,
  strictTuples: false,
  strictRequired: false,
  validateFormats: false,
  logger: false,
});

const compiled = new Map<string, ValidateFunction | Error>();

/** The validator of a schema, or why the schema cannot be used. */
export function compileJsonSchema(schema: unknown): ValidateFunction | Error {
  const key = JSON.stringify(schema);
  let entry = compiled.get(key);
  if (!entry) {
    try {
      entry = ajv.compile(schema as object | boolean);
    } catch (error) {
      entry = new Error(`not a usable JSON Schema: ${(error as Error).message}`);
    }
    compiled.set(key, entry);
  }
  return entry;
}

/** Ajv's errors as short lines: `/items/0/price: must be number`. */
export function schemaErrors(errors: readonly ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => {
    const where = e.instancePath || '(the whole reply)';
    const extra = e.keyword === 'additionalProperties' ? ` (${JSON.stringify((e.params as { additionalProperty?: string }).additionalProperty)})` : '';
    return `${where}: ${e.message ?? e.keyword}${extra}`;
  });
}
