/**
 * What a tool returns is kept in the log, and the log takes plain JSON data only.
 * A JSON round trip is the conversion a reader would expect (Dates become ISO
 * strings via toJSON, `undefined` fields disappear); what JSON cannot express
 * (BigInt, cycles) is reported, not guessed at.
 */
export type PlainJson = { ok: true; value: unknown } | { ok: false; reason: string };

export function toPlainJson(value: unknown): PlainJson {
  if (value === undefined) return { ok: true, value: undefined };
  try {
    const text = JSON.stringify(value);
    // A function or symbol at the top level stringifies to undefined.
    if (text === undefined) return { ok: false, reason: `a ${typeof value} is not JSON data` };
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}
