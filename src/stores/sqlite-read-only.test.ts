import { readdirSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StoreError } from './event-store.ts';
import { SqliteEventStore } from './sqlite-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'loopgate-sqlite-ro-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const record = (seq: number) => ({ seq, type: 'turn.opened', v: 1, at: seq, payload: { turn: seq }, ignorable: false });

describe('SqliteEventStore, read-only', () => {
  it('reads a store without changing a byte or adding a file beside it, and refuses to append', async () => {
    const path = join(dir, 'store.db');
    const writer = new SqliteEventStore(path);
    await writer.append('c1', [record(0), record(1)]);
    await writer.close();
    const bytes = readFileSync(path);
    const files = readdirSync(dir).sort();

    const reader = new SqliteEventStore(path, { readOnly: true });
    expect(await reader.listConversations()).toEqual(['c1']);
    expect((await reader.read('c1')).map((r) => r.seq)).toEqual([0, 1]);
    await expect(reader.append('c1', [record(2)])).rejects.toThrow(`sqlite:${path}: opened read-only; nothing was stored`);
    await reader.close();

    expect(readFileSync(path).equals(bytes)).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(files);
  });

  it("refuses another application's database without creating a table, setting WAL or a schema version", () => {
    const path = join(dir, 'other.db');
    const db = new DatabaseSync(path);
    db.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')");
    db.close();
    const bytes = readFileSync(path);
    expect(() => new SqliteEventStore(path, { readOnly: true })).toThrow(StoreError);
    expect(() => new SqliteEventStore(path, { readOnly: true })).toThrow(/holds no loopgate events table/);
    expect(readFileSync(path).equals(bytes)).toBe(true);
    expect(readdirSync(dir).filter((f) => f.startsWith('other'))).toEqual(['other.db']);
  });

  it('does not create a missing file', () => {
    const path = join(dir, 'missing.db');
    expect(() => new SqliteEventStore(path, { readOnly: true })).toThrow(StoreError);
    expect(readdirSync(dir)).not.toContain('missing.db');
  });
});
