import {
  type DatabaseConnection,
  type Driver,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
} from 'kysely';
import { refuseInsideWrite } from '../handle.js';
import type { SqliteArrayRead, SqliteConnection, SqliteStatement } from './library.js';

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

/**
 * Kysely's SQLite driver prepares every query anew; preparing costs more than running our small
 * queries. The set of distinct SQL strings the service issues is small and fixed, so a bounded
 * cache of prepared statements keeps them all.
 */
export function withStatementCache(database: SqliteConnection, size = 500) {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => database.close(),
    // Kysely's driver prepares each statement right before it runs it.
    prepare(text: string): SqliteStatement {
      let statement = statements.get(text);
      if (!statement) {
        if (statements.size >= size) statements.clear();
        statement = database.prepare(text);
        statements.set(text, statement);
      }
      return statement;
    },
  };
}

/**
 * Reads that skip Kysely (`Db.readCompiled`): compiled SQL run on `database`, each statement
 * prepared once (as above), rows built here from arrays of values. better-sqlite3 makes a row
 * object in C++ one key at a time, each key a string it looks up again; for the 31 columns of a
 * job that cost more than finding the row, and a plain loop over the column names does not.
 */
export function arrayReads(database: SqliteConnection, size = 500) {
  const reads = new Map<string, SqliteArrayRead>();
  return <Row>(text: string, parameters: readonly unknown[]): Row[] => {
    let read = reads.get(text);
    if (!read) {
      if (reads.size >= size) reads.clear();
      read = database.prepareArrays(text);
      reads.set(text, read);
    }
    const { columns } = read;
    return read.all(parameters).map((values) => {
      const row: Record<string, unknown> = {};
      for (let i = 0; i < columns.length; i++) row[columns[i] as string] = values[i];
      return row as Row;
    });
  };
}
