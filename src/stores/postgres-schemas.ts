/**
 * Schemas of their own on a PostgreSQL server, for whoever checks a store there
 * (the repository's tests, the gate's `contract:store/postgres` case): dropped
 * with everything in them once done. No test framework here: the gate loads it.
 */
import pg from 'pg';

/** Drops the schemas (and everything in them). */
export async function dropSchemas(url: string, schemas: readonly string[]): Promise<void> {
  if (schemas.length === 0) return;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema.replace(/"/g, '""')}" CASCADE`);
  } finally {
    await client.end();
  }
}
