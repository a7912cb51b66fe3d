import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDb } from './db.js';
import { openSqliteFile, SQLITE_LIBRARY, type SqliteConnection } from './sqlite/library.js';

describe('SQLite reads on the read-only connection', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-db-'));
  const file = path.join(dir, 'test.db');
  let db: Db;
  let direct: SqliteConnection;
  const read = (text: string, parameters: unknown[]) =>
    db
      .read()
      .executeQuery(CompiledQuery.raw(text, parameters))
      .then((result) => result.rows);

  beforeAll(() => {
    direct = openSqliteFile(file);
    direct.exec('PRAGMA journal_mode = WAL');
    direct.exec('create table t (id text primary key, n integer, note text, r real, b blob)');
    const insert = direct.prepare('insert into t values (?, ?, ?, ?, ?)');
    insert.run(['a', 0, 'plain', 0.1 + 0.2, Buffer.from([0, 1, 2])]);
    insert.run(['b', -9007199254740991, 'quote " backslash \\ tab \t newline \n nul \0 end', 1e300, null]);
    insert.run(['c', 9007199254740991, 'ünïcödé 😀 \u2028 \u001f', -0.5, null]);
    insert.run(['d', null, null, null, null]);
    db = openDb({ url: `sqlite:${file}` });
  });
  afterAll(async () => {
    await db.close();
    direct.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it(`returns what ${SQLITE_LIBRARY} returns, for every column type`, async () => {
    const text = 'select * from "t" where "id" >= ? order by "id"';
    const rows = await read(text, ['a']);
    expect(rows).toEqual(direct.prepare(text).all(['a']));
    // The same keys in the same order, so a row serialises as the library's own would.
    expect(rows.map((row) => Object.keys(row as object))).toEqual(
      direct
        .prepare(text)
        .all(['a'])
        .map((row) => Object.keys(row as object)),
    );
    expect(await read(text, ['z'])).toEqual([]);
  });

  it("sees another process's commit at once: each read is a read transaction of its own", async () => {
    const text = 'select "note" from "t" where "id" = ?';
    expect(await read(text, ['d'])).toEqual([{ note: null }]);
    // `direct` stands for another process.
    direct.prepare('update t set note = ? where id = ?').run(['elsewhere', 'd']);
    expect(await read(text, ['d'])).toEqual([{ note: 'elsewhere' }]);
  });

  it("sees this process's write at once", async () => {
    await sql`update t set note = ${'mine'} where id = ${'d'}`.execute(db.kysely);
    expect(await read('select "note" from "t" where "id" = ?', ['d'])).toEqual([{ note: 'mine' }]);
  });

  it('is read-only', async () => {
    // A write that returns rows, so that it is prepared and the connection refuses it.
    await expect(read('delete from t returning "id"', [])).rejects.toThrow(/readonly/i);
  });

  it('lets checkpoints complete between reads, so the WAL stays small', async () => {
    await sql`create table w (id integer primary key, body text)`.execute(db.kysely);
    const body = 'x'.repeat(3000);
    for (let i = 0; i < 3000; i++) {
      await read('select "note" from "t" where "id" = ?', ['a']);
      await sql`insert into w (body) values (${body})`.execute(db.kysely);
    }
    // The WAL resets after each automatic checkpoint; an open read would hold it back.
    expect(fs.statSync(`${file}-wal`).size).toBeLessThan(6 * 2 ** 20);
  });
});
