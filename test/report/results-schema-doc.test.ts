/** docs/results-schema.md stays true: its examples are valid files and its field tables name every field the schema knows. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseBaselineJson } from '../../src/report/baseline.ts';
import { parseResultsJson } from '../../src/report/json.ts';
import { summarize } from '../../src/report/results.ts';
import {
  caseCostSchema,
  caseMetricsSchema,
  caseResultSchema,
  checkResultSchema,
  regressionSchema,
  runResultsSchema,
  stepRequestSchema,
  timelineEntrySchema,
} from '../../src/report/results-schema.ts';

const doc = readFileSync(new URL('../../docs/results-schema.md', import.meta.url), 'utf8');
const jsonBlocks = [...doc.matchAll(/```json\n([\s\S]*?)\n```/g)].map((m) => m[1]!);

describe('docs/results-schema.md', () => {
  it('has a results example that loopgate reads, with a summary matching its cases', () => {
    const text = jsonBlocks.find((b) => b.includes('"loopgate.results/v2"'))!;
    const results = parseResultsJson(text, 'docs example');
    expect(results.summary).toEqual(summarize(results.cases));
  });

  it('has a baseline example that loopgate reads', () => {
    const text = jsonBlocks.find((b) => b.includes('"loopgate.baseline/v1"'))!;
    expect(Object.keys(parseBaselineJson(text, 'docs example').cases)).toHaveLength(3);
  });

  it('documents every field of every object', () => {
    const shapes = [runResultsSchema, caseResultSchema, checkResultSchema, timelineEntrySchema, regressionSchema, stepRequestSchema];
    for (const schema of shapes) for (const field of Object.keys(schema.shape)) expect(doc, field).toContain(`\`${field}\``);
    for (const field of Object.keys(caseMetricsSchema.shape)) expect(doc, field).toContain(`\`${field}\``);
    for (const field of Object.keys(caseCostSchema.shape)) expect(doc, field).toContain(`\`${field}\``);
  });
});
