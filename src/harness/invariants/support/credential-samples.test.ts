import { describe, expect, it } from 'vitest';
import { createRedactor, SECRET_RULES } from '../../../kernel/index.ts';
import { CREDENTIAL_SAMPLES } from './credential-samples.ts';

describe('credential samples', () => {
  it('has a sample for every default secret rule, and no sample without a rule', () => {
    // A rule with more than one way of being written (a named key's several names) has a sample of each.
    expect([...new Set(CREDENTIAL_SAMPLES.map((s) => s.rule))].sort()).toEqual(SECRET_RULES.map((r) => r.id).sort());
  });

  it.each(CREDENTIAL_SAMPLES)('$rule: its rule matches it, and its key part is inside it', (sample) => {
    const rule = SECRET_RULES.find((r) => r.id === sample.rule)!;
    expect(sample.text).toContain(sample.tell);
    const match = [...sample.text.matchAll(new RegExp(rule.pattern.source, 'g'))].map((m) => m[0]);
    expect(match.length).toBe(1);
    expect(match[0]).toContain(sample.tell);
  });

  it('the default redactor leaves no key part readable', () => {
    const redact = createRedactor({});
    for (const sample of CREDENTIAL_SAMPLES) expect(redact(`before ${sample.text} after`), sample.rule).not.toContain(sample.tell);
  });
});
