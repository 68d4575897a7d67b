/**
 * The system prompt is assembled per request from fragments (seed 000 §4), not kept
 * as one template that rots as modules add to it.
 *
 * - Order is by numeric priority, smaller first (identity −100, deployment 0, tool
 *   guidance 100+). Priority is what callers should rely on: registration order only
 *   breaks ties, and it depends on plugin load order, which drifts.
 * - A fragment's text is static, or a function called at every assembly, so dynamic
 *   context (working directory, open to-dos) is never hours stale.
 * - `register` returns its unregister: contributors come and go with sessions,
 *   sub-agents and plugins, and pairing the two stops leftovers piling up.
 * - An exclusive fragment drops every fragment after it in priority order — the
 *   "take over" exit for evals, reproductions and minimal sub-agents — unless its
 *   text is blank at that assembly (a dynamic take-over that is off for now).
 *
 * A dynamic fragment that throws does not crash assembly: it is left out and
 * reported in `errors`, and the caller decides whether that is fatal. Failing the
 * whole request would let one broken contributor take the agent down; leaving it
 * out silently would hide a prompt that is not what its authors think.
 */

export const PRIORITY = { identity: -100, deployment: 0, toolGuidance: 100 } as const;

export interface PromptFragment {
  /** Unique among registered fragments; recorded with each assembly. */
  readonly id: string;
  readonly priority: number;
  /** Static text, or a function called at each assembly. Empty text is skipped. */
  readonly text: string | (() => string);
  /** Drops every fragment after this one in priority order (not while its text is blank). */
  readonly exclusive?: boolean;
}

export interface AssembledPrompt {
  /** Fragments' texts joined by blank lines; empty ones skipped. */
  readonly system: string;
  /** The fragments whose text is in `system`, in order. With `system`, what the loop records (`prompt.assembled`). */
  readonly fragments: readonly { readonly id: string; readonly priority: number }[];
  /** Ids dropped by an exclusive fragment. */
  readonly dropped: readonly string[];
  /** Dynamic fragments that threw or returned something other than text; left out of `system`. */
  readonly errors: readonly { readonly id: string; readonly message: string }[];
}

export class PromptFragmentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PromptFragmentError';
  }
}

interface Entry {
  readonly fragment: PromptFragment;
  readonly order: number;
}

export class PromptAssembler {
  readonly #entries = new Map<string, Entry>();
  #nextOrder = 0;
  #sorted: Entry[] | undefined;
  /** The assembly while every fragment is static (it cannot change until a fragment comes or goes). */
  #static: AssembledPrompt | undefined;

  /** Adds a fragment; returns its unregister (idempotent, and it never removes a later fragment with the same id). */
  register(fragment: PromptFragment): () => void {
    const entry: Entry = { fragment: checked(fragment), order: this.#nextOrder++ };
    if (this.#entries.has(entry.fragment.id)) {
      throw new PromptFragmentError(`prompt fragment "${entry.fragment.id}" is already registered; unregister it first or use another id`);
    }
    this.#entries.set(entry.fragment.id, entry);
    this.#sorted = undefined;
    this.#static = undefined;
    return () => {
      // Only this registration: after unregister + re-register, the old handle is inert.
      if (this.#entries.get(entry.fragment.id) === entry) {
        this.#entries.delete(entry.fragment.id);
        this.#sorted = undefined;
        this.#static = undefined;
      }
    };
  }

  /** Registered ids in assembly order. */
  ids(): string[] {
    return this.#ordered().map((e) => e.fragment.id);
  }

  /** The prompt as of now. Frozen; while every fragment is static, the same object each time. */
  assemble(): AssembledPrompt {
    if (this.#static) return this.#static;
    const assembled = this.#assemble();
    if (this.#ordered().every((e) => typeof e.fragment.text === 'string')) this.#static = assembled;
    return assembled;
  }

  #assemble(): AssembledPrompt {
    const texts: string[] = [];
    const fragments: { id: string; priority: number }[] = [];
    const dropped: string[] = [];
    const errors: { id: string; message: string }[] = [];
    let exclusiveSeen = false;
    for (const { fragment } of this.#ordered()) {
      if (exclusiveSeen) {
        dropped.push(fragment.id);
        continue;
      }
      const text = resolve(fragment, errors);
      // An exclusive fragment takes over even if its own text fails: the take-over
      // is the registration's promise, not its text's. A blank text says it has
      // nothing to say now ("take over while a freeze is on"): it takes nothing over.
      const blank = text !== undefined && text.trim() === '';
      if (fragment.exclusive && !blank) exclusiveSeen = true;
      if (text === undefined || blank) continue;
      texts.push(text);
      fragments.push({ id: fragment.id, priority: fragment.priority });
    }
    return Object.freeze({
      system: texts.join('\n\n'),
      fragments: Object.freeze(fragments.map((f) => Object.freeze(f))),
      dropped: Object.freeze(dropped),
      errors: Object.freeze(errors.map((e) => Object.freeze(e))),
    });
  }

  #ordered(): Entry[] {
    this.#sorted ??= [...this.#entries.values()].sort((a, b) => a.fragment.priority - b.fragment.priority || a.order - b.order);
    return this.#sorted;
  }
}

function resolve(fragment: PromptFragment, errors: { id: string; message: string }[]): string | undefined {
  if (typeof fragment.text === 'string') return fragment.text;
  try {
    const text: unknown = fragment.text();
    if (typeof text === 'string') return text;
    errors.push({ id: fragment.id, message: `dynamic fragment returned ${text === null ? 'null' : typeof text}, not text` });
  } catch (error) {
    errors.push({ id: fragment.id, message: `dynamic fragment threw: ${error instanceof Error ? error.message : String(error)}` });
  }
  return undefined;
}

/** A frozen copy, so changing the object passed in later changes nothing. */
function checked(fragment: PromptFragment): PromptFragment {
  if (fragment === null || typeof fragment !== 'object') throw new PromptFragmentError('a prompt fragment must be an object with id, priority and text');
  const { id, priority, text, exclusive } = fragment;
  const where = typeof id === 'string' && id !== '' ? `prompt fragment "${id}"` : 'prompt fragment';
  if (typeof id !== 'string' || id.trim() === '') throw new PromptFragmentError(`${where}: id must be a non-empty string`);
  if (typeof priority !== 'number' || !Number.isFinite(priority)) {
    throw new PromptFragmentError(
      `${where}: priority must be a finite number (identity ${PRIORITY.identity}, deployment ${PRIORITY.deployment}, tool guidance ${PRIORITY.toolGuidance}+)`,
    );
  }
  if (typeof text !== 'string' && typeof text !== 'function') throw new PromptFragmentError(`${where}: text must be a string or a function returning one`);
  if (exclusive !== undefined && typeof exclusive !== 'boolean') throw new PromptFragmentError(`${where}: exclusive must be a boolean`);
  return Object.freeze(exclusive === undefined ? { id, priority, text } : { id, priority, text, exclusive });
}
