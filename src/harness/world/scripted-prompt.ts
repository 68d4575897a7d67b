/**
 * The agent's prompt as the case runs it: the agent's own fragments, then the
 * scenario's (`prompt:` — static texts, dynamic scripts whose assembly may throw,
 * exclusive take-overs), an id the scenario reuses replacing the agent's.
 *
 * Every dynamic fragment — the agent's own too — is wrapped so the world sees
 * what each call of it gave (text, a throw, or something that is not text), and
 * each request the model receives is stamped with the calls made since the one
 * before. That is what lets `prompt-follows-fragments` assemble, on its own, the
 * system prompt each request should have carried and compare it with the one the
 * model actually received — not with what the loop recorded of it.
 */
import { PRIORITY, type Agent, type PromptFragment } from '../../kernel/index.ts';
import type { Scenario, ScenarioFragment } from '../scenario/schema.ts';
import type { FaultLog } from './fault-log.ts';

/** What one call of a dynamic fragment gave. */
export type FragmentCall = { readonly text: string } | { readonly threw: string } | { readonly returned: string };

/** A fragment as the world declared it to the loop, in registration order. */
export interface PromptPart {
  readonly id: string;
  readonly priority: number;
  readonly exclusive: boolean;
  /** The text of a static fragment; undefined for a dynamic one. */
  readonly text: string | undefined;
}

/** The system prompt of an agent with neither `system` nor fragments (both hosts' default; scenarios/README.md). */
export const DEFAULT_IDENTITY = 'You are a helpful assistant.';

export interface CasePrompt {
  /** The fragments in registration order (the identity `system` makes first, when there is one). */
  readonly parts: readonly PromptPart[];
  /** The dynamic fragments' calls made while each request was assembled (since the request before), by fragment id. */
  readonly callsAt: ReadonlyMap<object, ReadonlyMap<string, FragmentCall>>;
  /** The dynamic fragments that gave text at some call of the case (also one whose request never went out). */
  readonly gaveText: ReadonlySet<string>;
}

export class PromptRecorder {
  #since = new Map<string, FragmentCall>();
  readonly #callsAt = new Map<object, ReadonlyMap<string, FragmentCall>>();
  readonly #gaveText = new Set<string>();
  #parts: readonly PromptPart[] = [];

  /** The agent's prompt with every dynamic fragment recorded; remembers the parts. */
  recorded(agent: Agent): Pick<Agent, 'prompt'> {
    const fragments = (agent.prompt ?? []).map((f) => this.#wrap(f));
    const identity: PromptFragment[] =
      agent.system !== undefined || fragments.length === 0 ? [{ id: 'identity', priority: PRIORITY.identity, text: agent.system ?? DEFAULT_IDENTITY }] : [];
    this.#parts = [...identity, ...fragments].map((f) => ({
      id: f.id,
      priority: f.priority,
      exclusive: f.exclusive === true,
      text: typeof f.text === 'string' ? f.text : undefined,
    }));
    return agent.prompt ? { prompt: fragments } : {};
  }

  /** A request went out: it carries the calls made since the last one. */
  sent(request: object): void {
    this.#callsAt.set(request, this.#since);
    this.#since = new Map();
  }

  result(): CasePrompt {
    return { parts: this.#parts, callsAt: this.#callsAt, gaveText: this.#gaveText };
  }

  #wrap(fragment: PromptFragment): PromptFragment {
    const text = fragment.text;
    if (typeof text === 'string') return fragment;
    return {
      ...fragment,
      text: () => {
        let value: unknown;
        try {
          value = text();
        } catch (error) {
          this.#since.set(fragment.id, { threw: error instanceof Error ? error.message : String(error) });
          throw error;
        }
        this.#since.set(fragment.id, typeof value === 'string' ? { text: value } : { returned: value === null ? 'null' : typeof value });
        if (typeof value === 'string') this.#gaveText.add(fragment.id);
        return value as string;
      },
    };
  }
}

/** The agent's fragments with the scenario's added; a scenario fragment with an agent fragment's id replaces it. */
export function scenarioPrompt(own: readonly PromptFragment[] | undefined, specs: Scenario['prompt'], faults: FaultLog): readonly PromptFragment[] | undefined {
  if (!specs) return own;
  const added = specs.map((spec) => scriptedFragment(spec, faults));
  const replaced = new Set(added.map((f) => f.id));
  return [...(own ?? []).filter((f) => !replaced.has(f.id)), ...added];
}

function scriptedFragment(spec: ScenarioFragment, faults: FaultLog): PromptFragment {
  const base = { id: spec.id, priority: spec.priority, ...(spec.exclusive !== undefined ? { exclusive: spec.exclusive } : {}) };
  if (spec.text !== undefined) return { ...base, text: spec.text };
  const script = spec.dynamic!;
  let calls = 0;
  return {
    ...base,
    text: () => {
      const step = script[Math.min(calls, script.length - 1)]!;
      calls++;
      if (typeof step === 'string') return step;
      faults.record(`prompt fragment ${spec.id} throws`);
      throw new Error(step.throw);
    },
  };
}
