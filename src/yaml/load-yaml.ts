/**
 * YAML validated by a zod schema, with errors that name the file, the line and
 * the field — for config files and scenario files alike. Bounded: the text's
 * size, and what its aliases expand to, are checked against `YAML_LIMITS`
 * before any data is built. Every problem is a `YamlValidationError`.
 */
import { LineCounter, parseAllDocuments, parseDocument, isMap, isNode, isScalar, isSeq, visit, type Node, type YAMLError } from 'yaml';
import type { z } from 'zod';
import { closestName, InputError } from '../kernel/index.ts';
import { knownKeysAt, rebuildsMapAt } from './known-keys.ts';
import { explainUnions } from './union-issues.ts';
import { expansionProblem } from './expansion.ts';
import { flowDepthProblem } from './flow-depth.ts';
import { unprintableProblem } from './printable.ts';
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
  const { data, error } = loadYamlPartly(text, schema, file);
  if (error) throw error;
  return data as z.infer<S>;
}

/**
 * What a file's schema problems leave checkable: the problems (`error`) and,
 * when the document read as YAML and leaving out the keys at fault makes it
 * valid, that valid remainder (`data`) — so a caller's own checks (a tool
 * name, an assertion) can report their problems in the same pass. Nothing is
 * left out of a list (the positions of what follows would shift), and a missing
 * key cannot be left out: then `data` is undefined. Without problems, `data` is
 * the document's value and `error` undefined. `raw`: the document as read, before
 * the schema (when it read as YAML) — for what a caller must know even of a field
 * at fault (a scenario's declared secrets, to keep them out of its error lines).
 */
export function loadYamlPartly<S extends z.ZodType>(
  text: string,
  schema: S,
  file: string,
): { readonly data: z.infer<S> | undefined; readonly error: YamlValidationError | undefined; readonly raw?: unknown } {
  let read: ReturnType<typeof readYaml>;
  try {
    read = readYaml(text, file);
  } catch (error) {
    if (error instanceof YamlValidationError) return { data: undefined, error };
    throw error;
  }
  const { doc, position } = read;
  // A key named __proto__ where zod rebuilds the map (an object, a record: `executions: { __proto__: 1 }`) is not
  // copied, so what it said would check nothing (outside probe 47, F2); inside free data (a model's arguments) it stays.
  const lost = protoKeysIn(doc.contents, []).filter((k) => rebuildsMapAt(schema, k.path.slice(0, -1)));
  if (lost.length > 0)
    return {
      data: undefined,
      error: new YamlValidationError(
        lost.map(({ offset, path }) => ({
          file,
          ...position(offset),
          field: formatPath(path),
          message: 'a key named __proto__ is not read as data here (it would be dropped, and check nothing); rename it',
        })),
      ),
      raw: read.data,
    };
  const data = withoutExtensions(read.data);
  const parsed = schema.safeParse(data);
  if (parsed.success) return { data: parsed.data, error: undefined, raw: data };
  // Point at the deepest node that exists on the path (a missing key points at its parent).
  const locate = (path: readonly PropertyKey[]) => {
    let node: unknown;
    for (let depth = path.length; depth >= 0; depth--) {
      node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth) as (string | number)[], true);
      if (isNode(node)) break;
    }
    return position(isNode(node) ? (node as Node).range?.[0] : undefined);
  };
  const issues = parsed.error.issues
    .flatMap((issue) => explainUnions(issue, schema, data))
    .flatMap((issue) => {
      const path = issue.path as PropertyKey[];
      if (issue.code === 'unrecognized_keys') return unknownKeys(doc, schema, path, issue.keys, file, position);
      // A clash names the other place too: `params: { firstAt: path }` on a custom issue.
      const firstAt = issue.code === 'custom' ? (issue.params?.firstAt as PropertyKey[] | undefined) : undefined;
      const message = firstAt ? `${issue.message} (first at line ${locate(firstAt).line}, ${formatPath(firstAt)})` : issue.message;
      return { file, ...locate(path), field: formatPath(path), message };
    });
  return { data: withoutFaults(data, parsed.error.issues, schema), error: new YamlValidationError(issues), raw: data };
}

/** A top-level key `x-…` is the file's own (a place for anchors to reuse, as in compose files): left out before the schema sees the data. */
export const EXTENSION_KEY = /^x-./;

function withoutExtensions(data: unknown): unknown {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return data;
  const keys = Object.keys(data);
  if (!keys.some((key) => EXTENSION_KEY.test(key))) return data;
  return Object.fromEntries(Object.entries(data).filter(([key]) => !EXTENSION_KEY.test(key)));
}

/** The document's value with the keys at fault left out, when that makes it valid; else undefined. */
function withoutFaults<S extends z.ZodType>(data: unknown, issues: readonly z.core.$ZodIssue[], schema: S): z.infer<S> | undefined {
  const copy = structuredClone(data);
  for (const issue of issues) {
    const paths = issue.code === 'unrecognized_keys' ? issue.keys.map((key) => [...issue.path, key]) : [issue.path];
    for (const path of paths) if (!leaveOut(copy, path)) return undefined;
  }
  const again = schema.safeParse(copy);
  return again.success ? again.data : undefined;
}

/** Deletes the object key at `path`; false when it is a list item, absent, or the whole document. */
function leaveOut(value: unknown, path: readonly PropertyKey[]): boolean {
  if (path.length === 0) return false;
  let parent = value;
  for (const key of path.slice(0, -1)) {
    if (parent === null || typeof parent !== 'object') return false;
    parent = (parent as Record<PropertyKey, unknown>)[key];
  }
  const last = path[path.length - 1]!;
  if (parent === null || typeof parent !== 'object' || Array.isArray(parent) || !Object.hasOwn(parent, last)) return false;
  delete (parent as Record<PropertyKey, unknown>)[last];
  return true;
}

/** How every YAML file loopgate reads is parsed: a key given twice is an error, merge keys are read. */
export const YAML_OPTIONS = { uniqueKeys: true, merge: true } as const;

/** A YAML error as one line in loopgate's words where the library's would puzzle: several documents, a key given twice. */
function syntaxMessage(
  error: YAMLError,
  doc: ReturnType<typeof parseDocument>,
  text: string,
  position: (offset: number | undefined) => { line: number; column: number },
): string {
  if (error.code === 'MULTIPLE_DOCS') {
    const count = parseAllDocuments(text, YAML_OPTIONS);
    const n = Array.isArray(count) ? count.length : 2;
    return `the file holds ${n} YAML documents (separated by ---); loopgate reads one: keep one per file`;
  }
  if (error.code === 'DUPLICATE_KEY') {
    const twice = keyGivenTwice(doc, error.pos[0]);
    if (twice) return `YAML: key ${JSON.stringify(twice.key)} is given twice (first at line ${position(twice.first).line}); keep one`;
  }
  return `YAML syntax: ${error.message.split('\n')[0]}`;
}

/** The key that starts at `offset` in some map, and where the same key first is in that map. */
function keyGivenTwice(doc: ReturnType<typeof parseDocument>, offset: number): { key: string; first: number } | undefined {
  let found: { key: string; first: number } | undefined;
  const keyOf = (node: unknown) => (isScalar(node) ? String(node.value) : undefined);
  visit(doc, {
    Map(_, map) {
      const at = map.items.find((pair) => isNode(pair.key) && pair.key.range?.[0] === offset);
      const key = keyOf(at?.key);
      if (key === undefined) return undefined;
      const first = map.items.find((pair) => keyOf(pair.key) === key);
      found = { key, first: (first?.key as Node | undefined)?.range?.[0] ?? offset };
      return visit.BREAK;
    },
  });
  return found;
}

/** The text as YAML: bounded, syntax-checked, aliases counted; throws `YamlValidationError`. */
/** Line and column (1-based) of an offset in a text not parsed: the lines up to it counted by hand. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  return { line: before.split('\n').length, column: offset - before.lastIndexOf('\n') };
}

function readYaml(text: string, file: string) {
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
  const unprintable = unprintableProblem(text);
  if (unprintable) throw new YamlValidationError([{ file, ...lineAndColumn(text, unprintable.offset), field: '', message: `YAML: ${unprintable.message}` }]);
  const deep = flowDepthProblem(text, YAML_LIMITS.depth);
  if (deep) {
    throw new YamlValidationError([{ file, ...lineAndColumn(text, deep.offset), field: '', message: `YAML: ${deep.message}` }]);
  }
  // Merge keys (`<<: *base`), as YAML 1.1 reads them: what people mean by them, and what other tools do.
  const doc = parseDocument(text, { ...YAML_OPTIONS, lineCounter, prettyErrors: false });
  // The composer catches its own stack overflow (nesting past what it can recurse) as this code.
  const exhausted = doc.errors.find((e) => e.code === 'RESOURCE_EXHAUSTION');
  if (exhausted) throw new YamlValidationError([{ file, ...position(exhausted.pos[0]), field: '', message: `YAML: ${depthMessage(YAML_LIMITS.depth)}` }]);
  if (doc.errors.length > 0) {
    throw new YamlValidationError(doc.errors.map((e) => ({ file, ...position(e.pos[0]), field: '', message: syntaxMessage(e, doc, text, position) })));
  }
  // A tag yaml cannot resolve (`!!js/function`, `!custom`) is only a warning there, the value read as plain text:
  // loopgate's files are plain data, so a tag is a mistake (or a file written for another tool) — said, not dropped.
  const tags = doc.warnings.filter((w) => w.code === 'TAG_RESOLVE_FAILED');
  if (tags.length > 0) {
    throw new YamlValidationError(
      tags.map((w) => ({
        file,
        ...position(w.pos[0]),
        field: '',
        message: `YAML: unknown tag ${text.slice(w.pos[0], w.pos[1])}: loopgate reads plain YAML (no tags); drop it`,
      })),
    );
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
  return { doc, data, position };
}

/** The keys named `__proto__` under `node`, each with its offset and path. */
function protoKeysIn(node: unknown, path: readonly PropertyKey[]): { offset: number | undefined; path: PropertyKey[] }[] {
  if (isMap(node))
    return node.items.flatMap((pair) => {
      const key = isScalar(pair.key) ? pair.key.value : undefined;
      const here = [...path, String(key)];
      const own = key === '__proto__' ? [{ offset: (pair.key as Node).range?.[0], path: here }] : [];
      return [...own, ...protoKeysIn(pair.value, here)];
    });
  if (isSeq(node)) return node.items.flatMap((item, i) => protoKeysIn(item, [...path, i]));
  return [];
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
