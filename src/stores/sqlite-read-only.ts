/**
 * Opening a SQLite file to look, never to touch (`loopgate replay`, any reader):
 * no journal-mode switch, no table created, no `user_version` written — on
 * another application's file as on a store. With no WAL or rollback journal
 * beside the file nothing is in flight, so it is opened immutable and not even
 * `-wal`/`-shm` files appear; with one, SQLite's read-only mode reads what is
 * in flight too.
 */
import { existsSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { pathToFileURL } from 'node:url';

export function openSqliteReadOnly(path: string, timeoutMs: number): DatabaseSync {
  const inFlight = existsSync(`${path}-wal`) || existsSync(`${path}-journal`);
  if (inFlight) return new DatabaseSync(path, { readOnly: true, timeout: timeoutMs });
  const url = pathToFileURL(path);
  url.searchParams.set('mode', 'ro');
  url.searchParams.set('immutable', '1');
  return new DatabaseSync(url, { readOnly: true, timeout: timeoutMs });
}

/** Throws, saying why, unless the file holds loopgate's event table in a schema version this code reads. */
export function checkStoreSchema(db: DatabaseSync, schemaVersion: number): void {
  const version = Number((db.prepare('PRAGMA user_version').get() as { user_version: unknown }).user_version);
  if (version > schemaVersion) throw new Error(`the schema version is ${version}, newer than this loopgate understands (${schemaVersion})`);
  const table = db.prepare("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'events'").get();
  if (table === undefined) throw new Error('it holds no loopgate events table (is it a loopgate store?)');
}
