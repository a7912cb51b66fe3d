import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/store/db.js';
import { openSqliteFile } from '../src/store/sqlite/library.js';
import { openTestStore, type TestStore, testDialects } from './support/db.js';

/** A real error of a hold that passes: a write lock on SQLite, a deadlock on PostgreSQL. */
async function passingError(dialect: string, url: string): Promise<unknown> {
  if (dialect === 'sqlite') {
    const file = url.slice('sqlite:'.length);
    const holder = openSqliteFile(file);
    const waiter = openSqliteFile(file);
    // No busy wait: the second writer hears at once what it would hear after the timeout.
    waiter.exec('PRAGMA busy_timeout = 0');
    holder.exec('BEGIN IMMEDIATE');
    try {
      waiter.exec('BEGIN IMMEDIATE');
      return undefined;
    } catch (error) {
      return error;
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
      waiter.close();
    }
  }
  // Two sessions take two rows' locks in opposite orders; the server ends one (40P01).
  const sessions = [new pg.Client({ connectionString: url }), new pg.Client({ connectionString: url })];
  try {
    await Promise.all(sessions.map((session) => session.connect()));
    await Promise.all(sessions.map((session) => session.query('begin')));
    await sessions[0]?.query(`update t set n = n + 1 where id = 'a'`);
    await sessions[1]?.query(`update t set n = n + 1 where id = 'b'`);
    const outcomes = await Promise.allSettled([
      sessions[0]?.query(`update t set n = n + 1 where id = 'b'`),
      sessions[1]?.query(`update t set n = n + 1 where id = 'a'`),
    ]);
    return outcomes.find((outcome) => outcome.status === 'rejected')?.reason;
  } finally {
    await Promise.all(sessions.map((session) => session.end()));
  }
}

// "Is this error transient" belongs to the store, each dialect answering for its own errors; the
// HTTP layer and the worker only ask.
describe.each(testDialects())('Store.isTransient on %s', (dialect) => {
  let t: TestStore;
  let db: Db;

  beforeAll(async () => {
    t = await openTestStore(dialect);
    db = t.db;
    await sql`create table t (id text primary key, n integer not null)`.execute(db.kysely);
    await sql`insert into t values ('a', 0), ('b', 0)`.execute(db.kysely);
  });
  afterAll(() => t.close());

  it("admits the dialect's own error of a hold that passes", async () => {
    const error = await passingError(dialect, t.url);
    expect(error).toMatchObject({ code: dialect === 'sqlite' ? 'SQLITE_BUSY' : '40P01' });
    expect(t.store.isTransient(error)).toBe(true);
  });

  it('refuses a real failure, and what is not an error of the database', async () => {
    const duplicate = await sql`insert into t values ('a', 1)`.execute(db.kysely).catch((error) => error);
    expect(duplicate).toBeInstanceOf(Error);
    expect(t.store.isTransient(duplicate)).toBe(false);
    const missing = await sql`select * from no_such_table`.execute(db.kysely).catch((error) => error);
    expect(t.store.isTransient(missing)).toBe(false);
    expect(t.store.isTransient(new Error('boom'))).toBe(false);
    expect(t.store.isTransient(undefined)).toBe(false);
  });

  it("refuses the other dialect's transient codes: each knows only its own", () => {
    const other = dialect === 'sqlite' ? { code: '40P01' } : { code: 'SQLITE_BUSY' };
    expect(t.store.isTransient(Object.assign(new Error('other'), other))).toBe(false);
  });

  it.runIf(dialect === 'postgres')('runs a write the server ended in a deadlock again', async () => {
    let arrived = 0;
    let bothHoldOne!: () => void;
    const held = new Promise<void>((resolve) => {
      bothHoldOne = resolve;
    });
    const attempts: [number, number] = [0, 0];
    const swap = (index: number, first: string, second: string) =>
      db.write(async (trx) => {
        attempts[index] = (attempts[index] ?? 0) + 1;
        await sql`update t set n = n + 1 where id = ${first}`.execute(trx);
        if (attempts[index] === 1 && ++arrived === 2) bothHoldOne();
        if (attempts[index] === 1) await held;
        await sql`update t set n = n + 1 where id = ${second}`.execute(trx);
      });
    const outcomes = await Promise.allSettled([swap(0, 'a', 'b'), swap(1, 'b', 'a')]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled']);
    // One of the two lost the deadlock and ran a second time.
    expect(attempts[0] + attempts[1]).toBe(3);
  });
});
