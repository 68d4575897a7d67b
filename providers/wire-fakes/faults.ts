/**
 * Stream faults as transformations of a well-formed frame list, so every
 * provider's protocol gets the same faults in its own bytes.
 */
import type { Frame, FrameTag } from './plan.ts';
import { UnsupportedOnWire } from './turn.ts';

/** The frames without those tagged `tags` (e.g. a stream missing its end). */
export function withoutTags(frames: readonly Frame[], tags: readonly FrameTag[]): Frame[] {
  return frames.filter((f) => !tags.includes(f.tag));
}

/** The frames joined into one, sent in one network read (tagged as the last); none when there are none. */
export function inOneRead(frames: readonly Frame[]): Frame[] {
  const last = frames.at(-1);
  return last ? [{ text: frames.map((f) => f.text).join(''), tag: last.tag }] : [];
}

/** Every frame tagged `tags` sent twice in a row. */
export function duplicated(frames: readonly Frame[], tags: readonly FrameTag[]): Frame[] {
  return frames.flatMap((f) => (tags.includes(f.tag) ? [f, f] : [f]));
}

/** The frames up to and including the `n`-th (1-based) frame tagged `tag`; all frames when there are fewer. */
export function upToNth(frames: readonly Frame[], tag: FrameTag, n = 1): Frame[] {
  let seen = 0;
  for (let i = 0; i < frames.length; i++) {
    if (frames[i]!.tag === tag && ++seen === n) return frames.slice(0, i + 1);
  }
  return [...frames];
}

/** The frames tagged `tag` moved to just after the first frame tagged `after` (left where they are when there is none). */
export function movedAfter(frames: readonly Frame[], tag: FrameTag, after: FrameTag): Frame[] {
  const rest = frames.filter((f) => f.tag !== tag);
  const i = rest.findIndex((f) => f.tag === after);
  if (i < 0) return [...frames];
  return [...rest.slice(0, i + 1), ...frames.filter((f) => f.tag === tag), ...rest.slice(i + 1)];
}

/** `extra` inserted right after the first frame tagged `tag` (at the end when there is none). */
export function insertAfter(frames: readonly Frame[], tag: FrameTag, extra: Frame): Frame[] {
  const i = frames.findIndex((f) => f.tag === tag);
  if (i < 0) return [...frames, extra];
  return [...frames.slice(0, i + 1), extra, ...frames.slice(i + 1)];
}

/**
 * A frame like the first tagged `tag` (its SSE event name, if any) whose data is the JSON `null`, inserted right
 * after it (at the end when there is none): what a gateway that writes an empty event as `data: null` sends.
 */
export function nullDataAfter(frames: readonly Frame[], tag: FrameTag): Frame[] {
  const like = frames.find((f) => f.tag === tag) ?? frames.at(-1);
  const eventLine = like?.text.split('\n').find((line) => line.startsWith('event: '));
  return insertAfter(frames, tag, { text: `${eventLine ? `${eventLine}\n` : ''}data: null\n\n`, tag: 'other' });
}

/**
 * Each frame with the `index` of its event's own data left out (a proxy that re-serializes the events it does not
 * know); frames whose data carries none as they are. Throws UnsupportedOnWire when no event carries one.
 */
export function withoutIndexes(frames: readonly Frame[]): Frame[] {
  let changed = false;
  const out = frames.map((frame) => {
    const lines = frame.text.split('\n').map((line) => {
      if (!line.startsWith('data: ')) return line;
      let data: unknown;
      try {
        data = JSON.parse(line.slice(6));
      } catch {
        return line;
      }
      if (data === null || typeof data !== 'object' || Array.isArray(data) || !('index' in data)) return line;
      const { index: _index, ...rest } = data as Record<string, unknown>;
      changed = true;
      return `data: ${JSON.stringify(rest)}`;
    });
    return { ...frame, text: lines.join('\n') };
  });
  if (!changed) throw new UnsupportedOnWire('no event of this protocol carries an index of its own');
  return out;
}
