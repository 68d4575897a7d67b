/**
 * Which tools the model may see now (seed 000 §5): layers applied in order —
 * global, then the current mode, then the sub-agent — each with an optional allow
 * list and deny list (exact names or `*` patterns).
 *
 * Every layer can only narrow what the layers before it left visible:
 * - an allow list intersects (a name outside it is hidden, and a later allow list
 *   cannot bring back a name an earlier one left out);
 * - a deny is irreversible (invariant 7): once a layer denies a name, no later
 *   layer's allow can lift it. "A later permission rule re-allows a denied tool" is
 *   a field failure this file exists to prevent.
 */
import { firstMatch } from './glob.ts';

export interface VisibilityLayer {
  /** Shown in explanations and policy records, e.g. `global`, `mode:research`, `subagent:triage`. */
  readonly name: string;
  /** When present, only these names (or patterns) stay visible. An empty list hides everything. */
  readonly allow?: readonly string[];
  /** These names (or patterns) are hidden, for this layer and every later one. */
  readonly deny?: readonly string[];
}

export type HiddenReason = {
  readonly layer: string;
  readonly reason: 'denied' | 'not_allowed';
  /** The deny pattern that matched, or `allow` for an allow list that left the name out. */
  readonly rule: string;
};

export interface Visibility {
  /** Visible names, in the order given. */
  readonly visible: readonly string[];
  isVisible(name: string): boolean;
  /** Why a name is hidden: the first layer and rule that hid it; undefined when visible. */
  explain(name: string): HiddenReason | undefined;
}

/** The three conventional layers, skipping the ones not given. */
export function standardLayers(layers: {
  global?: Omit<VisibilityLayer, 'name'>;
  mode?: Omit<VisibilityLayer, 'name'> & { name?: string };
  subAgent?: Omit<VisibilityLayer, 'name'> & { name?: string };
}): VisibilityLayer[] {
  const out: VisibilityLayer[] = [];
  if (layers.global) out.push({ ...layers.global, name: 'global' });
  if (layers.mode) out.push({ ...layers.mode, name: layers.mode.name ? `mode:${layers.mode.name}` : 'mode' });
  if (layers.subAgent) out.push({ ...layers.subAgent, name: layers.subAgent.name ? `subagent:${layers.subAgent.name}` : 'subagent' });
  return out;
}

export function resolveVisibility(names: readonly string[], layers: readonly VisibilityLayer[]): Visibility {
  checkLayers(layers);
  const hidden = new Map<string, HiddenReason>();
  for (const name of names) {
    const reason = hiddenBy(name, layers);
    if (reason) hidden.set(name, reason);
  }
  const visible = Object.freeze(names.filter((n) => !hidden.has(n)));
  const visibleSet = new Set(visible);
  return {
    visible,
    isVisible: (name) => visibleSet.has(name),
    // Names outside `names` are explained too, so a caller can ask about any name.
    explain: (name) => (visibleSet.has(name) ? undefined : (hidden.get(name) ?? hiddenBy(name, layers))),
  };
}

/**
 * Walks the layers in order and stops at the first that hides the name: nothing a
 * later layer says is consulted after that, which is what makes a deny final.
 */
function hiddenBy(name: string, layers: readonly VisibilityLayer[]): HiddenReason | undefined {
  for (const layer of layers) {
    const denied = layer.deny ? firstMatch(layer.deny, name) : undefined;
    if (denied !== undefined) return { layer: layer.name, reason: 'denied', rule: denied };
    if (layer.allow && firstMatch(layer.allow, name) === undefined) return { layer: layer.name, reason: 'not_allowed', rule: 'allow' };
  }
  return undefined;
}

function checkLayers(layers: readonly VisibilityLayer[]): void {
  layers.forEach((layer, i) => {
    const where = `visibility layer ${typeof layer?.name === 'string' && layer.name ? `"${layer.name}"` : `#${i}`}`;
    if (typeof layer?.name !== 'string' || layer.name === '') throw new Error(`${where}: name must be a non-empty string`);
    for (const key of ['allow', 'deny'] as const) {
      const list = layer[key];
      if (list === undefined) continue;
      if (!Array.isArray(list) || list.some((p) => typeof p !== 'string' || p === '')) {
        throw new Error(`${where}: ${key} must be a list of non-empty tool names or patterns`);
      }
    }
  });
}
