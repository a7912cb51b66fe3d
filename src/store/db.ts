import type { Db } from './handle.js';
import { openPostgres } from './postgres/index.js';
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
