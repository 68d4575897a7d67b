/**
 * Where a tool's zod input schema changes the value it validates into something
 * else: a `.transform()` (also one piped on into another schema) or a codec. The
 * pipeline runs the tool with the parsed value, and the log records that value as
 * the call's arguments (what the tool ran with, what an approver is shown, what a
 * retry reuses); the model is offered the input side as JSON Schema. A schema whose
 * output is another shape than its input breaks that: the log would hold arguments
 * the offered schema refuses, and the gate (arguments-validated) could not tell a
 * transform from a pipeline that let bad arguments through. So the registry refuses
 * it, naming the place; the tool converts in `run()` instead.
 *
 * Also refused: a coercion piped after another schema (`z.string().pipe(z.coerce.number())`:
 * the model is offered the string). Accepted, since the parsed value still matches
 * the offered schema: defaults, `z.coerce` on its own, checks that overwrite (`.trim()`, `.toLowerCase()`), refinements, and
 * `z.preprocess` (a transform *before* its schema: zod offers that schema).
 */

interface Def {
  readonly type: string;
  readonly [key: string]: unknown;
}

function defOf(value: unknown): Def | undefined {
  if (value === null || typeof value !== 'object' || !('_zod' in value)) return undefined;
  const def = (value as { _zod?: { def?: unknown } })._zod?.def;
  return def !== null && typeof def === 'object' && typeof (def as { type?: unknown }).type === 'string' ? (def as Def) : undefined;
}

/** Whether `node`, or a schema it holds, coerces what it validates (`z.coerce.*`). */
function coerces(node: unknown, seen = new Set<unknown>()): boolean {
  const def = defOf(node);
  if (!def || seen.has(node)) return false;
  seen.add(node);
  if (def['coerce'] === true) return true;
  for (const [key, value] of Object.entries(def)) {
    if (key === 'type') continue;
    // An object's shape is a plain record of schemas; anything else is a schema or a list of them.
    const children = Array.isArray(value) ? value : value !== null && typeof value === 'object' && defOf(value) === undefined ? Object.values(value) : [value];
    if (children.some((child) => coerces(child, seen))) return true;
  }
  return false;
}

/** The first place `schema` transforms what it validates ("a .transform() at items"), or undefined. */
export function inputTransform(schema: unknown): string | undefined {
  const seen = new Set<unknown>();
  const visit = (node: unknown, path: string): string | undefined => {
    const def = defOf(node);
    if (!def || seen.has(node)) return undefined;
    seen.add(node);
    const at = path === '' ? 'the top level' : path;
    if (def.type === 'transform') return `a .transform() at ${at}`;
    if (def.type === 'pipe') {
      if (typeof def['transform'] === 'function') return `a codec at ${at}`;
      // z.preprocess: a transform before the schema the model is offered; its output is that schema's.
      const preprocess = defOf(def['in'])?.type === 'transform';
      const before = preprocess ? undefined : visit(def['in'], path);
      if (before) return before;
      // The model is offered the first schema; a coercion after it converts what it let through (a string into a
      // number): outside probe 42, F3.
      if (!preprocess && coerces(def['out'])) return `a coercion piped after another schema at ${at}`;
      return visit(def['out'], path);
    }
    if (def.type === 'lazy') {
      let inner: unknown;
      try {
        inner = (def['getter'] as () => unknown)();
      } catch {
        return undefined; // zod's own JSON Schema conversion reports a broken lazy
      }
      return visit(inner, path);
    }
    if (def.type === 'object') {
      const shape = def['shape'] as Record<string, unknown> | undefined;
      for (const key of Object.keys(shape ?? {})) {
        const found = visit(shape![key], path === '' ? key : `${path}.${key}`);
        if (found) return found;
      }
      return visit(def['catchall'], `${path}[*]`);
    }
    if (def.type === 'array') return visit(def['element'], `${path}[]`);
    if (def.type === 'record' || def.type === 'map') return visit(def['keyType'], `${path}{key}`) ?? visit(def['valueType'], `${path}[*]`);
    if (def.type === 'tuple') {
      const items = (def['items'] as unknown[] | undefined) ?? [];
      for (let i = 0; i < items.length; i++) {
        const found = visit(items[i], `${path}[${i}]`);
        if (found) return found;
      }
      return visit(def['rest'], `${path}[]`);
    }
    // Wrappers and combinators (optional, nullable, default, catch, readonly, union, intersection, …): every schema they hold.
    for (const [key, value] of Object.entries(def)) {
      if (key === 'type') continue;
      for (const child of Array.isArray(value) ? value : [value]) {
        const found = visit(child, path);
        if (found) return found;
      }
    }
    return undefined;
  };
  return visit(schema, '');
}
