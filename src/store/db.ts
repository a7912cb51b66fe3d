import { type Compilable, CompiledQuery, type Kysely } from 'kysely';
import type { Db, Queryable } from './handle.js';
import { openPostgres } from './postgres/index.js';
import type { Database } from './schema.js';
import { openSqlite } from './sqlite/index.js';

export type { Db, DbCapabilities, LockOptions, Queryable, Transaction } from './handle.js';

export interface DbOptions {
  /** `sqlite:<file>` (or `sqlite::memory:`) or a `postgres://` URL. */
  url: string;
  /** PostgreSQL pool size. */
  poolSize?: number;
  /** SQLite: how many writes may wait for the connection before callers wait to join them. */
  maxQueuedWrites?: number;
}

/** Opens the database that `url` names; the dialect is chosen here and nowhere else. */
export function openDb(options: DbOptions): Db {
  return options.url.startsWith('sqlite:')
    ? openSqlite(options.url.slice('sqlite:'.length), { maxQueuedWrites: options.maxQueuedWrites })
    : openPostgres({ url: options.url, poolSize: options.poolSize });
}

/**
 * Compiles a read once and runs it with fresh parameters through `Db.readCompiled` (inside a
 * write, on its transaction). Building and compiling a Kysely query costs more than running a small SQLite
 * lookup, so the few queries on every request's path (key lookup, job by id) skip that work.
 * `build` receives placeholders in the order the query binds them; the returned function takes
 * the real values in the same order.
 */
export function precompile<Row>(db: Db, build: (kysely: Kysely<Database>) => Compilable<Row>) {
  const { sql: text } = build(db.kysely).compile();
  return (...parameters: unknown[]): Promise<Row[]> => db.readCompiled<Row>(text, parameters);
}

/**
 * The write-side twin of `precompile`: a statement compiled once, run with fresh parameters on
 * whatever executor it is given (usually the transaction of `Db.write`).
 */
export function compileStatement<Row>(db: Db, build: (kysely: Kysely<Database>) => Compilable<Row>) {
  const { sql: text } = build(db.kysely).compile();
  return async (executor: Queryable, ...parameters: unknown[]): Promise<Row[]> =>
    (await executor.executeQuery<Row>(CompiledQuery.raw(text, parameters))).rows;
}
