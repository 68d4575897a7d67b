/**
 * The keys a zod schema knows at a path of the data: what an "unknown key"
 * error lists, with the closest one as a did-you-mean. Best effort — it walks
 * objects, arrays, records, optionals, defaults and unions — and an empty list
 * when the schema there cannot be told.
 */
import type { z } from 'zod';

interface Def {
  readonly type?: string;
  readonly shape?: Record<string, z.ZodType>;
  readonly innerType?: z.ZodType;
  readonly element?: z.ZodType;
  readonly valueType?: z.ZodType;
  readonly options?: readonly z.ZodType[];
  readonly in?: z.ZodType;
  readonly out?: z.ZodType;
  readonly left?: z.ZodType;
  readonly right?: z.ZodType;
  readonly entries?: Record<string, string | number>;
  readonly values?: readonly unknown[];
}

function defOf(schema: z.ZodType): Def {
  return ((schema as unknown as { _zod?: { def?: Def } })._zod?.def ?? {}) as Def;
}

/** The object schemas among `schema`'s branches: a union's options, a pipe's two ends, an intersection's sides. */
function objectsIn(schema: z.ZodType): z.ZodType[] {
  const bare = unwrapped(schema);
  const def = defOf(bare);
  switch (def.type) {
    case 'object':
      return [bare];
    case 'union':
      return (def.options ?? []).flatMap(objectsIn);
    case 'pipe': // .transform() checks with `in`, z.preprocess with `out`
      return [def.in, def.out].flatMap((o) => (o ? objectsIn(o) : []));
    case 'intersection':
      return [def.left, def.right].flatMap((o) => (o ? objectsIn(o) : []));
  }
  return [];
}

/** The keys the schema accepts for the object at `path`, sorted. */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  const keys = new Set<string>();
  for (const s of anyAt(schema, path).flatMap(objectsIn)) for (const key of Object.keys(defOf(s).shape ?? {})) keys.add(key);
  return [...keys].sort();
}

/** The schema itself with its wrappers taken off (optional, default, …): what a value there is checked as. */
function unwrapped(schema: z.ZodType): z.ZodType {
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
    case 'nonoptional':
      return def.innerType ? unwrapped(def.innerType) : schema;
  }
  return schema;
}

/** The schemas the data at `path` may have been checked against, of any kind (unions walked, not expanded). */
function anyAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType[] {
  const bare = unwrapped(schema);
  const def = defOf(bare);
  if (path.length === 0) return [bare];
  if (def.type === 'union') return (def.options ?? []).flatMap((o) => anyAt(o, path));
  if (def.type === 'pipe') return [def.in, def.out].flatMap((o) => (o ? anyAt(o, path) : []));
  if (def.type === 'intersection') return [def.left, def.right].flatMap((o) => (o ? anyAt(o, path) : []));
  const [head, ...rest] = path;
  if (def.type === 'object') {
    const next = def.shape?.[String(head)];
    return next ? anyAt(next, rest) : [];
  }
  if (def.type === 'array' && def.element) return anyAt(def.element, rest);
  if (def.type === 'record' && def.valueType) return anyAt(def.valueType, rest);
  return [];
}

/**
 * What each branch of the union at `path` accepts, one short text each — `"ok"`, `boolean`,
 * `{ slow, abortable }` — with nested unions flattened; empty when no union can be told there.
 */
export function branchesAt(schema: z.ZodType, path: readonly PropertyKey[]): { readonly texts: string[]; readonly words: string[] } {
  const texts: string[] = [];
  const words: string[] = [];
  const add = (option: z.ZodType): void => {
    const bare = unwrapped(option);
    const def = defOf(bare);
    if (def.type === 'union') return (def.options ?? []).forEach(add);
    if (def.type === 'enum' || def.type === 'literal') {
      const values = def.type === 'enum' ? Object.values(def.entries ?? {}) : (def.values ?? []);
      for (const value of values) {
        texts.push(JSON.stringify(value));
        if (typeof value === 'string') words.push(value);
      }
      return;
    }
    if (def.type === 'object') return void texts.push(`{ ${Object.keys(def.shape ?? {}).join(', ')} }`);
    if (def.type === 'pipe') return add((def.in ?? bare) as z.ZodType);
    texts.push(def.type ?? 'a value');
  };
  for (const at of anyAt(schema, path)) if (defOf(at).type === 'union') add(at);
  return { texts: [...new Set(texts)], words };
}

/**
 * Whether zod rebuilds the map at `path` as an object or a record, and so drops a key named `__proto__` there (it
 * never copies one): true where the schema checks a map; false inside free data (`z.unknown()`: a model's arguments
 * keep such a key) or where the schema cannot be told.
 */
export function rebuildsMapAt(schema: z.ZodType, path: readonly PropertyKey[]): boolean {
  const kinds = anyAt(schema, path).flatMap(kindsOf);
  return kinds.some((k) => k === 'object' || k === 'record') && !kinds.some((k) => k === 'unknown' || k === 'any');
}

/** The kinds of value a schema accepts, its unions, pipes and intersections opened. */
function kindsOf(schema: z.ZodType): string[] {
  const bare = unwrapped(schema);
  const def = defOf(bare);
  switch (def.type) {
    case 'union':
      return (def.options ?? []).flatMap(kindsOf);
    case 'pipe':
      return def.in ? kindsOf(def.in) : [];
    case 'intersection':
      return [def.left, def.right].flatMap((o) => (o ? kindsOf(o) : []));
  }
  return def.type ? [def.type] : [];
}
