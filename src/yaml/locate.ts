/** Where a field sits in a YAML text (1-based line and column), for errors found after parsing. */
import { isNode, LineCounter, parseDocument } from 'yaml';
import { YAML_OPTIONS } from './load-yaml.ts';

export function locateInYaml(text: string, path: readonly (string | number)[]): { line: number; column: number } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { ...YAML_OPTIONS, lineCounter });
  // The deepest node that exists on the path.
  for (let depth = path.length; depth >= 0; depth--) {
    const node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
    if (isNode(node) && node.range) {
      const pos = lineCounter.linePos(node.range[0]);
      return { line: pos.line, column: pos.col };
    }
  }
  return { line: 1, column: 1 };
}
