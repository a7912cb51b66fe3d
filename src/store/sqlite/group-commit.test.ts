import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CompiledQuery, Kysely, sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Db, openDb, type Queryable } from '../db.js';
import type { Database } from '../schema.js';
import { FairSqliteDialect, withStatementCache } from './driver.js';
import { groupCommitWriter } from './group-commit.js';
import { openSqliteFile, type SqliteConnection } from './library.js';

describe('SQLite writes queued in one turn share a transaction', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentjobs-group-commit-'));
  const file = path.join(dir, 'test.db');
  let db: Db;
  // Stands for another process: it sees only what has committed.
  let direct: SqliteConnection;

  const insert = (trx: Queryable, id: string) => sql`insert into t (id) values (${id})`.execute(trx);
  const ids = () =>
    (direct.prepare('select id from t order by id').all([]) as { id: string }[]).map((row) => row.id);

  beforeAll(async () => {
    db = openDb({ url: `sqlite:${file}` });
    await sql`create table t (id text primary key)`.execute(db.kysely);
    direct = openSqliteFile(file);
  });
  beforeEach(async () => {
    await sql`delete from t`.execute(db.kysely);
  });
  afterAll(async () => {
    direct.close();
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('commits them together, once every one of them has run', async () => {
    const seenByOthers: string[][] = [];
    const seenInside: string[][] = [];
    await Promise.all(
      ['a', 'b', 'c'].map((id) =>
        db.write(async (trx) => {
          await insert(trx, id);
          const inside = await sql<{ id: string }>`select id from t order by id`.execute(trx);
          seenInside.push(inside.rows.map((row) => row.id));
          seenByOthers.push(ids());
        }),
      ),
    );
    // Each write sees the ones before it, as if they had run one after another…
    expect(seenInside).toEqual([['a'], ['a', 'b'], ['a', 'b', 'c']]);
    // …but nothing was committed until all three had run: one transaction, one commit.
    expect(seenByOthers).toEqual([[], [], []]);
    expect(ids()).toEqual(['a', 'b', 'c']);
  });

  it('resolves each write once it has committed, so reads after it see it', async () => {
    const read = async (id: string) =>
      (await db.read().executeQuery(CompiledQuery.raw('select "id" from "t" where "id" = ?', [id]))).rows;
    expect(await read('seen')).toEqual([]);
    await db.write(async (trx) => insert(trx, 'seen'));
    expect(await read('seen')).toEqual([{ id: 'seen' }]);
    expect(ids()).toEqual(['seen']);
  });

  it('rolls back only the write that throws, and rejects only its caller', async () => {
    const failure = new Error('the second write fails');
    const results = await Promise.allSettled([
      db.write(async (trx) => insert(trx, 'a')),
      db.write(async (trx) => {
        await insert(trx, 'b');
        throw failure;
      }),
      // A statement error (a duplicate key) is a failure of that write alone too.
      db.write(async (trx) => insert(trx, 'a')),
      db.write(async (trx) => {
        await insert(trx, 'c');
        return 'c done';
      }),
    ]);
    expect(results.map((result) => result.status)).toEqual([
      'fulfilled',
      'rejected',
      'rejected',
      'fulfilled',
    ]);
    expect(results[1]).toMatchObject({ reason: failure });
    expect(results[2]).toMatchObject({ reason: { code: 'SQLITE_CONSTRAINT_PRIMARYKEY' } });
    expect(results[3]).toMatchObject({ value: 'c done' });
    expect(ids()).toEqual(['a', 'c']);
  });

  it('sends the notifications of the writes that committed, and only after the commit', async () => {
    const heard: string[][] = [];
    const unlisten = await db.listen('jobs', (payload) => heard.push([payload, ...ids()]));
    await Promise.allSettled([
      db.write(async (trx) => {
        await insert(trx, 'a');
        await db.notify('jobs', 'from a');
      }),
      db.write(async () => {
        await db.notify('jobs', 'from b');
        throw new Error('b fails');
      }),
    ]);
    await unlisten();
    expect(heard).toEqual([['from a', 'a']]);
  });

  it('when SQLite loses the whole transaction, fails the writes in it and runs the ones after it anew', async () => {
    const results = await Promise.allSettled([
      db.write(async (trx) => insert(trx, 'a')),
      db.write(async (trx) => {
        // What an I/O error or a full disk does: SQLite rolls the transaction back by itself.
        await sql`rollback`.execute(trx);
        throw new Error('disk I/O error');
      }),
      db.write(async (trx) => insert(trx, 'c')),
    ]);
    expect(results[0]).toMatchObject({
      status: 'rejected',
      reason: { message: expect.stringMatching(/rolled back/), cause: { message: 'disk I/O error' } },
    });
    expect(results[1]).toMatchObject({ status: 'rejected', reason: { message: 'disk I/O error' } });
    expect(results[2]).toMatchObject({ status: 'fulfilled' });
    expect(ids()).toEqual(['c']);
  });

  it('does not report a write as done when its transaction was lost under it', async () => {
    await expect(
      db.write(async (trx) => {
        await insert(trx, 'lost');
        // A write that swallowed the error of a statement after which SQLite rolled back.
        await sql`rollback`.execute(trx).catch(() => {});
        return 'claims success';
      }),
    ).rejects.toThrow(/rolled back the transaction/);
    expect(ids()).toEqual([]);
  });

  it('passes a lone write its own error, and takes more writes than one transaction holds', async () => {
    await expect(
      db.write(async (trx) => {
        await insert(trx, 'lone');
        throw new Error('lone failure');
      }),
    ).rejects.toThrow('lone failure');
    expect(ids()).toEqual([]);
    const many = Array.from({ length: 200 }, (_, i) => `m${String(i).padStart(3, '0')}`);
    await Promise.all(many.map((id) => db.write(async (trx) => insert(trx, id))));
    expect(ids()).toEqual(many);
  });

  it('bounds the queue: writers beyond it wait to join, and every one of them runs', async () => {
    const database = openSqliteFile(file);
    const kysely = new Kysely<Database>({
      dialect: new FairSqliteDialect({ database: withStatementCache(database) }),
    });
    const writer = groupCommitWriter(kysely, database, () => {}, 3);
    try {
      let open = () => {};
      const gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      // The first write holds the connection, so the rest queue behind it.
      const first = writer.write(async (trx) => {
        await gate;
        await insert(trx, 'first');
      });
      await new Promise<void>((resolve) => setImmediate(resolve));
      const most: number[] = [];
      const rest = Array.from({ length: 10 }, (_, i) =>
        writer.write(async (trx) => {
          most.push(writer.queued());
          await insert(trx, `w${i}`);
        }),
      );
      expect(writer.queued()).toBe(3);
      open();
      await Promise.all([first, ...rest]);
      expect(Math.max(...most)).toBeLessThanOrEqual(3);
      expect(ids()).toEqual(['first', ...Array.from({ length: 10 }, (_, i) => `w${i}`)].sort());
    } finally {
      await kysely.destroy();
    }
  });
});
