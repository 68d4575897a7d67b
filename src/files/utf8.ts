/**
 * Strict UTF-8: text input is decoded without replacement characters, and an
 * invalid sequence is reported with its byte offset instead of turning into
 * U+FFFD without a word.
 */
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** The text, or the byte offset of the first invalid sequence. */
export function decodeUtf8(bytes: Uint8Array): { text: string } | { invalidAt: number } {
  try {
    return { text: decoder.decode(bytes) };
  } catch {
    return { invalidAt: firstInvalidUtf8(bytes) };
  }
}

/** Byte offset of the first byte that does not start a valid UTF-8 sequence (RFC 3629), or -1. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) need = 2;
    else if (b >= 0xf0 && b <= 0xf4) need = 3;
    else return i;
    // The second byte's range excludes overlong forms, surrogates and code points above U+10FFFF.
    const min = b === 0xe0 ? 0xa0 : b === 0xf0 ? 0x90 : 0x80;
    const max = b === 0xed ? 0x9f : b === 0xf4 ? 0x8f : 0xbf;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      const lo = k === 1 ? min : 0x80;
      const hi = k === 1 ? max : 0xbf;
      if (c === undefined || c < lo || c > hi) return i;
    }
    i += need + 1;
  }
  return -1;
}
