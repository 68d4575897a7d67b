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
}

function defOf(schema: z.ZodType): Def {
  return ((schema as unknown as { _zod?: { def?: Def } })._zod?.def ?? {}) as Def;
}

/** The object schemas the data at `path` may have been checked against. */
function schemasAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType[] {
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
    case 'nonoptional':
      return def.innerType ? schemasAt(def.innerType, path) : [];
    case 'pipe': // .transform() checks with `in`, z.preprocess with `out`
      return [def.in, def.out].flatMap((o) => (o ? schemasAt(o, path) : []));
    case 'union':
      return (def.options ?? []).flatMap((o) => schemasAt(o, path));
    case 'intersection':
      return [def.left, def.right].flatMap((o) => (o ? schemasAt(o, path) : []));
  }
  if (path.length === 0) return def.type === 'object' ? [schema] : [];
  const [head, ...rest] = path;
  if (def.type === 'object') {
    const next = def.shape?.[String(head)];
    return next ? schemasAt(next, rest) : [];
  }
  if (def.type === 'array' && def.element) return schemasAt(def.element, rest);
  if (def.type === 'record' && def.valueType) return schemasAt(def.valueType, rest);
  return [];
}

/** The keys the schema accepts for the object at `path`, sorted. */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  const keys = new Set<string>();
  for (const s of schemasAt(schema, path)) for (const key of Object.keys(defOf(s).shape ?? {})) keys.add(key);
  return [...keys].sort();
}
