/**
 * Is this run under CI? `CI` set to anything but "", "false" or "0" — the same
 * reading as the test helpers' (src/stores/postgres-store-testing.ts), so
 * `CI=false`, as people write to turn CI behaviour off, is outside CI.
 */
export function underCi(env: NodeJS.ProcessEnv): boolean {
  const ci = env.CI;
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
}
