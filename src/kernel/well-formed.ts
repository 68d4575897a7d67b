/**
 * Text a provider can take: well-formed UTF-16. Half a surrogate pair is no
 * character; a provider that refuses ill-formed Unicode would refuse the turn
 * that carries it, and every later one, the history carrying it on (outside
 * probe 29, F12). The kernel itself never makes such text (truncate.ts never
 * splits a pair); a message that holds some is refused where it comes in.
 */

/** The offset of the first lone surrogate in `text`, or undefined when it is well-formed. */
export function loneSurrogateAt(text: string): number | undefined {
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0xd800 || unit > 0xdfff) continue;
    const next = text.charCodeAt(i + 1);
    if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      i++;
      continue;
    }
    return i;
  }
  return undefined;
}
