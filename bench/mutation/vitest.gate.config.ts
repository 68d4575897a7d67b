/**
 * vitest config of the "gate" judge: only bench/mutation/gate.judge.ts (the
 * bundled `loopgate run` and a bounded fuzz), no PostgreSQL (the gate needs none).
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['bench/mutation/gate.judge.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
