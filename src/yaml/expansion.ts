/**
 * What a YAML document becomes once its aliases are expanded, counted on the
 * syntax tree before any data is built: nodes, scalar characters and depth,
 * each against its limit. Linear in the size of the document (an anchored
 * node's expanded size is computed once), so an alias bomb is refused in
 * milliseconds instead of growing to gigabytes. Also finds what `toJS` would
 * throw on: an alias with no anchor before it, and one inside its own anchor.
 */
import { depthMessage } from './limits.ts';
import { isAlias, isMap, isPair, isScalar, isSeq, type Alias, type Document, type Node } from 'yaml';

export interface ExpansionLimits {
  readonly expandedNodes: number;
  readonly expandedChars: number;
  readonly depth: number;
}

export interface ExpansionProblem {
  /** Where to point: the node or alias at fault. */
  readonly offset: number;
  readonly message: string;
}

interface Size {
  nodes: number;
  chars: number;
}

class Stop {
  readonly problem: ExpansionProblem;
  constructor(problem: ExpansionProblem) {
    this.problem = problem;
  }
}

const offsetOf = (node: unknown): number => (node as { range?: [number, number, number] } | null)?.range?.[0] ?? 0;

export function expansionProblem(doc: Document, limits: ExpansionLimits): ExpansionProblem | undefined {
  const anchors = new Map<string, Node>();
  const targets = new Map<Alias, Node>();
  const anchored: Node[] = [];
  const children = (node: Node): unknown[] => (isMap(node) ? node.items.flatMap((pair) => [pair.key, pair.value]) : isSeq(node) ? node.items : []);

  // Document order, anchors before what they contain: an alias refers to the last anchor of its name before it.
  const walk = (value: unknown, depth: number): void => {
    if (value === null || value === undefined) return;
    if (isPair(value)) {
      walk(value.key, depth);
      walk(value.value, depth);
      return;
    }
    if (isAlias(value)) {
      const target = anchors.get(value.source);
      if (target === undefined) throw new Stop({ offset: offsetOf(value), message: `alias *${value.source} has no anchor &${value.source} before it` });
      targets.set(value, target);
      return;
    }
    if (depth > limits.depth) throw new Stop({ offset: offsetOf(value), message: depthMessage(limits.depth) });
    const node = value as Node;
    if (node.anchor) {
      anchors.set(node.anchor, node);
      anchored.push(node);
    }
    for (const child of children(node)) walk(child, depth + 1);
  };

  const memo = new Map<Node, Size>();
  const inProgress = new Set<Node>();
  const over = (size: Size, at: unknown): void => {
    if (size.nodes > limits.expandedNodes)
      throw new Stop({
        offset: offsetOf(at),
        message: `aliases expand this document to more than ${limits.expandedNodes} nodes (the limit); write the repeated parts out, or repeat them less`,
      });
    if (size.chars > limits.expandedChars)
      throw new Stop({
        offset: offsetOf(at),
        message: `aliases expand this document to more than ${limits.expandedChars} characters of text (the limit); write the repeated parts out, or repeat them less`,
      });
  };
  const sizeOf = (value: unknown): Size => {
    if (value === null || value === undefined) return { nodes: 0, chars: 0 };
    if (isAlias(value)) {
      const target = targets.get(value)!;
      if (inProgress.has(target)) throw new Stop({ offset: offsetOf(value), message: `alias *${value.source} is inside the node it refers to (a cycle)` });
      return sizeOf(target);
    }
    const node = value as Node;
    const known = memo.get(node);
    if (known) return known;
    inProgress.add(node);
    const size: Size = { nodes: 1, chars: isScalar(node) ? String(node.value ?? '').length : 0 };
    for (const child of children(node)) {
      const s = sizeOf(child);
      size.nodes += s.nodes;
      size.chars += s.chars;
      over(size, isAlias(child) ? child : node);
    }
    inProgress.delete(node);
    memo.set(node, size);
    return size;
  };

  try {
    walk(doc.contents, 1);
    // Anchored nodes first, in document order: an alias's target is then always counted already (or is an ancestor: a cycle).
    for (const node of anchored) sizeOf(node);
    over(sizeOf(doc.contents), doc.contents);
  } catch (error) {
    if (error instanceof Stop) return error.problem;
    throw error;
  }
  return undefined;
}
