import fs from 'node:fs';
import path from 'node:path';
import { Kysely } from 'kysely';
import { currentWrite, type Db, refuseInsideWrite } from '../handle.js';
import type { Database } from '../schema.js';
import { listenOnBus, sqliteBus } from './bus.js';
import { FairSqliteDialect, withStatementCache } from './driver.js';
import { groupCommitWriter } from './group-commit.js';
import { openSqliteFile } from './library.js';
import { isSqliteTransient } from './transient.js';

/** Settings of a SQLite `Db` that tests turn down. */
export interface SqliteOptions {
  /** How many writes may wait for the connection before callers wait to join them. */
  maxQueuedWrites?: number;
}

/**
 * SQLite in WAL mode: one connection writes (group commit), a second, read-only one reads, so
 * reads never wait for a write's transaction.
 */
export function openSqlite(file: string, options: SqliteOptions = {}): Db {
  if (file !== ':memory:') {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    // Made here, private to this user, before SQLite makes it with its own default (0644 less the
    // umask); SQLite gives the -wal and -shm files the mode of the database file.
    fs.closeSync(fs.openSync(file, 'a', 0o600));
  }
  const database = openSqliteFile(file);
  database.exec('PRAGMA journal_mode = WAL');
  // NORMAL is durable across process crashes in WAL mode; only an OS crash can lose the last commits.
  database.exec('PRAGMA synchronous = NORMAL');
  database.exec('PRAGMA foreign_keys = ON');
  const kysely = new Kysely<Database>({
    dialect: new FairSqliteDialect({ database: withStatementCache(database) }),
  });
  // An in-memory database exists only on its own connection, so it reads there too.
  const readConnection = file === ':memory:' ? null : openSqliteFile(file, { readonly: true });
  const reader = readConnection
    ? new Kysely<Database>({
        dialect: new FairSqliteDialect({ database: withStatementCache(readConnection) }),
      })
    : kysely;
  const bus = sqliteBus(file);
  const writer = groupCommitWriter(
    kysely,
    database,
    ([channel, payload]) => bus.emit(channel, payload),
    options.maxQueuedWrites,
  );
  const write: Db['write'] = (fn) => {
    try {
      refuseInsideWrite('A write was started');
    } catch (error) {
      return Promise.reject(error);
    }
    return writer.write(fn);
  };
  return {
    kysely,
    capabilities: { serializedWrites: true },
    isTransient: isSqliteTransient,
    write,
    read: () => currentWrite() ?? reader,
    writeStatement: (fn) => {
      const trx = currentWrite();
      return trx ? fn(trx) : write(fn);
    },
    lockForUpdate: (query) => query,
    serialize: async () => {},
    notify: async (channel, payload) => {
      if (currentWrite() && writer.defer([channel, payload])) return;
      bus.emit(channel, payload);
    },
    listen: async (channel, listener) => listenOnBus(bus, channel, listener),
    close: async () => {
      if (reader !== kysely) await reader.destroy();
      await kysely.destroy();
    },
  };
}
