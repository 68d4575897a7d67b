import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { editYaml, YamlEditError } from './yaml-edit.ts';

const TEXT = `# head comment
name: x   # trailing
expect:
  outcome: failed{max_steps}  # was wrong
  outcomes: [replied, 'cancelled{user}']
  history:
    # the whole history
    exact:
      - 'user: hi'
      # between
      - 'assistant: old'   # c
    # after the list
    count: 2
  trace:
    exact: [turn:ok]
description: >
  folded text that
  must survive
`;

describe('editYaml: nodes edited in place, every other byte kept', () => {
  it('rewrites a scalar, a flow list and a block list, keeping comments, quoting and folded text', () => {
    const out = editYaml(TEXT, [
      { path: ['expect', 'outcome'], value: 'replied' },
      { path: ['expect', 'outcomes'], value: ['replied', 'failed{auth}'] },
      { path: ['expect', 'history', 'exact'], value: ['user: hi', 'assistant: new', "assistant: it's #3", 'true'] },
      { path: ['expect', 'history', 'count'], value: 4 },
      { path: ['expect', 'trace', 'exact'], value: ['turn:ok', 'turn > model_call:ok'] },
    ]);
    expect(out).toBe(`# head comment
name: x   # trailing
expect:
  outcome: replied  # was wrong
  outcomes: [replied, 'failed{auth}']
  history:
    # the whole history
    exact:
      - 'user: hi'
      # between
      - 'assistant: new'   # c
      - 'assistant: it''s #3'
      - 'true'
    # after the list
    count: 4
  trace:
    exact: [turn:ok, turn > model_call:ok]
description: >
  folded text that
  must survive
`);
    // What it reads back as: strings stay strings ('true' is not a boolean), quotes are escaped.
    expect(parse(out).expect.history.exact).toEqual(['user: hi', 'assistant: new', "assistant: it's #3", 'true']);
  });

  // A value in a flow map was written by block rules: `{ outcome: failed{internal} }` does not parse, and --update
  // refused the whole file (review of stop 68: most bundled `turns.N` are flow maps).
  it('quotes a scalar inside a flow map as flow rules need, and leaves one that reads back plain as it is', () => {
    const text = 'expect:\n  turns:\n    1: { outcome: replied, requests: 1 }   # kept\n    "2": { outcome: replied }\n';
    const out = editYaml(text, [
      { path: ['expect', 'turns', '1', 'outcome'], value: 'failed{internal}' },
      { path: ['expect', 'turns', '1', 'requests'], value: 2 },
      { path: ['expect', 'turns', '2', 'outcome'], value: 'cancelled' },
    ]);
    expect(out).toBe('expect:\n  turns:\n    1: { outcome: \'failed{internal}\', requests: 2 }   # kept\n    "2": { outcome: cancelled }\n');
    expect(parse(out).expect.turns).toEqual({ 1: { outcome: 'failed{internal}', requests: 2 }, 2: { outcome: 'cancelled' } });
  });

  it('shortens lists, empties them to [], and quotes plain values that would read back as something else', () => {
    const out = editYaml(TEXT, [
      { path: ['expect', 'history', 'exact'], value: [] },
      { path: ['expect', 'outcomes'], value: ['replied'] },
      { path: ['name'], value: 'a: b' },
    ]);
    expect(out).toContain("name: 'a: b'   # trailing\n");
    expect(out).toContain('  outcomes: [replied]\n');
    expect(out).toContain('    # the whole history\n    exact: []\n    # after the list\n    count: 2\n');
    expect(parse(out).name).toBe('a: b');
  });

  it('writes a value with line breaks on one escaped line, in flow and block lists and as a scalar', () => {
    const multi = 'user: [Summary]\nEarlier: 3 messages. | Did anything go out?';
    const long = `${multi} ${'and on '.repeat(20)}`;
    const out = editYaml(TEXT, [
      { path: ['expect', 'trace', 'exact'], value: [long, 'turn:ok'] },
      { path: ['expect', 'history', 'exact'], value: ['user: hi', multi] },
      { path: ['name'], value: multi },
    ]);
    expect(out).toContain(`    exact: [${JSON.stringify(long)}, turn:ok]\n`);
    const back = parse(out);
    expect(back.expect.trace.exact).toEqual([long, 'turn:ok']);
    expect(back.expect.history.exact).toEqual(['user: hi', multi]);
    expect(back.name).toBe(multi);
  });

  it('keeps a line that stayed in its place with its comment when lines are inserted before it or dropped', () => {
    const text = 'exact:\n  - a # first\n  # about b\n  - b # kept\n  - c\n  - d # last\nafter: 1\n';
    // a dropped, x inserted before b, c rewritten to y, z added at the end.
    expect(editYaml(text, [{ path: ['exact'], value: ['x', 'b', 'y', 'd', 'z'] }])).toBe(
      'exact:\n  - x # first\n  # about b\n  - b # kept\n  - y\n  - d # last\n  - z\nafter: 1\n',
    );
    expect(editYaml(text, [{ path: ['exact'], value: ['b', 'd'] }])).toBe('exact:\n  - b # kept\n  - d # last\nafter: 1\n');
  });

  it('ends the lines it adds as the file ends its lines (CRLF)', () => {
    const text = 'a:\r\n  exact:\r\n    - one\r\n  # c\r\n  n: 1\r\n';
    expect(editYaml(text, [{ path: ['a', 'exact'], value: ['one', 'two', 'line\nbreak'] }])).toBe(
      'a:\r\n  exact:\r\n    - one\r\n    - two\r\n    - "line\\nbreak"\r\n  # c\r\n  n: 1\r\n',
    );
  });

  it('appends to a list that ends the file without a newline', () => {
    expect(editYaml('expect:\n  trace:\n    exact:\n      - turn:ok', [{ path: ['expect', 'trace', 'exact'], value: ['turn:ok', 'turn > tool:ok'] }])).toBe(
      'expect:\n  trace:\n    exact:\n      - turn:ok\n      - turn > tool:ok\n',
    );
  });

  it('refuses a path the file does not have, or a node of another shape', () => {
    expect(() => editYaml(TEXT, [{ path: ['expect', 'lastRequest', 'exact'], value: [] }])).toThrow(YamlEditError);
    expect(() => editYaml(TEXT, [{ path: ['expect', 'history'], value: ['x'] }])).toThrow(/^expected a list, found a mapping$/);
    const aliased = 'base: &o replied\nexpect:\n  outcome: *o\n  history: { exact: *o }\n';
    expect(() => editYaml(aliased, [{ path: ['expect', 'outcome'], value: 'failed' }])).toThrow(
      /^expected a scalar, found an alias \(\*o\); write the value out to update it$/,
    );
    expect(() => editYaml(aliased, [{ path: ['expect', 'history', 'exact'], value: ['x'] }])).toThrow(/^expected a list, found an alias \(\*o\)/);
  });
});
