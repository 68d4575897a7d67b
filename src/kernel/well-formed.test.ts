import { describe, expect, it } from 'vitest';
import { loneSurrogateAt } from './well-formed.ts';

describe('loneSurrogateAt', () => {
  it('finds half a surrogate pair, high or low, and passes whole pairs and plain text', () => {
    expect(loneSurrogateAt('Where is ORD-1001?')).toBeUndefined();
    expect(loneSurrogateAt('a kettle 🫖 arrived')).toBeUndefined();
    expect(loneSurrogateAt('lone \ud800 high')).toBe(5);
    expect(loneSurrogateAt('lone \udc00 low')).toBe(5);
    expect(loneSurrogateAt('ends with \ud83e')).toBe(10);
    expect(loneSurrogateAt('\udc00\ud800')).toBe(0);
  });
});
