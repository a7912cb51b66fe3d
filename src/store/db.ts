import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  type Compilable,
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
  sql,
  type Transaction,
} from 'kysely';
import pg from 'pg';
import { groupCommitWriter } from './group-commit.js';
import {
  listenOnBus,
  type NotificationListener,
  PostgresListener,
  sqliteBus,
  type Unlisten,
} from './notify.js';
import { ResilientPostgresDialect } from './postgres-driver.js';
import type { Database } from './schema.js';
import { isTransientDatabaseError, sleep, wasUnsent } from './transient.js';

export type Dialect = 'sqlite' | 'postgres';

/**
 * A database handle plus the few facts where SQLite and PostgreSQL really differ. Everything else
 * is one set of Kysely queries.
 */
export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  /**
   * Runs `fn` in a write transaction; it commits, or rolls back when `fn` throws. On SQLite this
   * is `BEGIN IMMEDIATE`, so that two processes writing one file wait for each other (busy
   * timeout) instead of failing on a lock upgrade, and writes that queue up share a transaction,
   * each in its own savepoint (see `groupCommitWriter`). So `fn` must never wait for another
   * write (they may share its transaction: it would wait forever), and a failed `BEGIN` or
   * `COMMIT` (a database locked past the busy timeout, a full disk) fails every write in it.
   * On PostgreSQL a transaction that lost its connection before its commit runs again (see
   * `RECONNECT_MS`), so `fn` must do nothing but database work, or work it may repeat.
   */
  write<T>(fn: (trx: Kysely<Database>) => Promise<T>): Promise<T>;
  /**
   * SQLite only: runs a read on a second, read-only connection, synchronously. WAL lets it read
   * committed data while the main connection writes, and it skips Kysely's executor, which costs
   * more than a small lookup. `precompile` uses it for the queries on every request's path.
   * A result may be kept and given back again while the database is unchanged: never change it.
   */
  readRows?: (text: string, parameters: readonly unknown[]) => readonly unknown[];
  /**
   * SQLite only: marks the arrival of a request, so that the reads that follow see every commit
   * made before it (see `openReader`). The API calls it first thing for every request.
   */
  requestArrived?: () => void;
  /**
   * Wakes the listeners of `channel` (in every process on PostgreSQL, in this process on SQLite).
   * Given the transaction of a `write` as `executor`, the notification goes out when it commits and
   * not at all when it rolls back (PostgreSQL `pg_notify` semantics, kept by hand on SQLite).
   */
  notify(channel: string, payload: string, executor?: Kysely<Database>): Promise<void>;
  /** Calls `listener` for each notification on `channel`; resolves once listening. */
  listen(channel: string, listener: NotificationListener): Promise<Unlisten>;
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
  const kysely = new Kysely<Database>({
    dialect: new FairSqliteDialect({ database: withStatementCache(database) }),
  });
  // An in-memory database exists only on its own connection, so it reads through Kysely.
  const reader = file === ':memory:' ? null : openReader(file);
  const bus = sqliteBus(file);
  const writer = groupCommitWriter(kysely, database, ([channel, payload]) => bus.emit(channel, payload));
  return {
    kysely,
    dialect: 'sqlite',
    ...(reader ? { readRows: reader.rows, requestArrived } : {}),
    write: writer.write,
    notify: async (channel, payload, executor) => {
      if (executor && executor !== kysely && writer.defer([channel, payload])) return;
      bus.emit(channel, payload);
    },
    listen: async (channel, listener) => listenOnBus(bus, channel, listener),
    close: async () => {
      reader?.close();
      await kysely.destroy();
    },
  };
}

/** The read-only connections of this process, so that a write can end their snapshots. */
const readers = new Set<{ endSnapshot: () => void }>();

/** Called before every statement on a main connection: reads after a write must see it. */
function endReaderSnapshots(): void {
  for (const reader of readers) reader.endSnapshot();
}

/** Whether requests have arrived since the last check phase (`setImmediate`); see `openReader`. */
let arriving = false;

function requestArrived(): void {
  if (arriving) return;
  arriving = true;
  endReaderSnapshots();
  setImmediate(() => {
    arriving = false;
  });
}

/**
 * The read-only connection behind `readRows`. Each statement is prepared once, with the cheapest
 * way of turning its rows into objects (see `prepareRead`).
 *
 * Reads share one snapshot (read transaction) per turn of the event loop. A read transaction of
 * its own costs each read two `fcntl` lock calls on the WAL index plus SQLite's begin and end,
 * about a third of a job read under load. What keeps the shared snapshot fresh enough:
 * - it ends at `setImmediate`, the check phase that follows the poll phase;
 * - it ends before every statement on this process's main connection, so a write is visible to
 *   every read after it, and a commit never runs its checkpoint against our own open snapshot
 *   (a checkpoint cannot pass a snapshot, and the WAL grows until one completes);
 * - the first request of a poll phase ends a snapshot opened before it (by a timer, say), so
 *   every request sees the commits made before it arrived: the requests of one poll phase all
 *   arrived before the phase began, and so before any snapshot opened in it.
 *
 * Between commits the database does not change, so neither do the results of reads. SQLite's
 * `data_version` changes when any other connection (this process's writer, another process)
 * commits; each snapshot reads it as it opens, and while it is unchanged a read returns the kept
 * result (frozen) without running its statement. Polling an unchanged job, the common case, then
 * costs a map lookup instead of a query.
 */
function openReader(file: string) {
  const database = new SqliteDatabase(file, { readonly: true });
  database.pragma('busy_timeout = 10000');
  const begin = database.prepare('begin');
  const commit = database.prepare('commit');
  const dataVersion = database.prepare('pragma data_version').pluck(true);
  // Changes whenever another connection (this process's writer, another process) commits.
  let version = 0;
  let inSnapshot = false;
  const endSnapshot = () => {
    if (!inSnapshot) return;
    inSnapshot = false;
    // A failed read (I/O error, corruption) can make SQLite roll the transaction back itself.
    if (database.inTransaction) commit.run();
  };
  const openSnapshot = () => {
    if (!database.inTransaction) begin.run();
    try {
      // The pragma's read is what opens the snapshot, so the version is the snapshot's own.
      version = dataVersion.get() as number;
    } catch (error) {
      if (database.inTransaction) commit.run();
      throw error;
    }
    if (!inSnapshot) {
      inSnapshot = true;
      setImmediate(endSnapshot);
    }
  };
  const statements = new Map<string, Read>();
  const rows = (text: string, parameters: readonly unknown[]) => {
    let read = statements.get(text);
    if (!read) {
      read = prepareRead(database, text);
      statements.set(text, read);
    }
    // Also when SQLite ended the turn's snapshot itself after a failed read.
    if (!inSnapshot || !database.inTransaction) openSnapshot();
    return read(parameters, version);
  };
  const reader = { endSnapshot };
  readers.add(reader);
  const close = () => {
    endSnapshot();
    readers.delete(reader);
    database.close();
  };
  return { rows, close };
}

/**
 * better-sqlite3 hands a row to JavaScript value by value, through V8's generic property stores,
 * which costs a third of a job read (a wide row object costs twice as much again). When every
 * column is declared TEXT or INTEGER, SQLite writes the row as one JSON array instead, and
 * `JSON.parse` rebuilds the values: the same strings, numbers and nulls (SQLite prints numbers so
 * that they read back exactly), in a third less time. Any other statement (a REAL or BLOB column,
 * a computed column, repeated names) reads raw arrays.
 */
function prepareRead(database: SqliteDatabase.Database, text: string): Read {
  const statement = database.prepare(text);
  const columns = statement.columns();
  const names = columns.map((column) => column.name);
  const toRow = rowBuilder(names);
  const plain = columns.every((column) => column.type === 'TEXT' || column.type === 'INTEGER');
  if (plain && new Set(names).size === names.length) {
    const quoted = names.map((name) => `"${name.replaceAll('"', '""')}"`).join(', ');
    const json = database.prepare(`select json_array(${quoted}) from (${text})`).pluck(true);
    // A polled row rarely changes between reads. The same text gives back the same frozen object,
    // so the layers above can keep what they derive from it (the job, its JSON) by identity.
    const seen = new Map<string, Readonly<Record<string, unknown>>>();
    // While the database is as it was (the same data version), the same parameters give the same
    // rows: the frozen result is kept and given back without running the statement.
    const kept = new Map<string, readonly unknown[]>();
    let keptVersion = -1;
    // What each map holds, in characters; together at most KEPT_CHARS.
    let seenChars = 0;
    let keptChars = 0;
    const makeRoom = (more: number) => {
      if (seenChars + keptChars + more <= KEPT_CHARS) return;
      seen.clear();
      kept.clear();
      seenChars = 0;
      keptChars = 0;
    };
    return (parameters, version) => {
      if (version !== keptVersion) {
        kept.clear();
        keptChars = 0;
        keptVersion = version;
      }
      const key = JSON.stringify(parameters);
      let result = kept.get(key);
      if (result) return result;
      result = Object.freeze(
        (json.all(...parameters) as string[]).map((text) => {
          let row = seen.get(text);
          if (!row) {
            row = Object.freeze(toRow(JSON.parse(text)));
            makeRoom(text.length);
            seen.set(text, row);
            seenChars += text.length;
          }
          return row;
        }),
      );
      makeRoom(key.length + KEPT_ENTRY_CHARS);
      kept.set(key, result);
      keptChars += key.length + KEPT_ENTRY_CHARS;
      return result;
    };
  }
  statement.raw(true);
  return (parameters) => (statement.all(...parameters) as unknown[][]).map(toRow);
}

/** A statement's read: its rows for these parameters, as of the reader's data `version`. */
type Read = (parameters: readonly unknown[], version: number) => readonly unknown[];

/**
 * How much a statement keeps for reuse, in characters: the text of the rows it keeps, and the
 * parameters of each kept result plus `KEPT_ENTRY_CHARS` for the entry itself, so that reads that
 * find nothing are bounded too. Not in rows: a job row holds its prompt, which may be long. With
 * each row's job and JSON, a few MiB.
 */
export const KEPT_CHARS = 1_000_000;
export const KEPT_ENTRY_CHARS = 64;

type RowBuilder = (values: unknown[]) => Record<string, unknown>;

/**
 * Makes the function that turns one statement's value arrays into row objects: a single object
 * literal with the statement's column names. Filling an empty object column by column in a loop
 * costs a generic property store per column (the names vary), a third of a whole job read; a
 * literal of fixed shape is built at once. The names come from our own schema and are quoted.
 */
function rowBuilder(names: string[]): RowBuilder {
  const fields = names.map((name, i) => `${JSON.stringify(name)}: values[${i}]`);
  return new Function('values', `return { ${fields.join(', ')} };`) as RowBuilder;
}

/**
 * Kysely's SQLite driver guards its one connection with a mutex that wakes every waiter on each
 * release; all but one go back to sleep. Under 50 concurrent requests that herd costs more than
 * the queries. Here waiters queue in order and the connection is handed to exactly one of them,
 * so the driver's own mutex is never contended.
 */
class FairSqliteDriver extends SqliteDriver {
  #waiting: (() => void)[] = [];
  #held = false;

  override async acquireConnection(): Promise<DatabaseConnection> {
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

class FairSqliteDialect extends SqliteDialect {
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
function withStatementCache(database: SqliteDatabase.Database, size = 500) {
  const statements = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => database.close(),
    // Kysely's driver prepares each statement right before it runs it.
    prepare(text: string): SqliteDatabase.Statement {
      endReaderSnapshots();
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
 * How long PostgreSQL work waits for a database that went away (a restart, a failover) before it
 * fails: acquiring a connection keeps trying, and `write` runs a transaction again when it failed
 * before its commit. Long enough for a restart; short enough that an API request answers 503
 * with Retry-After well within a client's timeout.
 */
const RECONNECT_MS = 5000;

function openPostgres(options: DbOptions): Db {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 5000,
  });
  // A connection that dies (the server restarts, the network drops) emits 'error'; unheard, that
  // ends the process. The pool listens on its idle connections only, so every connection gets a
  // listener of its own for the time it is checked out: the query running on it fails with the
  // error, and the pool drops the dead connection when it is released.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const kysely = new Kysely<Database>({
    dialect: new ResilientPostgresDialect({ pool, reconnectMs: RECONNECT_MS }),
  });
  const listener = new PostgresListener(options.url);
  return {
    kysely,
    dialect: 'postgres',
    write: async (fn) => {
      const deadline = Date.now() + RECONNECT_MS;
      for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
        let committing = false;
        try {
          return await kysely.transaction().execute(async (trx: Transaction<Database>) => {
            const result = await fn(trx);
            committing = true;
            return result;
          });
        } catch (error) {
          // A transaction whose connection died before its commit was sent left nothing behind
          // (the server rolls it back), so it runs again. One whose commit was on its way may have
          // committed: only the caller can tell, so it hears of the error.
          const again = committing ? wasUnsent(error) : isTransientDatabaseError(error);
          if (!again || Date.now() + delay > deadline) throw error;
          await sleep(delay);
        }
      }
    },
    notify: async (channel, payload, executor = kysely) => {
      await sql`select pg_notify(${channel}, ${payload})`.execute(executor);
    },
    listen: (channel, fn) => listener.listen(channel, fn),
    close: async () => {
      await listener.close();
      await kysely.destroy();
    },
  };
}

/**
 * Compiles a query once and runs it with fresh parameters. Building and compiling a Kysely query
 * costs more than running a small SQLite lookup, so the few queries on every request's path
 * (key lookup, job by id) skip that work. `build` receives placeholders in the order the query
 * binds them; the returned function takes the real values in the same order. On SQLite it reads
 * on the read-only connection, which keeps a result while the database is unchanged: the query
 * must depend on nothing but the database and its parameters (no `now()`, no `random()`), and
 * its parameters are strings or numbers.
 */
export function precompile<Row>(db: Db, build: (kysely: Kysely<Database>) => Compilable<Row>) {
  const { kysely, readRows } = db;
  const { sql: text } = build(kysely).compile();
  if (readRows) return async (...parameters: unknown[]) => readRows(text, parameters) as readonly Row[];
  return async (...parameters: unknown[]): Promise<readonly Row[]> =>
    (await kysely.executeQuery<Row>(CompiledQuery.raw(text, parameters))).rows;
}

/**
 * The write-side twin of `precompile`: a statement compiled once, run with fresh parameters on
 * whatever executor it is given (usually the transaction of `Db.write`).
 */
export function compileStatement<Row>(db: Db, build: (kysely: Kysely<Database>) => Compilable<Row>) {
  const { sql: text } = build(db.kysely).compile();
  return async (executor: Kysely<Database>, ...parameters: unknown[]): Promise<Row[]> =>
    (await executor.executeQuery<Row>(CompiledQuery.raw(text, parameters))).rows;
}
