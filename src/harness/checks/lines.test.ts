import { describe, expect, it } from 'vitest';
import { matchLines } from './lines.ts';

describe('matchLines', () => {
  it('names the first line that differs, with both texts', () => {
    const [check] = matchLines('trace', ['turn:ok', 'turn > tool:error'], { exact: ['turn:ok', 'turn > tool:ok'] });
    expect(check).toMatchObject({ passed: false, message: 'line 2 differs: expected "turn > tool:ok", got "turn > tool:error"' });
    const [short] = matchLines('trace', ['turn:ok'], { exact: ['turn:ok', 'turn > tool:ok'] });
    expect(short!.message).toBe('line 2 differs: expected "turn > tool:ok", got (no line)');
  });
});
