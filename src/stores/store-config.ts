/** The `store` section of a host config: which EventStore to open, validated. */
import { z } from 'zod';

const positiveInt = z.number().int().positive();
/** The longest wait a Node timer keeps (pg's connect timeout is one): a longer one fires at once. */
const timerMs = positiveInt.max(2_147_483_647, { error: 'must be at most 2147483647 ms, about 24.8 days: a timer fires a longer wait at once' });
/** Connections one host may open: a PostgreSQL server serves a few hundred (max_connections defaults to 100). */
const connections = positiveInt.max(10_000, { error: 'must be at most 10000: a PostgreSQL server serves a few hundred connections (max_connections)' });

/**
 * The shared store for many hosts. The URL comes from `urlEnv` (the name of an
 * environment variable holding it) or from `url` without a password (pg then reads
 * PGPASSWORD): a password never sits in a config file.
 */
const postgresStoreSchema = z
  .strictObject({
    kind: z.literal('postgres'),
    url: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'a postgres:// URL')
      .refine(
        (url) => !hasPassword(url),
        'must not carry a password (config files get committed and shared): put the whole URL in an environment variable named by urlEnv, or set PGPASSWORD',
      )
      .optional(),
    urlEnv: z
      .string()
      .regex(/^[A-Z_][A-Z0-9_]*$/, 'an environment variable name')
      .optional(),
    /** The schema holding loopgate's tables (created if missing). */
    schema: z
      .string()
      .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'a lower-case SQL name')
      .default('public'),
    connectTimeoutMs: timerMs.default(5_000),
    poolSize: connections.default(10),
    maxLockConnections: connections.default(50),
  })
  .refine((store) => (store.url === undefined) !== (store.urlEnv === undefined), 'give exactly one of url and urlEnv');

function hasPassword(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.password !== '' || parsed.searchParams.has('password');
  } catch {
    return /^[a-z]+:\/\/[^/@]*:[^/@]*@/i.test(url);
  }
}

export const storeConfigSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('memory') }),
  z.strictObject({ kind: z.literal('sqlite'), path: z.string().min(1) }),
  postgresStoreSchema,
]);

export type StoreConfig = z.infer<typeof storeConfigSchema>;
