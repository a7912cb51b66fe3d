import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql, type Transaction } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

/**
 * A database handle plus the few facts where SQLite and PostgreSQL really differ. Everything else
 * is one set of Kysely queries.
 */
export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  /**
   * Runs `fn` in a write transaction. On SQLite this is `BEGIN IMMEDIATE`, so that two processes
   * writing one file wait for each other (busy timeout) instead of failing on a lock upgrade.
   */
  write<T>(fn: (trx: Kysely<Database>) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface DbOptions {
  /** `sqlite:<file>` (or `sqlite::memory:`) or a `postgres://` URL. */
  url: string;
  /** PostgreSQL pool size. */
  poolSize?: number;
}

export function openDb(options: DbOptions): Db {
  return options.url.startsWith('sqlite:')
    ? openSqlite(options.url.slice('sqlite:'.length))
    : openPostgres(options);
}

function openSqlite(file: string): Db {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const database = new SqliteDatabase(file);
  database.pragma('journal_mode = WAL');
  // NORMAL is durable across process crashes in WAL mode; only an OS crash can lose the last commits.
  database.pragma('synchronous = NORMAL');
  database.pragma('busy_timeout = 10000');
  database.pragma('foreign_keys = ON');
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  return {
    kysely,
    dialect: 'sqlite',
    // Kysely's SQLite driver holds one connection behind a mutex, so this connection is ours alone
    // until the callback ends.
    write: (fn) =>
      kysely.connection().execute(async (connection) => {
        await sql`begin immediate`.execute(connection);
        try {
          const result = await fn(connection);
          await sql`commit`.execute(connection);
          return result;
        } catch (error) {
          await sql`rollback`.execute(connection);
          throw error;
        }
      }),
    close: () => kysely.destroy(),
  };
}

function openPostgres(options: DbOptions): Db {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 5000,
  });
  // An idle client that loses its server must not crash the process; the next query reports it.
  pool.on('error', () => {});
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    kysely,
    dialect: 'postgres',
    write: (fn) => kysely.transaction().execute((trx: Transaction<Database>) => fn(trx)),
    close: () => kysely.destroy(),
  };
}
