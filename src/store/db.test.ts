import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, KEPT_CHARS, KEPT_ENTRY_CHARS, openDb } from './db.js';

/** Resolves after the current turn of the event loop, when the reader's snapshot has ended. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('SQLite reads on the read-only connection', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-db-'));
  const file = path.join(dir, 'test.db');
  let db: Db;
  let direct: SqliteDatabase.Database;

  beforeAll(() => {
    direct = new SqliteDatabase(file);
    direct.pragma('journal_mode = WAL');
    direct.exec('create table t (id text primary key, n integer, note text, r real, b blob)');
    const insert = direct.prepare('insert into t values (?, ?, ?, ?, ?)');
    insert.run('a', 0, 'plain', 0.1 + 0.2, Buffer.from([0, 1, 2]));
    insert.run('b', -9007199254740991, 'quote " backslash \\ tab \t newline \n nul \0 end', 1e300, null);
    insert.run('c', 9007199254740991, 'ünïcödé 😀 \u2028 \u001f', -0.5, null);
    insert.run('d', null, null, null, null);
    insert.run('e', 42, '', 3, Buffer.alloc(0));
    db = openDb({ url: `sqlite:${file}` });
  });
  afterAll(async () => {
    await db.close();
    direct.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('returns what better-sqlite3 returns, for TEXT and INTEGER columns (read as JSON)', () => {
    const text = 'select "id", "n", "note" from "t" where "id" >= ? order by "id"';
    expect(db.readRows?.(text, ['a'])).toEqual(direct.prepare(text).all('a'));
    expect(db.readRows?.(text, ['z'])).toEqual([]);
  });

  it('returns what better-sqlite3 returns, for REAL and BLOB columns (read raw)', () => {
    const text = 'select * from "t" where "id" >= ? order by "id"';
    expect(db.readRows?.(text, ['a'])).toEqual(direct.prepare(text).all('a'));
  });

  it('gives back the same frozen row while the row is unchanged, and a new one once it changes', async () => {
    const text = 'select "id", "note" from "t" where "id" = ?';
    const [first] = db.readRows?.(text, ['e']) ?? [];
    const [again] = db.readRows?.(text, ['e']) ?? [];
    expect(again).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    await nextTurn();
    direct.prepare('update t set note = ? where id = ?').run('changed', 'e');
    await nextTurn();
    const [changed] = db.readRows?.(text, ['e']) ?? [];
    expect(changed).toEqual({ id: 'e', note: 'changed' });
    expect(changed).not.toBe(first);
  });

  it("shares one snapshot per turn of the event loop; the next turn sees another process's write", async () => {
    const text = 'select "note" from "t" where "id" = ?';
    await nextTurn();
    expect(db.readRows?.(text, ['d'])).toEqual([{ note: null }]);
    // `direct` stands for another process: its write commits, but this turn's snapshot predates it.
    direct.prepare('update t set note = ? where id = ?').run('elsewhere', 'd');
    expect(db.readRows?.(text, ['d'])).toEqual([{ note: null }]);
    await nextTurn();
    expect(db.readRows?.(text, ['d'])).toEqual([{ note: 'elsewhere' }]);
  });

  it("ends the turn's snapshot when this process writes, so the next read sees the write", async () => {
    const text = 'select "note" from "t" where "id" = ?';
    await nextTurn();
    expect(db.readRows?.(text, ['d'])).toEqual([{ note: 'elsewhere' }]);
    await sql`update t set note = ${'mine'} where id = ${'d'}`.execute(db.kysely);
    expect(db.readRows?.(text, ['d'])).toEqual([{ note: 'mine' }]);
  });

  it('ends a snapshot opened before a request arrived, and shares one among the requests of a turn', async () => {
    const text = 'select "note" from "t" where "id" = ?';
    await nextTurn();
    // A timer's read opens the turn's snapshot; then another process commits; then a request arrives.
    expect(db.readRows?.(text, ['c'])).toEqual([{ note: 'ünïcödé 😀 \u2028 \u001f' }]);
    direct.prepare('update t set note = ? where id = ?').run('before the request', 'c');
    db.requestArrived?.();
    expect(db.readRows?.(text, ['c'])).toEqual([{ note: 'before the request' }]);
    // Requests of the same poll phase arrived before it began, so they share that snapshot.
    direct.prepare('update t set note = ? where id = ?').run('later', 'c');
    db.requestArrived?.();
    expect(db.readRows?.(text, ['c'])).toEqual([{ note: 'before the request' }]);
    await nextTurn();
    expect(db.readRows?.(text, ['c'])).toEqual([{ note: 'later' }]);
  });

  it('lets checkpoints complete when every turn reads before it writes, so the WAL stays small', async () => {
    await sql`create table w (id integer primary key, body text)`.execute(db.kysely);
    const body = 'x'.repeat(3000);
    for (let i = 0; i < 3000; i++) {
      db.readRows?.('select "note" from "t" where "id" = ?', ['a']);
      await sql`insert into w (body) values (${body})`.execute(db.kysely);
      await nextTurn();
    }
    // 3,000 rows of 3 KB are 9 MB; the WAL resets after each checkpoint of 1,000 pages (4 MiB).
    expect(fs.statSync(`${file}-wal`).size).toBeLessThan(6 * 2 ** 20);
  });

  it('keeps the result of a read until any connection commits', async () => {
    const text = 'select "id", "n" from "t" where "id" = ?';
    await nextTurn();
    const first = db.readRows?.(text, ['e']);
    await nextTurn();
    // Nothing committed in between: the kept result, not a new read.
    expect(db.readRows?.(text, ['e'])).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    // Other parameters are another read.
    expect(db.readRows?.(text, ['a'])).toEqual([{ id: 'a', n: 0 }]);
    // A commit elsewhere, even to a row this read does not touch, and even by another connection.
    direct.prepare('update t set note = ? where id = ?').run('touched', 'b');
    await nextTurn();
    const after = db.readRows?.(text, ['e']);
    expect(after).toEqual(first);
    expect(after).not.toBe(first);
    // This process's own writer is another connection to the reader too.
    await sql`update t set n = ${43} where id = ${'e'}`.execute(db.kysely);
    expect(db.readRows?.(text, ['e'])).toEqual([{ id: 'e', n: 43 }]);
  });

  it('keeps results within a bound, counting reads that find nothing', async () => {
    const text = 'select "id" from "t" where "id" = ?';
    await nextTurn();
    const first = db.readRows?.(text, ['first']);
    expect(db.readRows?.(text, ['first'])).toBe(first);
    for (let i = 0; i <= KEPT_CHARS / KEPT_ENTRY_CHARS; i++) db.readRows?.(text, [`missing ${i}`]);
    expect(db.readRows?.(text, ['first'])).not.toBe(first);
  });

  it('keeps results within a bound of row text, however few the rows', async () => {
    await sql`create table big (id integer primary key, body text)`.execute(db.kysely);
    const body = 'y'.repeat(KEPT_CHARS / 10);
    for (let i = 0; i < 20; i++) await sql`insert into big (body) values (${body})`.execute(db.kysely);
    const text = 'select "id", "body" from "big" where "id" = ?';
    await nextTurn();
    const first = db.readRows?.(text, [1]);
    expect(db.readRows?.(text, [1])).toBe(first);
    for (let id = 2; id <= 20; id++) db.readRows?.(text, [id]);
    expect(db.readRows?.(text, [1])).not.toBe(first);
    expect(db.readRows?.(text, [1])).toEqual(first);
  });

  it('reads computed and repeated columns raw', () => {
    const text = 'select "id", "id", count(*) as "count" from "t" where "id" = ?';
    const statement = direct.prepare(text).raw(true);
    const [values] = statement.all('a') as unknown[][];
    expect(db.readRows?.(text, ['a'])).toEqual([{ id: values?.[1], count: values?.[2] }]);
  });
});
