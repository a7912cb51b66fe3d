import { type Kysely, sql } from 'kysely';
import { runInWrite, type Transaction } from '../handle.js';
import type { Database } from '../schema.js';
import type { SqliteConnection } from './library.js';

export type Notification = [channel: string, payload: string];

interface Unit {
  fn: (trx: Transaction) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Writes queued together share one transaction, up to this many; more wait for the next. */
const MAX_BATCH = 64;

/** How many writes may wait for the connection; callers beyond wait to join the queue. */
export const MAX_QUEUED = 1024;

/**
 * SQLite's `Db.write` with group commit. A commit writes every page the transaction changed to
 * the WAL, system calls for each, and a job create changes many pages (the row, its indexes, its
 * message and event): that write costs more than the statements. Consecutive
 * creates change the same pages (ids rise, so rows land side by side), so writes that queue while
 * one runs share the next transaction and its commit.
 *
 * Each write still stands alone: within a shared transaction it runs in a savepoint, and a write
 * that throws rolls back to it, rejecting only its own caller. Every caller's promise settles
 * after the commit that holds its changes, and its notifications go out then, or not at all.
 */
export function groupCommitWriter(
  kysely: Kysely<Database>,
  database: Pick<SqliteConnection, 'inTransaction'>,
  emit: (notification: Notification) => void,
  maxQueued = MAX_QUEUED,
) {
  const state: WriterState = { queue: [], waitingForRoom: [], notes: null };
  const batches: BatchRunner = { database, emit, state };
  let draining = false;
  const makeRoom = () => {
    const { queue, waitingForRoom } = state;
    while (waitingForRoom.length > 0 && queue.length < maxQueued) queue.push(waitingForRoom.shift() as Unit);
  };

  async function drain() {
    try {
      while (state.queue.length > 0) {
        // Taken once the connection is ours, so the batch holds every write that waited for it.
        await kysely.connection().execute((connection) => {
          const batch = state.queue.splice(0, MAX_BATCH);
          makeRoom();
          return runBatch(batches, connection, batch);
        });
      }
    } catch (error) {
      // The connection itself failed (the database closed): nothing queued can run.
      for (const unit of [...state.queue.splice(0), ...state.waitingForRoom.splice(0)]) unit.reject(error);
    } finally {
      draining = false;
    }
  }

  return {
    write<T>(fn: (trx: Transaction) => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const unit = { fn, resolve: resolve as (value: unknown) => void, reject };
        // Bounded: a burst of writers waits for room rather than growing the queue without limit;
        // the drain moves them in as batches leave.
        if (state.queue.length < maxQueued && state.waitingForRoom.length === 0) state.queue.push(unit);
        else state.waitingForRoom.push(unit);
        if (draining) return;
        draining = true;
        // better-sqlite3 runs statements synchronously, so one request's write would run to its
        // commit before the next request is even read. Starting at the end of this turn of the
        // event loop lets the writes of every request read in it share a transaction.
        setImmediate(drain);
      });
    },
    /** How many writes wait for the connection now. */
    queued: () => state.queue.length,
    /** Holds a notification made inside the running write until it commits; false if none runs. */
    defer(notification: Notification): boolean {
      if (!state.notes) return false;
      state.notes.push(notification);
      return true;
    },
  };
}

/** The writer's queues, and the notifications of the write now running. */
interface WriterState {
  queue: Unit[];
  /** Writes waiting for room in the queue, first come first served. */
  waitingForRoom: Unit[];
  /** The notifications of the write now running; null when none is. */
  notes: Notification[] | null;
}

/** What running a batch needs beside the connection. */
interface BatchRunner {
  database: Pick<SqliteConnection, 'inTransaction'>;
  emit: (notification: Notification) => void;
  state: WriterState;
}

/** A write that ran to its end in the transaction, waiting for the commit. */
type Done = [unit: Unit, result: unknown, notes: Notification[]];

/** Runs a batch in one transaction; each caller settles after the commit (or the rollback). */
async function runBatch(runner: BatchRunner, connection: Kysely<Database>, batch: Unit[]) {
  const { database, state } = runner;
  const grouped = batch.length > 1;
  const done: Done[] = [];
  let begun = false;
  let next = 0;
  try {
    await sql`begin immediate`.execute(connection);
    begun = true;
    for (; next < batch.length; next++) {
      const ran = await runUnit(runner, connection, batch[next] as Unit, grouped);
      if (ran) done.push(ran);
    }
    state.notes = null;
    if (database.inTransaction) await sql`commit`.execute(connection);
  } catch (error) {
    state.notes = null;
    if (database.inTransaction) await sql`rollback`.execute(connection).catch(() => {});
    abandonBatch(state, { batch, done, next, begun, grouped }, error);
    return;
  }
  for (const [unit, result, unitNotes] of done) {
    for (const notification of unitNotes) runner.emit(notification);
    unit.resolve(result);
  }
}

/**
 * Runs one write, in a savepoint when it shares the transaction; a write that throws is rolled
 * back and rejected (undefined). Throws when SQLite rolled the whole transaction back.
 */
async function runUnit(
  { database, state }: BatchRunner,
  connection: Kysely<Database>,
  unit: Unit,
  grouped: boolean,
): Promise<Done | undefined> {
  const notes: Notification[] = [];
  state.notes = notes;
  try {
    if (grouped) await sql`savepoint write`.execute(connection);
    const result = await runInWrite(connection as unknown as Transaction, unit.fn);
    // A write that caught the error of a statement that made SQLite roll the transaction
    // back (and ran its later statements in autocommit) must not be reported as done.
    if (!database.inTransaction) throw new Error('SQLite rolled back the transaction while the write ran.');
    if (grouped) await sql`release write`.execute(connection);
    return [unit, result, notes];
  } catch (error) {
    state.notes = null;
    // An I/O error or a full disk makes SQLite roll the whole transaction back.
    if (!database.inTransaction) throw error;
    if (grouped) {
      await sql`rollback to write`.execute(connection);
      await sql`release write`.execute(connection);
    } else {
      await sql`rollback`.execute(connection);
    }
    unit.reject(error);
    return undefined;
  }
}

/** Settles a batch whose transaction is gone: who ran is rejected, who did not goes first next time. */
function abandonBatch(
  state: WriterState,
  {
    batch,
    done,
    next,
    begun,
    grouped,
  }: { batch: Unit[]; done: Done[]; next: number; begun: boolean; grouped: boolean },
  error: unknown,
) {
  // No transaction (the database stayed locked past the busy timeout, say): none can run.
  if (!begun) {
    for (const unit of batch) unit.reject(error);
    return;
  }
  // The writes that had finished are gone with the transaction; the one running failed;
  // the ones after it have not run, and go first into the next transaction.
  const lost = grouped
    ? new Error('The write was rolled back with the transaction it shared.', { cause: error })
    : error;
  for (const [unit] of done) unit.reject(lost);
  batch[next]?.reject(error);
  state.queue = [...batch.slice(next + 1), ...state.queue];
}
