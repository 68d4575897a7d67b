/**
 * Source-preserving edits of a YAML document, on the `yaml` package's
 * concrete syntax tree: the nodes named are changed in place — a scalar's
 * value, a list's items — and every other byte of the file (comments, blank
 * lines, quoting, flow or block style, key order, indentation) is written back
 * as it was read. Only values that exist are edited; nothing is added.
 *
 * A changed scalar keeps its quoting when it had some; a plain one stays plain
 * only when the new value reads back as the same string, else it is quoted.
 * New list items take their neighbours' style.
 */
import { CST, parse as parseYaml, Parser, Scalar } from 'yaml';

export type YamlValue = string | number | readonly string[];

export interface YamlEdit {
  /** Keys from the document's root map, e.g. `['expect', 'history', 'exact']`. */
  readonly path: readonly string[];
  readonly value: YamlValue;
}

type Token = CST.Token;
type Item = CST.CollectionItem;
type SeqItem = CST.BlockSequence['items'][number];

export class YamlEditError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'YamlEditError';
  }
}

/** The text with every edit applied; throws YamlEditError when a path does not name an editable node. */
export function editYaml(text: string, edits: readonly YamlEdit[]): string {
  const tokens = [...new Parser().parse(text)];
  // New lines end as the file's lines do (CRLF stays CRLF).
  const eol = /\r\n/.test(text) ? '\r\n' : '\n';
  const doc = tokens.find((t): t is CST.Document => t.type === 'document');
  if (!doc?.value) throw new YamlEditError('the file holds no YAML document');
  for (const edit of edits) {
    const found = itemAt(doc.value, edit.path);
    if (!found?.item.value) throw new YamlEditError(`${edit.path.join('.')}: not in the file`);
    const { item, inFlow } = found;
    // A value inside `{ … }` is read by flow rules: `failed{internal}` must be quoted there, not in a block map.
    if (typeof edit.value === 'string' || typeof edit.value === 'number') setScalar(item.value!, edit.value, inFlow);
    else setList(item, edit.value, eol);
  }
  return tokens.map((t) => CST.stringify(t)).join('');
}

/** The map item at `path` (block or flow maps), and whether it sits inside a flow collection. */
function itemAt(root: Token, path: readonly string[]): { readonly item: Item; readonly inFlow: boolean } | undefined {
  let node: Token | undefined = root;
  let found: Item | undefined;
  let inFlow = false;
  for (const key of path) {
    if (!node || !isMap(node)) return undefined;
    inFlow ||= node.type === 'flow-collection';
    found = (node.items as Item[]).find((i) => i.key && CST.resolveAsScalar(i.key)?.value === key);
    node = found?.value;
  }
  return found && { item: found, inFlow };
}

function isMap(token: Token): token is CST.BlockMap | CST.FlowCollection {
  return token.type === 'block-map' || (token.type === 'flow-collection' && token.start.source === '{');
}

/** A node's shape in words, for a refusal (`found an alias (*o)`, not `found a alias`). */
function shapeOf(token: Token): string {
  if (token.type === 'alias') return `an alias (${token.source}); write the value out to update it`;
  if (token.type === 'flow-collection') return token.start.source === '{' ? 'a mapping' : 'a list';
  if (token.type === 'block-map') return 'a mapping';
  if (token.type === 'block-seq') return 'a list';
  if (isScalar(token)) return 'a scalar';
  return `${/^[aeiou]/.test(token.type) ? 'an' : 'a'} ${token.type}`;
}

function isScalar(token: Token): token is CST.FlowScalar | CST.BlockScalar {
  return token.type === 'scalar' || token.type === 'single-quoted-scalar' || token.type === 'double-quoted-scalar' || token.type === 'block-scalar';
}

function setScalar(token: Token, value: string | number, inFlow: boolean): void {
  if (!isScalar(token)) throw new YamlEditError(`expected a scalar, found ${shapeOf(token)}`);
  const current = CST.resolveAsScalar(token)?.type ?? Scalar.PLAIN;
  if (typeof value === 'number') {
    CST.setScalarValue(token, String(value), { inFlow, type: Scalar.PLAIN });
    return;
  }
  const type = scalarType(value, current, inFlow);
  if (type === Scalar.QUOTE_DOUBLE) {
    // One line, escaped: the library would fold a line break onto an indented next line, which a flow list may not have.
    Object.assign(token, { type: 'double-quoted-scalar', source: doubleQuoted(value) });
    delete (token as { props?: unknown }).props;
    return;
  }
  CST.setScalarValue(token, value, { inFlow, type });
}

/** A new scalar token for `value` (see setScalar for double quotes). */
function scalarToken(
  value: string,
  options: { indent: number; inFlow: boolean; type: Scalar.Type; end?: CST.SourceToken[] },
): CST.FlowScalar | CST.BlockScalar {
  if (options.type === Scalar.QUOTE_DOUBLE)
    return { type: 'double-quoted-scalar', offset: 0, indent: options.indent, source: doubleQuoted(value), ...(options.end ? { end: options.end } : {}) };
  return CST.createScalarToken(value, options);
}

/** A YAML double-quoted scalar on one line: JSON's string escapes are YAML's. */
function doubleQuoted(value: string): string {
  return JSON.stringify(value);
}

/** Plain when it reads back as the same string; else the quoting it had, or single quotes (double for control characters). */
function scalarType(value: string, current: Scalar.Type | null, inFlow: boolean): Scalar.Type {
  if (/[\u0000-\u001f\u007f]/.test(value)) return Scalar.QUOTE_DOUBLE;
  if (current === Scalar.QUOTE_DOUBLE || current === Scalar.QUOTE_SINGLE) return current;
  return readsBackPlain(value, inFlow) ? Scalar.PLAIN : Scalar.QUOTE_SINGLE;
}

function readsBackPlain(value: string, inFlow: boolean): boolean {
  if (value === '' || value !== value.trim()) return false;
  try {
    const back = parseYaml(inFlow ? `[${value}]` : `- ${value}\n`) as unknown;
    return Array.isArray(back) && back.length === 1 && back[0] === value;
  } catch {
    return false;
  }
}

function setList(item: Item, values: readonly string[], eol: string): void {
  const list = item.value!;
  if (list.type === 'block-seq') setBlockList(item, list, values, eol);
  else if (list.type === 'flow-collection' && list.start.source === '[') setFlowList(list, values);
  else throw new YamlEditError(`expected a list, found ${shapeOf(list)}`);
}

function setBlockList(item: Item, list: CST.BlockSequence, values: readonly string[], eol: string): void {
  if (values.length === 0) {
    // A block list cannot be empty: it becomes `[]` after the key.
    item.sep = [
      { type: 'map-value-ind', offset: 0, indent: 0, source: ':' },
      { type: 'space', offset: 0, indent: 0, source: ' ' },
    ];
    item.value = {
      type: 'flow-collection',
      offset: list.offset,
      indent: list.indent,
      start: { type: 'flow-seq-start', offset: 0, indent: 0, source: '[' },
      items: [],
      end: [
        { type: 'flow-seq-end', offset: 0, indent: 0, source: ']' },
        { type: 'newline', offset: 0, indent: 0, source: eol },
      ],
    };
    return;
  }
  const style = lastScalarType(list.items) ?? Scalar.PLAIN;
  const old = list.items.map((i) => (i.value && isScalar(i.value) ? CST.resolveAsScalar(i.value)?.value : undefined));
  // Lines that stayed keep their item (and its comments); a changed line is rewritten in the item it had.
  const items: SeqItem[] = alignment(old, values).map(({ from, value }): SeqItem => {
    if (from !== undefined) {
      const kept = list.items[from]!;
      if (old[from] !== value) setScalar(kept.value!, value, false);
      return kept;
    }
    return {
      start: [
        { type: 'space', offset: 0, indent: list.indent, source: ' '.repeat(list.indent) },
        { type: 'seq-item-ind', offset: 0, indent: list.indent, source: '-' },
        { type: 'space', offset: 0, indent: list.indent, source: ' ' },
      ],
      value: scalarToken(value, {
        indent: list.indent + 2,
        inFlow: false,
        type: scalarType(value, style, false),
        end: [{ type: 'newline', offset: 0, indent: 0, source: eol }],
      }),
    };
  });
  items.forEach((it, k) => {
    const marker = it.start.findIndex((t) => t.type === 'seq-item-ind');
    // The first item's indentation is the key's separator's; every other item brings its own.
    if (k === 0 && marker > 0) it.start.splice(0, marker);
    else if (k > 0 && marker === 0) it.start.unshift({ type: 'space', offset: 0, indent: list.indent, source: ' '.repeat(list.indent) });
    if (k < items.length - 1 && it.value && it.value.type !== 'block-scalar') ensureNewline(it.value as CST.FlowScalar, eol);
  });
  list.items = items;
}

/**
 * How the new lines map onto the old: the longest common subsequence stays
 * where it is; between two kept lines, the old lines left are rewritten with the
 * new ones in order, extra new lines are added, extra old ones dropped.
 */
function alignment(old: readonly (string | undefined)[], values: readonly string[]): { from?: number; value: string }[] {
  const n = old.length;
  const m = values.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) lcs[i]![j] = old[i] === values[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const out: { from?: number; value: string }[] = [];
  let i = 0;
  let j = 0;
  const gapOld: number[] = [];
  const gapNew: string[] = [];
  const flush = () => {
    gapNew.forEach((value, k) => out.push(k < gapOld.length ? { from: gapOld[k]!, value } : { value }));
    gapOld.length = 0;
    gapNew.length = 0;
  };
  while (i < n || j < m) {
    if (i < n && j < m && old[i] === values[j]) {
      flush();
      out.push({ from: i++, value: values[j++]! });
    } else if (j < m && (i >= n || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) gapNew.push(values[j++]!);
    else gapOld.push(i++);
  }
  flush();
  return out;
}

function setFlowList(list: CST.FlowCollection, values: readonly string[]): void {
  const style = lastScalarType(list.items) ?? Scalar.PLAIN;
  const separator = list.items.length > 1 ? list.items[list.items.length - 1]!.start : undefined;
  list.items.splice(values.length);
  values.forEach((value, i) => {
    const existing = list.items[i];
    if (existing?.value) {
      if (CST.resolveAsScalar(existing.value)?.value !== value) setScalar(existing.value, value, true);
      return;
    }
    const start: CST.SourceToken[] =
      i === 0
        ? []
        : separator
          ? separator.map((t) => ({ ...t }))
          : [
              { type: 'comma', offset: 0, indent: 0, source: ',' },
              { type: 'space', offset: 0, indent: 0, source: ' ' },
            ];
    list.items.push({ start, value: scalarToken(value, { indent: list.indent, inFlow: true, type: scalarType(value, style, true), end: [] }) });
  });
}

function lastScalarType(items: readonly Item[]): Scalar.Type | undefined {
  for (let i = items.length - 1; i >= 0; i--) {
    const value = items[i]!.value;
    if (value && isScalar(value)) return CST.resolveAsScalar(value)?.type ?? undefined;
  }
  return undefined;
}

function ensureNewline(token: CST.FlowScalar, eol: string): void {
  const end = (token.end ??= []);
  if (!end.some((t) => t.type === 'newline')) end.push({ type: 'newline', offset: 0, indent: 0, source: eol });
}
