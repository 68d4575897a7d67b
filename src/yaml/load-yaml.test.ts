import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadYaml, YamlValidationError } from './load-yaml.ts';

const schema = z.strictObject({
  name: z.string(),
  budgets: z.strictObject({ maxSteps: z.number().int().positive() }),
  tools: z.array(z.strictObject({ name: z.string() })).optional(),
});

function issues(text: string) {
  try {
    loadYaml(text, schema, 'agent.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(YamlValidationError);
    return (error as YamlValidationError).issues;
  }
  throw new Error('expected a validation error');
}

describe('loadYaml', () => {
  it('returns the validated value', () => {
    expect(loadYaml('name: a\nbudgets:\n  maxSteps: 3\n', schema, 'agent.yaml')).toEqual({ name: 'a', budgets: { maxSteps: 3 } });
  });
  it('names file, line and field of a wrong value', () => {
    const [issue] = issues('name: a\nbudgets:\n  maxSteps: "ten"\n');
    expect(issue).toMatchObject({ file: 'agent.yaml', line: 3, field: 'budgets.maxSteps' });
    expect(issue!.message).toMatch(/number/);
  });
  it('names an array element', () => {
    const [issue] = issues('name: a\nbudgets: { maxSteps: 1 }\ntools:\n  - name: ok\n  - name: 5\n');
    expect(issue).toMatchObject({ line: 5, field: 'tools[1].name' });
  });
  it('points a missing key at its parent, and an unknown key at its own line, with the closest known key', () => {
    const found = issues('name: a\nbudgets:\n  maxSteps: 1\n  steps: 3\ntools:\n  - name: x\n    nmae: y\n');
    expect(found.map((i) => [i.line, i.field, i.message])).toEqual([
      [4, 'budgets.steps', 'unknown key (did you mean maxSteps?); known: maxSteps'],
      [7, 'tools[0].nmae', 'unknown key (did you mean name?); known: name'],
    ]);
    expect(issues('name: a\n').map((i) => i.field)).toEqual(['budgets']);
  });
  // Outside probe 34, LOW: a wrong value under a union (a tool behaviour) said only "Invalid input".
  it('under a union, names the field of the one branch the value took, or what each branch expects', () => {
    const behaviour = z.union([
      z.enum(['ok', 'hang']),
      z.strictObject({ fail: z.strictObject({ code: z.string(), copy: z.union([z.boolean(), z.literal('without-retryable')]).optional() }) }),
      z.strictObject({ slow: z.number(), abortable: z.literal(true).optional() }),
    ]);
    const withUnion = z.strictObject({ behaviour: z.array(behaviour) });
    const found = (text: string) => {
      try {
        loadYaml(text, withUnion, 'tool.yaml');
      } catch (error) {
        return (error as YamlValidationError).issues.map((i) => [i.line, i.field, i.message]);
      }
      throw new Error('expected a validation error');
    };
    expect(found('behaviour:\n  - slow: 10\n    abortable: false\n')).toEqual([[3, 'behaviour[0].abortable', 'Invalid input: expected true']]);
    expect(found('behaviour:\n  - fail:\n      code: X\n      copy: without-retriable\n')).toEqual([
      [4, 'behaviour[0].fail.copy', 'Invalid input: expected boolean or "without-retryable" (did you mean without-retryable?)'],
    ]);
    expect(found('behaviour:\n  - hnag\n')).toEqual([
      [2, 'behaviour[0]', 'Invalid input: expected "ok", "hang", { fail }, or { slow, abortable } (did you mean hang?)'],
    ]);
    expect(found('behaviour:\n  - slow: 1\n    abortabel: true\n')).toEqual([
      [3, 'behaviour[0].abortabel', 'unknown key (did you mean abortable?); known: abortable, fail, slow'],
    ]);
    expect(found('behaviour:\n  - { slow: 1, fail: { code: X } }\n')).toEqual([
      [2, 'behaviour[0]', 'Invalid input: expected "ok", "hang", { fail }, or { slow, abortable }'],
    ]);
  });
  it('reports YAML syntax errors with their line', () => {
    const [issue] = issues('name: a\nbudgets: [1, 2\n');
    expect(issue!.message).toMatch(/YAML syntax/);
    expect(issue!.line).toBeGreaterThanOrEqual(2);
  });
  it('refuses a character YAML does not allow (a NUL, an escape, DEL, a C1 control), naming line and column; escaped, it is text (outside probe 8, F5)', () => {
    for (const [c, name] of [
      ['\u0000', 'U+0000'],
      ['\u001b', 'U+001B'],
      ['\u007f', 'U+007F'],
      ['\u0090', 'U+0090'],
      ['\uffff', 'U+FFFF'],
    ] as const) {
      const found = issues(`budgets: { maxSteps: 1 }\nname: a${c}b\n`);
      expect(found).toHaveLength(1);
      expect(found[0]).toMatchObject({ file: 'agent.yaml', line: 2, column: 8 });
      expect(found[0]!.message).toContain(`(${name}) is not allowed in YAML`);
    }
    expect(loadYaml('budgets: { maxSteps: 1 }\nname: "a\\u0000b\tc"\n', schema, 'agent.yaml').name).toBe('a\u0000b\tc');
    expect(loadYaml('budgets: { maxSteps: 1 }\r\nname: "café, 日本, 😀"\r\n', schema, 'agent.yaml').name).toBe('café, 日本, 😀');
  });
  it('refuses a key named __proto__ where zod rebuilds the map, and keeps it in free data (outside probe 47, F2: executions: { __proto__: 1 } checked nothing)', () => {
    const schema = z.object({ executions: z.record(z.string(), z.number()).optional(), args: z.unknown().optional() });
    expect(() => loadYaml('executions: { __proto__: 1 }\n', schema, 'x.yaml')).toThrow(
      /^x\.yaml:1:15: executions\.__proto__: a key named __proto__ is not read as data here \(it would be dropped, and check nothing\); rename it$/,
    );
    expect(() => loadYaml('executions:\n  __proto__: 1\n', schema, 'x.yaml')).toThrow(/^x\.yaml:2:3: executions\.__proto__: a key named __proto__/);
    expect(() => loadYaml('__proto__: { a: 1 }\n', schema, 'x.yaml')).toThrow(/^x\.yaml:1:1: __proto__: a key named __proto__/);
    // A model's arguments are data: such a key is kept, as an own key (also where a union may take free data).
    const read = loadYaml('args: { __proto__: { admin: true }, id: 1 }\n', schema, 'x.yaml') as { args: object };
    expect(Object.keys(read.args)).toEqual(['__proto__', 'id']);
    const either = z.object({ args: z.union([z.string(), z.unknown()]) });
    expect(Object.keys((loadYaml('args: { __proto__: 1 }\n', either, 'x.yaml') as { args: object }).args)).toEqual(['__proto__']);
    const map = z.object({ counts: z.union([z.literal('none'), z.record(z.string(), z.number())]) });
    expect(() => loadYaml('counts: { __proto__: 1 }\n', map, 'x.yaml')).toThrow(/counts\.__proto__: a key named __proto__/);
  });

  it('refuses duplicate keys', () => {
    expect(issues('name: a\nname: b\nbudgets: { maxSteps: 1 }\n')[0]!.message).toMatch(/^YAML: key "name" is given twice/);
  });
});

describe('loadYaml: merge keys, several documents, a key given twice', () => {
  const merged = z.strictObject({ name: z.string(), budgets: z.strictObject({ maxSteps: z.number(), maxTokens: z.number().optional() }) });

  it('reads a merge key (<<: *anchor) as YAML 1.1 does: the anchored map’s keys, the own keys winning', () => {
    const text = 'name: &n a\nbudgets:\n  <<: &b { maxSteps: 3, maxTokens: 9 }\n  maxSteps: 5\n';
    expect(loadYaml(text, merged, 'agent.yaml')).toEqual({ name: 'a', budgets: { maxSteps: 5, maxTokens: 9 } });
    expect(loadYaml('name: a\nbudgets: { <<: [{ maxSteps: 1 }, { maxTokens: 2 }] }\n', merged, 'agent.yaml')).toEqual({
      name: 'a',
      budgets: { maxSteps: 1, maxTokens: 2 },
    });
  });

  it('top-level keys starting with x- are the file’s own: anchors to reuse, then left out', () => {
    const text = 'x-steps: &steps { maxSteps: 3 }\nx-note: anything at all\nname: a\nbudgets:\n  <<: *steps\n';
    expect(loadYaml(text, merged, 'agent.yaml')).toEqual({ name: 'a', budgets: { maxSteps: 3 } });
    expect(loadYaml('x-tool: &t { name: look }\nname: a\nbudgets: { maxSteps: 1 }\ntools: [*t, *t]\n', schema, 'agent.yaml')).toEqual({
      name: 'a',
      budgets: { maxSteps: 1 },
      tools: [{ name: 'look' }, { name: 'look' }],
    });
    // Only at the top, and only x- with something after it: elsewhere an unknown key is still one.
    expect(issues('name: a\nbudgets: { maxSteps: 1, x-steps: 2 }\n')[0]).toMatchObject({
      field: 'budgets.x-steps',
      message: expect.stringMatching(/^unknown key/),
    });
    expect(issues('name: a\nbudgets: { maxSteps: 1 }\nx-: 1\n')[0]).toMatchObject({ field: 'x-', message: expect.stringMatching(/^unknown key/) });
    // A problem after an x- key is still named at its own line.
    expect(issues('x-a: 1\nx-b: 2\nname: a\nbudgets:\n  maxSteps: "ten"\n')[0]).toMatchObject({ line: 5, field: 'budgets.maxSteps' });
  });

  it('a merged key the schema does not know is still an unknown key', () => {
    const [issue] = issues('name: a\nbudgets:\n  <<: { maxSteps: 3, maxStep: 4 }\n');
    expect(issue).toMatchObject({ field: 'budgets.maxStep' });
    expect(issue!.message).toMatch(/^unknown key \(did you mean maxSteps\?\)/);
  });

  it('a file of several documents says how many, and that one is read', () => {
    const found = issues('name: a\n---\nname: b\n---\nname: c\n');
    expect(found).toEqual([
      {
        file: 'agent.yaml',
        line: 2,
        column: 1,
        field: '',
        message: 'the file holds 3 YAML documents (separated by ---); loopgate reads one: keep one per file',
      },
    ]);
  });

  it('a key given twice is named, with the line of its first', () => {
    const found = issues('name: a\nbudgets:\n  maxSteps: 3\nname: b\n');
    expect(found).toEqual([{ file: 'agent.yaml', line: 4, column: 1, field: '', message: 'YAML: key "name" is given twice (first at line 1); keep one' }]);
  });
});
