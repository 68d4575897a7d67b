import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'providers/**/*.test.ts', 'state-tables/**/*.test.ts', 'test/**/*.test.ts'],
    // A consumer project's own tests: run inside its installed copy by test/consumer/consumer.test.ts.
    exclude: [...configDefaults.exclude, 'test/consumer/fixture-project/**'],
    // A PostgreSQL server for the store tests when LOOPGATE_TEST_POSTGRES_URL names none.
    globalSetup: ['test/support/postgres-global-setup.ts'],
    // The crash and many-process tests spawn children; the default pool is fine for them.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
