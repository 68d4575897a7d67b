import { describe, expect, it } from 'vitest';
import { matchLines } from './lines.ts';

describe('matchLines', () => {
  it('names the first line that differs, with both texts', () => {
    const [check] = matchLines('trace', ['turn:ok', 'turn > tool:error'], { exact: ['turn:ok', 'turn > tool:ok'] });
    expect(check).toMatchObject({ passed: false, message: 'line 2 differs: expected "turn > tool:ok", got "turn > tool:error"' });
    const [short] = matchLines('trace', ['turn:ok'], { exact: ['turn:ok', 'turn > tool:ok'] });
    expect(short!.message).toBe('line 2 differs: expected "turn > tool:ok", got (no line)');
  });

  it('shows two long lines from where they part, so the cuts do not read alike', () => {
    const head = `user: result#look ok: ${'x'.repeat(150)}`;
    const [check] = matchLines('history', [`${head},"timeline":[]}`], { exact: [`${head}}`] });
    expect(check!.message).toBe(`line 1 differs at character ${head.length + 1}: expected "…${'x'.repeat(30)}}", got "…${'x'.repeat(30)},\\"timeline\\":[]}"`);
    const [early] = matchLines('history', [`user: a ${'y'.repeat(200)}`], { exact: [`user: b ${'y'.repeat(200)}`] });
    expect(early!.message).toBe(`line 1 differs: expected "user: b ${'y'.repeat(111)}…", got "user: a ${'y'.repeat(111)}…"`);
  });
});
