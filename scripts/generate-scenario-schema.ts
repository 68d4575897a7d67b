/**
 * Writes scenarios/scenario.schema.json — the JSON Schema editors use to check
 * scenario files — from the zod definition in src/harness/scenario/schema.ts, so
 * the two cannot disagree. Run after changing the format:
 *
 *   npx node scripts/generate-scenario-schema.ts
 *
 * The checks written as `superRefine` (exactly one result per provider step, one
 * action per inbox entry, …) cannot be expressed in JSON Schema; the loader still
 * applies them and names the file, line and field.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { scenarioSchema } from '../src/harness/scenario/schema.ts';
import { EXTENSION_KEY } from '../src/yaml/load-yaml.ts';

export const SCENARIO_SCHEMA_PATH = join(import.meta.dirname, '..', 'scenarios', 'scenario.schema.json');

/** The JSON Schema text, exactly as committed (stable key order, trailing newline). */
export function generateScenarioSchema(): string {
  // The input side: keys with defaults stay optional, as a person writes them.
  // draft-07 is the version editors (yaml-language-server) support best.
  const schema = z.toJSONSchema(scenarioSchema, { io: 'input', unrepresentable: 'any', target: 'draft-07' });
  const document = {
    ...schema,
    // Top-level x-… keys are the file's own, for YAML anchors to reuse (src/yaml/load-yaml.ts: EXTENSION_KEY).
    patternProperties: { [EXTENSION_KEY.source]: {} },
    $id: 'https://loopgate.dev/scenario.schema.json',
    title: 'loopgate scenario',
    description: 'A loopgate scenario file: the world, the inbox script, the scripted provider and what to expect. See scenarios/README.md.',
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(SCENARIO_SCHEMA_PATH, generateScenarioSchema());
  console.log(`wrote ${SCENARIO_SCHEMA_PATH}`);
}
