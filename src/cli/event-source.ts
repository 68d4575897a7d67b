/**
 * Opens events for inspection from a SQLite store (`*.db`), a PostgreSQL store
 * (`postgres://user@host:5432/db`, optionally `?schema=name`; the password may come
 * from PGPASSWORD), or a file of records (JSON array or JSON lines), naming the
 * source and the problem when it cannot — a PostgreSQL URL always with its
 * password masked. Read-only throughout: a SQLite file is opened without being
 * created, migrated or written (its bytes stay as they were), a PostgreSQL
 * store without creating tables.
 */
import { statSync } from 'node:fs';
import { errnoText, fileKind, INPUT_LIMITS, readInputFile } from '../files/index.ts';
import { decodeRecords, type AnyEvent, type EventRecord } from '../kernel/index.ts';
import type { EventStore } from '../stores/event-store.ts';
import { PostgresEventStore } from '../stores/postgres-store.ts';
import { isPostgresUrl, maskPostgresUrl } from '../stores/postgres-store-url.ts';
import { SqliteEventStore } from '../stores/sqlite-store.ts';
import { UsageError } from './usage-error.ts';

export async function openEvents(path: string, conversation: string | undefined): Promise<{ conversation: string; events: AnyEvent[] }> {
  if (isPostgresUrl(path)) return eventsFromStore(await openPostgres(path), maskPostgresUrl(path), conversation);
  let stat;
  try {
    stat = statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`${path}: ${code === 'ENOENT' ? 'no such file' : errnoText(error)}`);
  }
  if (stat.isDirectory()) throw new UsageError(`${path}: is a directory; give a SQLite store (.db) or an events file (.json / .jsonl)`);
  // Opening a FIFO or a device would block or read forever.
  if (!stat.isFile()) throw new UsageError(`${path}: is ${fileKind(stat)}; give a SQLite store (.db) or an events file (.json / .jsonl)`);
  // A StoreError (an InputError) names the file and why it is no store.
  if (/\.(db|sqlite3?)$/i.test(path)) return eventsFromStore(new SqliteEventStore(path, { readOnly: true }), path, conversation);
  const text = readInputFile(path, { what: 'events file', maxBytes: INPUT_LIMITS.eventsBytes });
  let records: EventRecord[];
  const trimmed = text.trim();
  if (trimmed === '') throw new UsageError(`${path}: empty: not a SQLite store (.db) or an events file (.json / .jsonl) of event records`);
  const shapes = 'a JSON array of event records, or JSON Lines: one record per line';
  const pretty = trimmed.startsWith('{') && trimmed.includes('\n') ? parsedObject(trimmed) : undefined;
  if (pretty !== undefined && !('seq' in pretty && 'type' in pretty)) {
    // One JSON object over many lines: no event log, and read as JSON Lines its first line "is no JSON" (outside probe 33, C1).
    if (Array.isArray(pretty.cases))
      throw new UsageError(
        `${path}: a loopgate results file (results.json), not a conversation's events: give a SQLite store (.db), or an events file (${shapes})`,
      );
    // Another file of ours (a peer's verdicts, say) names its kind in `schema` (outside probe 34, LOW).
    if (typeof pretty.schema === 'string' && pretty.schema.startsWith('loopgate.'))
      throw new UsageError(
        `${path}: a loopgate file of another kind (${pretty.schema.slice(0, 80)}), not a conversation's events: give a SQLite store (.db), or an events file (${shapes})`,
      );
    throw new UsageError(`${path}: a JSON object, not event records: an events file is ${shapes}`);
  }
  try {
    records = pretty
      ? [pretty as unknown as EventRecord]
      : trimmed.startsWith('[')
        ? JSON.parse(trimmed)
        : trimmed
            .split('\n')
            .filter((l) => l.trim())
            .map((line, i) => {
              try {
                return JSON.parse(line) as EventRecord;
              } catch (error) {
                throw new UsageError(`${path}:${i + 1}: not a JSON record (an events file is ${shapes}): ${(error as Error).message}`);
              }
            });
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${path}: not JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(records)) throw new UsageError(`${path}: expected an array of event records`);
  // As an empty .jsonl, or a store with no conversation: nothing to show is an input error, not "0 events".
  if (records.length === 0) throw new UsageError(`${path}: holds no event records (an empty list); a conversation's events file starts at seq 0`);
  return { conversation: conversation ?? path, events: decodeRecords(records, path) };
}

/** The text as a JSON object, or undefined when it is none (or no JSON at all). */
function parsedObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** One conversation's events from a store (the only one, or the one named); closes the store. */
async function eventsFromStore(store: EventStore, name: string, conversation: string | undefined): Promise<{ conversation: string; events: AnyEvent[] }> {
  try {
    const conversations = await store.listConversations();
    const id = conversation ?? (conversations.length === 1 ? conversations[0] : undefined);
    if (id === undefined) {
      throw new UsageError(
        conversations.length === 0
          ? `${name}: the store holds no conversations`
          : `${name} holds ${conversations.length} conversations; pick one with --conversation (${conversations.slice(0, 10).join(', ')}${conversations.length > 10 ? ', …' : ''})`,
      );
    }
    if (!conversations.includes(id)) throw new UsageError(`${name}: no conversation "${id}"`);
    return { conversation: id, events: decodeRecords(await store.read(id), `${name} conversation "${id}"`) };
  } finally {
    await store.close();
  }
}

/**
 * A PostgreSQL store from a URL. `?schema=` picks the schema (not a libpq
 * parameter, so it is taken off the URL). Every failure is a UsageError (exit 2)
 * naming the masked URL; connecting gives up after the connect timeout.
 */
async function openPostgres(url: string): Promise<PostgresEventStore> {
  let target = url;
  let schema: string | undefined;
  try {
    const parsed = new URL(url);
    schema = parsed.searchParams.get('schema') ?? undefined;
    if (schema !== undefined) {
      parsed.searchParams.delete('schema');
      target = parsed.toString();
    }
  } catch {
    // Not a valid URL: the store says so, with the password masked.
  }
  try {
    return await PostgresEventStore.open(target, { ...(schema !== undefined ? { schema } : {}), create: false });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
