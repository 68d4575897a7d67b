import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadYaml, YamlValidationError } from './load-yaml.ts';
import { YAML_LIMITS } from './limits.ts';

const anything = z.unknown();

/** The "billion laughs": each level a list of ten aliases to the level before. */
function aliasBomb(levels: number, width = 10): string {
  const lines = ['a0: &a0 [x]'];
  for (let i = 1; i <= levels; i++) lines.push(`a${i}: &a${i} [${Array.from({ length: width }, () => `*a${i - 1}`).join(', ')}]`);
  return `${lines.join('\n')}\n`;
}

function problem(text: string): string {
  try {
    loadYaml(text, anything, 'bomb.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(YamlValidationError);
    return (error as Error).message;
  }
  throw new Error('expected a YamlValidationError');
}

describe('YAML alias expansion is bounded', () => {
  it('refuses an alias bomb by counting expanded nodes, quickly, naming the file and line', () => {
    // 10^9 nodes once expanded, in a few hundred bytes: refused before any data is built.
    const started = performance.now();
    const message = problem(aliasBomb(9));
    expect(performance.now() - started).toBeLessThan(20_000); // a hang bound, not a speed claim
    expect(message).toMatch(/^bomb\.yaml:\d+:\d+: YAML: aliases expand this document to more than 100000 nodes/);
  });

  it('refuses text repeated through aliases past the character limit', () => {
    const big = 'x'.repeat(1024 * 1024);
    const text = `s: &s "${big}"\nt: [${Array.from({ length: 20 }, () => '*s').join(', ')}]\n`;
    expect(problem(text)).toMatch(/more than \d+ characters of text/);
  });

  it('takes aliases within the limits, as yaml would expand them', () => {
    const data = loadYaml(aliasBomb(3), anything, 'ok.yaml') as Record<string, unknown[]>;
    expect(JSON.stringify(data.a3).match(/x/g)).toHaveLength(1000);
    // More than yaml's own default alias count, but few expanded nodes: accepted.
    const many = `base: &b {k: 1}\nlist: [${Array.from({ length: 500 }, () => '*b').join(', ')}]\n`;
    expect((loadYaml(many, anything, 'many.yaml') as { list: unknown[] }).list).toHaveLength(500);
  });

  it('names an alias without an anchor and an alias inside its own anchor instead of throwing a ReferenceError', () => {
    expect(problem('a: *nowhere\n')).toMatch(/^bomb\.yaml:1:\d+: YAML: alias \*nowhere has no anchor/);
    expect(problem('a: &loop [1, *loop]\n')).toMatch(/alias \*loop is inside the node it refers to/);
  });

  it('refuses nesting deeper than the limit and text larger than the limit', () => {
    const depth = YAML_LIMITS.depth + 5;
    expect(problem(`${'['.repeat(depth)}${']'.repeat(depth)}\n`)).toMatch(`YAML: nested deeper than ${YAML_LIMITS.depth} levels`);
    expect(problem(`${'- '.repeat(depth)}x\n`)).toMatch(`YAML: nested deeper than ${YAML_LIMITS.depth} levels`);
    expect(problem(`a: "${'y'.repeat(YAML_LIMITS.bytes)}"\n`)).toMatch(/a YAML file may be at most/);
  });

  it('refuses nesting far past the limit (past where the parser overflows its stack) the same way, quickly', () => {
    const started = performance.now();
    expect(problem(`x: ${'['.repeat(5000)}${']'.repeat(5000)}\n`)).toBe(
      `bomb.yaml:1:${4 + YAML_LIMITS.depth}: YAML: nested deeper than ${YAML_LIMITS.depth} levels`,
    );
    expect(problem(`x: ${'{'.repeat(1_000_000)}\n`)).toMatch(/^bomb\.yaml:1:\d+: YAML: nested deeper than 500 levels$/);
    expect(performance.now() - started).toBeLessThan(5_000); // the parser alone took 25 s over the second
    expect(problem(`x:\n${'- '.repeat(5000)}1\n`)).toMatch(/^bomb\.yaml:2:\d+: YAML: nested deeper than 500 levels$/);
  });

  it('counts only brackets that nest: none in quoted text, block scalars or comments', () => {
    const many = '['.repeat(YAML_LIMITS.depth + 100);
    const text = `a: "${many}"\nb: '${many}'\nc: |\n  ${many}\n# ${many}\nd: x ${many}\ne: [[1], {k: [2]}]\n`;
    expect(loadYaml(text, anything, 'ok.yaml')).toMatchObject({ a: many, b: many, c: `${many}\n`, d: `x ${many}`, e: [[1], { k: [2] }] });
  });
});
