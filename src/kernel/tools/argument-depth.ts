/**
 * Tool arguments are the model's data, and a model can nest them arbitrarily
 * deep (field failure: arguments nested ~3,000 levels deep overflow every
 * recursive walker — validation, copying, freezing, the log — and the turn ended
 * `failed{internal}`). Arguments deeper than `MAX_ARGUMENT_DEPTH` are refused with
 * `INVALID_ARGUMENTS` naming the limit, and what the log keeps of them is cut at
 * the limit. Both walks below stop at the limit, so they never recurse deeper
 * than it, whatever the input.
 */
import { setOwn } from '../redact/index.ts';

/** The deepest nesting of objects and arrays a tool call's arguments may have (the arguments object itself is level 1). */
export const MAX_ARGUMENT_DEPTH = 64;

/** What stands in for a value nested deeper than the limit, in what the log keeps. */
export const TOO_DEEP = `[nested deeper than ${MAX_ARGUMENT_DEPTH} levels: not kept]`;

/**
 * Does `value` nest objects or arrays deeper than `limit` levels? A cycle is not
 * depth (in-process callers may pass one; the log refuses it on its own terms),
 * and an object reached again no deeper than before is not walked again.
 */
export function nestedDeeperThan(value: unknown, limit = MAX_ARGUMENT_DEPTH): boolean {
  // Almost always a small tree: a plain walk bounded by the limit (and by a
  // budget of objects, against shared subtrees that would make it exponential)
  // answers "no" without any bookkeeping. A "yes" or a spent budget — which a
  // cycle or heavy sharing also gives — is settled by the exact walk.
  const budget = { left: QUICK_WALK_BUDGET };
  if (!boundedDeeper(value, 1, limit, budget)) return false;
  return deeper(value, 1, limit, new Set(), new Map());
}

/** Objects the quick walk may visit before it leaves the answer to the exact one. */
const QUICK_WALK_BUDGET = 10_000;

/** Does a walk from `value` (at `depth`) pass `limit` levels, or run out of budget? Cycles count as deep. */
function boundedDeeper(value: unknown, depth: number, limit: number, budget: { left: number }): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (depth > limit || --budget.left < 0) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (boundedDeeper(value[i], depth + 1, limit, budget)) return true;
    return false;
  }
  for (const key in value) {
    if (Object.hasOwn(value, key) && boundedDeeper((value as Record<string, unknown>)[key], depth + 1, limit, budget)) return true;
  }
  return false;
}

function deeper(value: unknown, depth: number, limit: number, path: Set<object>, passed: Map<object, number>): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (depth > limit) return true;
  if (path.has(value) || (passed.get(value) ?? 0) >= depth) return false;
  path.add(value);
  for (const child of Array.isArray(value) ? value : Object.values(value)) {
    if (deeper(child, depth + 1, limit, path, passed)) return true;
  }
  path.delete(value);
  passed.set(value, depth);
  return false;
}

/** A copy of `value` with everything nested deeper than `limit` levels replaced by TOO_DEEP; keys stay data (`__proto__` included). */
export function cutAtDepth(value: unknown, limit = MAX_ARGUMENT_DEPTH): unknown {
  return cut(value, 1, limit);
}

function cut(value: unknown, depth: number, limit: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth > limit) return TOO_DEEP;
  if (Array.isArray(value)) return value.map((v) => cut(v, depth + 1, limit));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) setOwn(out, key, cut((value as Record<string, unknown>)[key], depth + 1, limit));
  return out;
}
