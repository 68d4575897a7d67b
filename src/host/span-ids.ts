/**
 * Random W3C ids for the production host's traces: a trace id per turn (when no
 * caller gave one) and a span id per span. Random bytes are drawn in blocks, so a
 * span id costs a few array reads instead of a call into the system's generator.
 */
import { randomFillSync } from 'node:crypto';

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const BLOCK = 4096;
const pool = new Uint8Array(BLOCK);
let used = BLOCK;

function hex(bytes: number): string {
  for (;;) {
    if (used + bytes > BLOCK) {
      randomFillSync(pool);
      used = 0;
    }
    let out = '';
    let zero = true;
    for (let i = 0; i < bytes; i++) {
      const b = pool[used++]!;
      if (b !== 0) zero = false;
      out += HEX[b];
    }
    if (!zero) return out; // all-zero ids are invalid in W3C trace context
  }
}

/** 32 lowercase hex digits, not all zero. */
export function randomTraceId(): string {
  return hex(16);
}

/** 16 lowercase hex digits, not all zero. */
export function randomSpanId(): string {
  return hex(8);
}
