import {
  type DatabaseConnection,
  type Driver,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
} from 'kysely';
import { refuseInsideWrite } from '../handle.js';
import type { SqliteConnection, SqliteStatement } from './library.js';

/**
 * Kysely's SQLite driver guards its one connection with a mutex that wakes every waiter on each
 * release; all but one go back to sleep. Under many concurrent requests that herd costs more than
 * the queries. Here waiters queue in order and the connection is handed to exactly one of them,
 * so the driver's own mutex is never contended.
 */
class FairSqliteDriver extends SqliteDriver {
  #waiting: (() => void)[] = [];
  #held = false;

  override async acquireConnection(): Promise<DatabaseConnection> {
    // A write holds this connection until it commits: waiting for it from inside would never end.
    refuseInsideWrite('The root database handle was used');
    if (this.#held) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#held = true;
    return super.acquireConnection();
  }

  override async releaseConnection(): Promise<void> {
    await super.releaseConnection();
    const next = this.#waiting.shift();
    // Handing over keeps #held true, so no newcomer can slip in between.
    if (next) next();
    else this.#held = false;
  }
}

/** `SqliteDialect` with `FairSqliteDriver`. */
export class FairSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return new FairSqliteDriver(this.#config);
  }
}

/** How many prepared statements a connection keeps: more than the distinct statements the service issues. */
const STATEMENTS_KEPT = 500;

/**
 * The database as Kysely's driver sees it, each SQL string prepared once: Kysely prepares every
 * query anew, and preparing costs more than running our small queries. The statements the service
 * issues are few and fixed, so the cache holds them all; one that grows past its bound (SQL built
 * with values in it) forgets its oldest entry.
 */
export function withStatementCache(database: SqliteConnection) {
  const prepared = new Map<string, SqliteStatement>();
  return {
    close: () => database.close(),
    prepare: (text: string): SqliteStatement => {
      let statement = prepared.get(text);
      if (statement === undefined) {
        statement = database.prepare(text);
        if (prepared.size >= STATEMENTS_KEPT) prepared.delete(prepared.keys().next().value as string);
        prepared.set(text, statement);
      }
      return statement;
    },
  };
}
