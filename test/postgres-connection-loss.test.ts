import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDb } from '../src/store/db.js';
import { createTestDatabase, type TestDatabase, testDialects } from './support/db.js';

// A PostgreSQL connection that dies under a checked-out client (a restart, a terminated backend)
// must reach the query that used it, never the process as an unhandled 'error' event.
describe.skipIf(!testDialects().includes('postgres'))('a PostgreSQL connection lost while in use', () => {
  let database: TestDatabase;
  let db: Db;
  let admin: pg.Client;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    db = openDb({ url: database.url, poolSize: 2 });
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await db?.close();
    await database?.drop();
  });

  const terminate = (pid: number) => admin.query('select pg_terminate_backend($1)', [pid]);
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('between the statements of a transaction: no crash, and the transaction runs again', async () => {
    const pids: number[] = [];
    const result = await db.write(async (trx) => {
      const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
      const pid = Number(rows[0]?.pid);
      pids.push(pid);
      if (pids.length === 1) {
        await terminate(pid);
        // The connection's error arrives while no query runs on it.
        await sleep(300);
      }
      const { rows: answer } = await sql<{ n: number }>`select 1 as n`.execute(trx);
      return Number(answer[0]?.n);
    });
    expect(result).toBe(1);
    expect(pids).toHaveLength(2);
    expect(pids[1]).not.toBe(pids[0]);
  });

  it('during a statement: the statement fails with a transient error, and the pool recovers', async () => {
    const running = db.kysely
      .selectNoFrom((eb) => eb.fn<number>('pg_sleep', [eb.val(5)]).as('slept'))
      .execute();
    const caught = running.catch((error: unknown) => error);
    await sleep(300);
    const { rows } = await admin.query<{ pid: number }>(
      `select pid from pg_stat_activity where query like '%pg_sleep%' and pid <> pg_backend_pid()`,
    );
    for (const row of rows) await terminate(row.pid);
    const error = await caught;
    expect(db.isTransient(error)).toBe(true);
    expect(typeof (error as { code?: unknown }).code).toBe('string');
    await sleep(300);
    const again = await db.kysely.selectNoFrom((eb) => eb.val(2).as('n')).execute();
    expect(Number(again[0]?.n)).toBe(2);
  });
});
