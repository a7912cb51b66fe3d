import {
  type DatabaseConnection,
  type Driver,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
} from 'kysely';
import { refuseInsideWrite } from '../handle.js';
import type { SqliteConnection } from './library.js';

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
 * `prepare`, each SQL string prepared once. The set of distinct SQL strings the service issues is
 * small and fixed, so a bounded cache keeps them all; past `size` it starts over.
 */
function preparedOnce<T>(prepare: (text: string) => T, size: number): (text: string) => T {
  const prepared = new Map<string, T>();
  return (text) => {
    let statement = prepared.get(text);
    if (statement === undefined) {
      if (prepared.size >= size) prepared.clear();
      statement = prepare(text);
      prepared.set(text, statement);
    }
    return statement;
  };
}

/** Kysely's SQLite driver prepares every query anew; preparing costs more than running our small queries. */
export function withStatementCache(database: SqliteConnection, size = 500) {
  return {
    close: () => database.close(),
    // Kysely's driver prepares each statement right before it runs it.
    prepare: preparedOnce((text) => database.prepare(text), size),
  };
}

/**
 * Reads that skip Kysely (`Db.readCompiled`): compiled SQL run on `database`, each statement
 * prepared once, rows built here from arrays of values. better-sqlite3 makes a row object in C++
 * one key at a time, each key a string it looks up again; for the 31 columns of a job that cost
 * more than finding the row, and a plain loop over the column names does not.
 */
export function arrayReads(database: SqliteConnection, size = 500) {
  const prepare = preparedOnce((text) => database.prepareArrays(text), size);
  return <Row>(text: string, parameters: readonly unknown[]): Row[] => {
    const read = prepare(text);
    const { columns } = read;
    return read.all(parameters).map((values) => {
      const row: Record<string, unknown> = {};
      for (let i = 0; i < columns.length; i++) row[columns[i] as string] = values[i];
      return row as Row;
    });
  };
}
