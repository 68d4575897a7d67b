/**
 * Opens events for inspection from a SQLite store (`*.db`) or a file of records
 * (JSON array or JSON lines), naming the path and the problem when it cannot.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { decodeRecords, type AnyEvent, type EventRecord } from '../kernel/index.ts';
import { SqliteEventStore } from '../stores/sqlite-store.ts';
import { UsageError } from './exit-codes.ts';

export async function openEvents(path: string, conversation: string | undefined): Promise<{ conversation: string; events: AnyEvent[] }> {
  if (!existsSync(path)) throw new UsageError(`${path}: no such file`);
  if (statSync(path).isDirectory()) throw new UsageError(`${path}: is a directory; give a SQLite store (.db) or an events file (.json / .jsonl)`);
  if (/\.(db|sqlite3?)$/i.test(path)) {
    let store: SqliteEventStore;
    try {
      store = new SqliteEventStore(path);
    } catch (error) {
      throw new UsageError(`${path}: cannot open as a SQLite store: ${(error as Error).message}`);
    }
    try {
      const conversations = await store.listConversations();
      const id = conversation ?? (conversations.length === 1 ? conversations[0] : undefined);
      if (id === undefined) {
        throw new UsageError(
          conversations.length === 0 ? `${path}: the store holds no conversations` : `${path} holds ${conversations.length} conversations; pick one with --conversation (${conversations.slice(0, 10).join(', ')}${conversations.length > 10 ? ', …' : ''})`,
        );
      }
      if (!conversations.includes(id)) throw new UsageError(`${path}: no conversation "${id}"`);
      return { conversation: id, events: decodeRecords(await store.read(id), `${path} conversation "${id}"`) };
    } finally {
      await store.close();
    }
  }
  const text = readFileSync(path, 'utf8');
  let records: EventRecord[];
  try {
    const trimmed = text.trim();
    records = trimmed.startsWith('[') ? JSON.parse(trimmed) : trimmed.split('\n').filter((l) => l.trim()).map((line, i) => {
      try {
        return JSON.parse(line) as EventRecord;
      } catch (error) {
        throw new UsageError(`${path}:${i + 1}: not a JSON record: ${(error as Error).message}`);
      }
    });
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${path}: not JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(records)) throw new UsageError(`${path}: expected an array of event records`);
  return { conversation: conversation ?? path, events: decodeRecords(records, path) };
}
