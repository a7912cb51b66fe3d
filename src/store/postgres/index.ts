import { Kysely, sql } from 'kysely';
import pg from 'pg';
import { currentWrite, type Db, refuseInsideWrite, runInWrite, type Transaction } from '../handle.js';
import type { Database } from '../schema.js';
import { sleep } from '../transient.js';
import { ResilientPostgresDialect } from './driver.js';
import { PostgresListener } from './listener.js';
import { isPostgresTransient, wasUnsent } from './transient.js';

/**
 * How long PostgreSQL work waits for a database that went away (a restart, a failover) before it
 * fails: acquiring a connection keeps trying, and `write` runs a transaction again when it failed
 * before its commit. Long enough for a restart; short enough that an API request answers 503
 * with Retry-After well within a client's timeout.
 */
const RECONNECT_MS = 5000;

/** Settings of a PostgreSQL `Db`. */
export interface PostgresOptions {
  url: string;
  /** Pool size. */
  poolSize?: number;
}

/** PostgreSQL through a pool that lives through restarts, with one extra connection for LISTEN. */
export function openPostgres(options: PostgresOptions): Db {
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
  /**
   * The notifications of each running write, sent in one statement just before its commit:
   * PostgreSQL delivers them at the commit whenever they are sent, and one round trip per
   * notification was a fifth of a job create's.
   */
  const pending = new WeakMap<Transaction, [channel: string, payload: string][]>();

  const write: Db['write'] = async (fn) => {
    refuseInsideWrite('A write was started');
    const deadline = Date.now() + RECONNECT_MS;
    for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
      let committing = false;
      try {
        return await kysely.transaction().execute(async (kyselyTransaction) => {
          const trx = kyselyTransaction as unknown as Transaction;
          const notifications: [string, string][] = [];
          pending.set(trx, notifications);
          const result = await runInWrite(trx, fn);
          if (notifications.length > 0) {
            const calls = notifications.map(([channel, payload]) => sql`pg_notify(${channel}, ${payload})`);
            await sql`select ${sql.join(calls)}`.execute(trx);
          }
          committing = true;
          return result;
        });
      } catch (error) {
        // A transaction whose connection died before its commit was sent left nothing behind
        // (the server rolls it back), so it runs again. One whose commit was on its way may have
        // committed: only the caller can tell, so it hears of the error.
        const again = committing ? wasUnsent(error) : isPostgresTransient(error);
        if (!again || Date.now() + delay > deadline) throw error;
        await sleep(delay);
      }
    }
  };

  return {
    kysely,
    capabilities: { serializedWrites: false },
    isTransient: isPostgresTransient,
    write,
    read: () => currentWrite() ?? kysely,
    // One statement commits by itself; a transaction around it would cost two more round trips.
    writeStatement: (fn) => fn(currentWrite() ?? kysely),
    lockForUpdate: (query, options = {}) => {
      const locked = options.noKey ? query.forNoKeyUpdate() : query.forUpdate();
      return options.skipLocked ? locked.skipLocked() : locked;
    },
    serialize: async (trx, key) => {
      await sql`select pg_advisory_xact_lock(${key})`.execute(trx);
    },
    notify: async (channel, payload) => {
      const trx = currentWrite();
      const notifications = trx && pending.get(trx);
      if (notifications) notifications.push([channel, payload]);
      else await sql`select pg_notify(${channel}, ${payload})`.execute(kysely);
    },
    listen: (channel, fn) => listener.listen(channel, fn),
    close: async () => {
      await listener.close();
      await kysely.destroy();
    },
  };
}
