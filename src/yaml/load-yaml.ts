/**
 * YAML validated by a zod schema, with errors that name the file, the line and
 * the field — for config files and scenario files alike. Bounded: the text's
 * size, and what its aliases expand to, are checked against `YAML_LIMITS`
 * before any data is built. Every problem is a `YamlValidationError`.
 */
import { LineCounter, parseDocument, isMap, isNode, isScalar, type Node } from 'yaml';
import type { z } from 'zod';
import { closestName, InputError } from '../kernel/index.ts';
import { knownKeysAt } from './known-keys.ts';
import { expansionProblem } from './expansion.ts';
import { flowDepthProblem } from './flow-depth.ts';
import { depthMessage, YAML_LIMITS } from './limits.ts';

export interface YamlIssue {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  /** Dotted path of the field, e.g. `budgets.maxSteps` or `tools[2].name`. */
  readonly field: string;
  readonly message: string;
}

export class YamlValidationError extends InputError {
  readonly issues: readonly YamlIssue[];
  constructor(issues: readonly YamlIssue[]) {
    super(issues.map(formatIssue).join('\n'));
    this.name = 'YamlValidationError';
    this.issues = issues;
  }
}

export function formatIssue(issue: YamlIssue): string {
  return `${issue.file}:${issue.line}:${issue.column}: ${issue.field ? `${issue.field}: ` : ''}${issue.message}`;
}

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

/** Parses and validates; throws `YamlValidationError` listing every problem found. */
export function loadYaml<S extends z.ZodType>(text: string, schema: S, file: string): z.infer<S> {
  if (text.length > YAML_LIMITS.bytes) {
    throw new YamlValidationError([
      { file, line: 1, column: 1, field: '', message: `${text.length} characters; a YAML file may be at most ${YAML_LIMITS.bytes} bytes` },
    ]);
  }
  const lineCounter = new LineCounter();
  const position = (offset: number | undefined) => {
    const pos = lineCounter.linePos(offset ?? 0);
    return { line: pos.line, column: pos.col };
  };
  const deep = flowDepthProblem(text, YAML_LIMITS.depth);
  if (deep) {
    // Not parsed: count the lines up to the place by hand.
    const before = text.slice(0, deep.offset);
    const line = before.split('\n').length;
    throw new YamlValidationError([{ file, line, column: deep.offset - before.lastIndexOf('\n'), field: '', message: `YAML: ${deep.message}` }]);
  }
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  // The composer catches its own stack overflow (nesting past what it can recurse) as this code.
  const exhausted = doc.errors.find((e) => e.code === 'RESOURCE_EXHAUSTION');
  if (exhausted) throw new YamlValidationError([{ file, ...position(exhausted.pos[0]), field: '', message: `YAML: ${depthMessage(YAML_LIMITS.depth)}` }]);
  if (doc.errors.length > 0) {
    throw new YamlValidationError(doc.errors.map((e) => ({ file, ...position(e.pos[0]), field: '', message: `YAML syntax: ${e.message.split('\n')[0]}` })));
  }
  const problem = expansionProblem(doc, YAML_LIMITS);
  if (problem) throw new YamlValidationError([{ file, ...position(problem.offset), field: '', message: `YAML: ${problem.message}` }]);
  let data: unknown;
  try {
    // Aliases were counted above, as what they expand to; yaml's own count (per alias, not per node) is not needed.
    data = doc.toJS({ maxAliasCount: -1 }) ?? {};
  } catch (error) {
    throw new YamlValidationError([{ file, line: 1, column: 1, field: '', message: `YAML: ${(error as Error).message}` }]);
  }
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  // Point at the deepest node that exists on the path (a missing key points at its parent).
  const locate = (path: readonly PropertyKey[]) => {
    let node: unknown;
    for (let depth = path.length; depth >= 0; depth--) {
      node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth) as (string | number)[], true);
      if (isNode(node)) break;
    }
    return position(isNode(node) ? (node as Node).range?.[0] : undefined);
  };
  const issues = parsed.error.issues.flatMap((issue) => {
    const path = issue.path as PropertyKey[];
    if (issue.code === 'unrecognized_keys') return unknownKeys(doc, schema, path, issue.keys, file, position);
    // A clash names the other place too: `params: { firstAt: path }` on a custom issue.
    const firstAt = issue.code === 'custom' ? (issue.params?.firstAt as PropertyKey[] | undefined) : undefined;
    const message = firstAt ? `${issue.message} (first at line ${locate(firstAt).line}, ${formatPath(firstAt)})` : issue.message;
    return { file, ...locate(path), field: formatPath(path), message };
  });
  throw new YamlValidationError(issues);
}

/** One issue per unknown key, at the key's own line: the closest known key, and every known one. */
function unknownKeys(
  doc: ReturnType<typeof parseDocument>,
  schema: z.ZodType,
  path: readonly PropertyKey[],
  keys: readonly string[],
  file: string,
  position: (offset: number | undefined) => { line: number; column: number },
): YamlIssue[] {
  const known = knownKeysAt(schema, path);
  const map = path.length === 0 ? doc.contents : doc.getIn(path as (string | number)[], true);
  return keys.map((key) => {
    const pair = isMap(map) ? map.items.find((p) => isScalar(p.key) && String(p.key.value) === key) : undefined;
    const at = isNode(pair?.key) ? (pair.key as Node).range?.[0] : isNode(map) ? (map as Node).range?.[0] : undefined;
    const near = closestName(key, known);
    const message = `unknown key${near ? ` (did you mean ${near}?)` : ''}${known.length ? `; known: ${known.join(', ')}` : ''}`;
    return { file, ...position(at), field: formatPath([...path, key]), message };
  });
}
