/**
 * The system prompt a request should carry, assembled here from the fragments
 * the world declared and what each dynamic one gave for that request — a second,
 * deliberately plain implementation of seed 000 §4, independent of the kernel's
 * PromptAssembler: smaller priority first (registration order breaks ties), empty
 * texts skipped, a dynamic fragment that threw (or gave no text) left out, and an
 * exclusive fragment dropping every fragment after it — even when its own text
 * failed, but not when it is blank (a fragment with nothing to say takes nothing
 * over). Fragments it drops must not even be asked for their text.
 */
import type { FragmentCall, PromptPart } from '../../world/scripted-prompt.ts';

export type ReferencePrompt = { readonly system: string } | { readonly problem: string };

export function referenceSystem(parts: readonly PromptPart[], calls: ReadonlyMap<string, FragmentCall>): ReferencePrompt {
  const ordered = parts.map((part, order) => ({ part, order }));
  ordered.sort((a, b) => (a.part.priority !== b.part.priority ? (a.part.priority < b.part.priority ? -1 : 1) : a.order - b.order));
  const texts: string[] = [];
  let takenOverBy: string | undefined;
  for (const { part } of ordered) {
    if (takenOverBy !== undefined) {
      if (part.text === undefined && calls.has(part.id))
        return { problem: `fragment "${part.id}" was asked for its text although the exclusive fragment "${takenOverBy}" drops it` };
      continue;
    }
    let text: string | undefined = part.text;
    if (text === undefined) {
      const call = calls.get(part.id);
      if (call === undefined) return { problem: `dynamic fragment "${part.id}" was not asked for its text` };
      text = 'text' in call ? call.text : undefined;
    }
    const blank = text !== undefined && text.trim() === '';
    if (text !== undefined && !blank) texts.push(text);
    // Blank text means "nothing from me now", so nothing is taken over; a text that failed still takes over.
    if (part.exclusive && !blank) takenOverBy = part.id;
  }
  return { system: texts.join('\n\n') };
}
