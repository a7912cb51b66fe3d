import { AsyncLocalStorage } from 'node:async_hooks';
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { NotificationListener, Unlisten } from './notify.js';
import type { Database } from './schema.js';

/**
 * What a query can start from: the part of Kysely that builds and runs statements, without the
 * parts that open transactions or connections (`transaction`, `connection`, `destroy`). Both the
 * root handle and a write's transaction are one; a helper that may run either way takes this.
 */
export type Queryable = Pick<
  Kysely<Database>,
  | 'selectFrom'
  | 'selectNoFrom'
  | 'insertInto'
  | 'replaceInto'
  | 'updateTable'
  | 'deleteFrom'
  | 'with'
  | 'fn'
  | 'executeQuery'
  | 'getExecutor'
>;

declare const transactionBrand: unique symbol;

/**
 * The handle a write's callback gets. Its own type: the root `Kysely<Database>` does not pass
 * where a transaction is expected, and a transaction does not pass where the root handle is
 * (it cannot open a transaction of its own, or be destroyed).
 */
export type Transaction = Queryable & { readonly [transactionBrand]: true };

/** What differs between SQLite and PostgreSQL, declared rather than asked for by name. */
export interface DbCapabilities {
  /**
   * Writes run one at a time (SQLite's `BEGIN IMMEDIATE`), so a read inside a write cannot race
   * another writer and rows need no locks. False: writes run side by side and lock what they read.
   */
  readonly serializedWrites: boolean;
}

/** How `Db.lockForUpdate` locks the rows a query reads. */
export interface LockOptions {
  /** Skip rows another transaction holds instead of waiting for them (queue claims). */
  skipLocked?: boolean;
  /** A weaker lock that still lets other transactions insert rows that refer to these. */
  noKey?: boolean;
}

/**
 * A database handle plus the few facts where SQLite and PostgreSQL really differ (capabilities
 * and one helper each). Everything else is one set of Kysely queries.
 */
export interface Db {
  /**
   * The root handle, for statements that stand alone (each commits by itself). Inside a write it
   * throws: a statement there must go through the write's transaction.
   */
  readonly kysely: Kysely<Database>;
  readonly capabilities: DbCapabilities;
  /**
   * Whether `error` will pass if the work is tried again shortly: on PostgreSQL a server away (a
   * restart, a failover, a lost connection) or a transaction rolled back by a race (serialization
   * failure, deadlock); on SQLite another connection's hold on the file that outlasted the busy
   * timeout. Callers decide on retries and answers ("503, try again") by this, not by codes.
   */
  isTransient(error: unknown): boolean;
  /**
   * Runs `fn` in a write transaction; it commits, or rolls back when `fn` throws. `fn` must not
   * start another write or use the root handle: both throw at once (they would wait for the
   * transaction `fn` is in, or run outside it). On SQLite this is `BEGIN IMMEDIATE`, so two
   * processes writing one file wait for each other (busy timeout), and writes that queue up share a
   * transaction, each in its own savepoint (group commit); a failed `BEGIN` or `COMMIT` fails every
   * write in it. On PostgreSQL a transaction that lost its connection before its commit runs again,
   * so `fn` must do nothing but database work, or work it may repeat.
   */
  write<T>(fn: (trx: Transaction) => Promise<T>): Promise<T>;
  /**
   * The handle for a read: inside a write, that write's transaction, so the read sees the write's
   * own changes; else, on SQLite, the read-only connection (WAL lets it read committed data while
   * a write runs; each read is a read transaction of its own), and on PostgreSQL the pool.
   */
  read(): Queryable;
  /**
   * Runs one statement that changes data the cheapest way: inside a write, in it; on SQLite in the
   * group commit (a commit of its own costs more than the statement); on PostgreSQL alone, since
   * a statement commits by itself and a transaction around it costs round trips.
   */
  writeStatement<T>(fn: (executor: Queryable) => Promise<T>): Promise<T>;
  /**
   * Locks the rows `query` reads until the write commits, where writes run side by side
   * (`FOR UPDATE`); unchanged where they run one at a time.
   */
  lockForUpdate<DB, TB extends keyof DB, O>(
    query: SelectQueryBuilder<DB, TB, O>,
    options?: LockOptions,
  ): SelectQueryBuilder<DB, TB, O>;
  /**
   * Makes the writes that take the same `key` run one at a time, until their commit (a PostgreSQL
   * advisory lock); a no-op where writes already do.
   */
  serialize(trx: Transaction, key: number): Promise<void>;
  /**
   * Wakes the listeners of `channel` (in every process on PostgreSQL, in this process on SQLite).
   * Inside a write, the notification goes out when it commits and not at all when it rolls back
   * (PostgreSQL `pg_notify` semantics, kept by hand on SQLite).
   */
  notify(channel: string, payload: string): Promise<void>;
  /** Calls `listener` for each notification on `channel`; resolves once listening. */
  listen(channel: string, listener: NotificationListener): Promise<Unlisten>;
  close(): Promise<void>;
}

/** The transaction of the write whose callback is running, as seen from any code it calls. */
const writeScope = new AsyncLocalStorage<Transaction>();

/** The running write's transaction, or undefined outside a write. */
export const currentWrite = (): Transaction | undefined => writeScope.getStore();

/** Runs a write's callback so that code it calls knows it is inside that write. */
export function runInWrite<T>(trx: Transaction, fn: (trx: Transaction) => Promise<T>): Promise<T> {
  return writeScope.run(trx, () => fn(trx));
}

/** Throws when called inside a write; `what` names what may not be used there. */
export function refuseInsideWrite(what: string): void {
  if (writeScope.getStore() === undefined) return;
  throw new Error(
    `${what} inside a write: it would wait for that write's own transaction or run outside it. ` +
      'Use the transaction the write callback was given.',
  );
}
