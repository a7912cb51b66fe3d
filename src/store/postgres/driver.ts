/**
 * Kysely's PostgreSQL driver, made to live through a database restart: a connection is waited for
 * while the server is away for a moment, a transaction on a connection that died is given up
 * without a second error, and a dead connection reports itself as one (SQLSTATE `08003`), so that
 * callers can tell "try again shortly" from a real failure.
 */
import {
  type DatabaseConnection,
  type Driver,
  PostgresDialect,
  type PostgresDialectConfig,
  PostgresDriver,
  type QueryResult,
} from 'kysely';
import { refuseInsideWrite } from '../handle.js';
import { sleep } from '../transient.js';
import { isPostgresTransient, normalized } from './transient.js';

export interface ResilientPostgresConfig extends PostgresDialectConfig {
  /** How long acquiring a connection keeps trying while the database is unreachable. */
  reconnectMs: number;
}

/** `PostgresDialect` with `ResilientPostgresDriver`. */
export class ResilientPostgresDialect extends PostgresDialect {
  readonly #config: ResilientPostgresConfig;
  constructor(config: ResilientPostgresConfig) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return new ResilientPostgresDriver(this.#config);
  }
}

class ResilientPostgresDriver extends PostgresDriver {
  readonly #reconnectMs: number;
  /** Our wrapper of each connection, to the driver's own (which alone can be released). */
  readonly #inner = new WeakMap<DatabaseConnection, DatabaseConnection>();

  constructor(config: ResilientPostgresConfig) {
    super(config);
    this.#reconnectMs = config.reconnectMs;
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    refuseInsideWrite('The root database handle was used');
    const deadline = Date.now() + this.#reconnectMs;
    let connection: DatabaseConnection;
    for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
      try {
        connection = await super.acquireConnection();
        break;
      } catch (error) {
        // Nothing ran yet, so waiting for the server to come back is safe for any query.
        if (!isPostgresTransient(error) || Date.now() + delay > deadline) throw normalized(error);
        await sleep(delay);
      }
    }
    const inner = connection;
    const wrapper: DatabaseConnection = {
      async executeQuery<R>(
        query: Parameters<DatabaseConnection['executeQuery']>[0],
      ): Promise<QueryResult<R>> {
        try {
          return await inner.executeQuery<R>(query);
        } catch (error) {
          throw normalized(error);
        }
      },
      streamQuery: (query, chunkSize) => inner.streamQuery(query, chunkSize),
    };
    this.#inner.set(wrapper, inner);
    return wrapper;
  }

  /**
   * A transaction whose connection died is already over: the server rolled it back. The rollback
   * would fail on the dead connection too, and its error would hide the one that ended the
   * transaction. The pool drops a dead connection when it is released.
   */
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.rollbackTransaction(connection);
    } catch (error) {
      if (!isPostgresTransient(error)) throw error;
    }
  }

  override async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const inner = this.#inner.get(connection) ?? connection;
    await super.releaseConnection(inner as Parameters<PostgresDriver['releaseConnection']>[0]);
  }
}
