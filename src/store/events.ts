import { sql } from 'kysely';
import type { EventData, EventType, JobEvent, NewEvent } from '../domain/events.js';
import type { Db, Transaction } from './db.js';
import type { Unlisten } from './notify.js';
import type { JobEventRow } from './schema.js';

/**
 * Events were appended to a job. Payload: the job id. Live streams wait on it instead of polling
 * (see `watch`); in one transaction PostgreSQL folds the notifications of one job into one.
 */
export const EVENTS_CHANNEL = 'agentjobs_events';

/** Appends an event of `type` carrying that type's data (domain/events.ts). */
export type AppendEvent = <Type extends EventType>(
  trx: Transaction,
  jobId: string,
  type: Type,
  data: EventData[Type],
  at?: string,
) => Promise<JobEvent>;

/** Appends events, in order, carrying their types' data (domain/events.ts); returns them with their numbers. */
export type AppendEvents = (
  trx: Transaction,
  jobId: string,
  events: readonly NewEvent[],
  at?: string,
) => Promise<JobEvent[]>;

/** Rows per insert: well under SQLite's limit of bound values in one statement. */
const EVENTS_PER_INSERT = 500;

/**
 * Appends events inside the caller's transaction. The sequence numbers come from a counter on the
 * job row: the update takes the row lock, so concurrent writers (API and worker) serialize and
 * never hand out the same number. A batch (a step's events) takes its numbers in one update and
 * is written by one insert, so it costs what one event costs.
 */
export function eventsAppender(db: Db): AppendEvents {
  return async (trx, jobId, events, at = new Date().toISOString()) => {
    if (events.length === 0) return [];
    const row = await trx
      .updateTable('jobs')
      .set({ event_seq: sql<number>`event_seq + ${events.length}` })
      .where('id', '=', jobId)
      .returning('event_seq')
      .executeTakeFirst();
    if (!row) throw new Error(`job ${jobId} vanished while writing its event`);
    const first = Number(row.event_seq) - events.length + 1;
    const appended = events.map(
      ({ type, data }, index) => ({ seq: first + index, type, at, data }) as JobEvent,
    );
    for (let start = 0; start < appended.length; start += EVENTS_PER_INSERT) {
      const rows = appended.slice(start, start + EVENTS_PER_INSERT).map((event) => ({
        job_id: jobId,
        seq: event.seq,
        type: event.type,
        at,
        data: JSON.stringify(event.data),
      }));
      await trx.insertInto('job_events').values(rows).execute();
    }
    await db.notify(EVENTS_CHANNEL, jobId);
    return appended;
  };
}

/** Appends one event inside the caller's transaction (`eventsAppender`). */
export function eventAppender(db: Db): AppendEvent {
  const append = eventsAppender(db);
  return async (trx, jobId, type, data, at) =>
    (await append(trx, jobId, [{ type, data } as NewEvent], at))[0] as JobEvent;
}

/**
 * Writes a new job's first event (seq 1), in the transaction that inserts the job with
 * `event_seq` already 1: no other writer can see the job before that commit, so the counter needs
 * no update, and a create makes one round trip fewer.
 */
export async function appendFirstEvent<Type extends EventType>(
  db: Db,
  trx: Transaction,
  jobId: string,
  type: Type,
  data: EventData[Type],
  at: string,
): Promise<JobEvent> {
  await trx
    .insertInto('job_events')
    .values({ job_id: jobId, seq: 1, type, at, data: JSON.stringify(data) })
    .execute();
  await db.notify(EVENTS_CHANNEL, jobId);
  return { seq: 1, type, at, data } as JobEvent;
}

export function eventQueries(db: Db) {
  const appendEvent = eventAppender(db);
  const watchers = watchEvents(db);
  return {
    watch: watchers.watch,

    append: <Type extends EventType>(jobId: string, type: Type, data: EventData[Type]) =>
      db.write((trx) => appendEvent(trx, jobId, type, data)),

    /** Events with `seq > after`, oldest first, at most `limit`. */
    async list(jobId: string, after: number, limit: number): Promise<JobEvent[]> {
      const rows = await db
        .read()
        .selectFrom('job_events')
        .selectAll()
        .where('job_id', '=', jobId)
        .where('seq', '>', after)
        .orderBy('seq', 'asc')
        .limit(limit)
        .execute();
      return rows.map(toEvent);
    },

    /** The newest `limit` events, oldest first: the tail of a long job's activity. */
    async latest(jobId: string, limit: number): Promise<JobEvent[]> {
      const rows = await db
        .read()
        .selectFrom('job_events')
        .selectAll()
        .where('job_id', '=', jobId)
        .orderBy('seq', 'desc')
        .limit(limit)
        .execute();
      return rows.map(toEvent).reverse();
    },

    /** Every event of the given types, oldest first (plans and commits, however long the job). */
    async ofTypes<Type extends EventType>(
      jobId: string,
      types: Type[],
      limit = 10_000,
    ): Promise<JobEvent<Type>[]> {
      const rows = await db
        .read()
        .selectFrom('job_events')
        .selectAll()
        .where('job_id', '=', jobId)
        .where('type', 'in', types)
        .orderBy('seq', 'asc')
        .limit(limit)
        .execute();
      return rows.map(toEvent) as JobEvent<Type>[];
    },
  };
}

/** A stored event; only the store writes them, each checked against its type when it was appended. */
function toEvent(row: JobEventRow): JobEvent {
  return { seq: Number(row.seq), type: row.type, at: row.at, data: JSON.parse(row.data) } as JobEvent;
}

/** Stops a `watch`. */
export type Unwatch = () => void;

/** How long to wait before subscribing again after a failed attempt (the database was away). */
const RESUBSCRIBE_MS = 5000;

/**
 * `watch(jobId, wake)`: calls `wake` whenever events may have been appended to the job, by any
 * process; also after a lost notification connection came back, since notifications may have been
 * missed meanwhile. Every watcher of the process shares one subscription to `EVENTS_CHANNEL`, and
 * a notification wakes only the watchers of its job. Resolves once the subscription listens, or
 * once it failed (then it is tried again while anyone watches): watchers must still look now and
 * then on their own.
 */
function watchEvents(db: Db) {
  const watchers = new Map<string, Set<() => void>>();
  let subscription: Promise<Unlisten | null> | null = null;
  let retry: NodeJS.Timeout | null = null;

  const wake = (wakers: Iterable<() => void>) => {
    for (const waker of wakers) waker();
  };
  const onNotification = (payload: string) => {
    if (payload === '') for (const set of watchers.values()) wake([...set]);
    else wake([...(watchers.get(payload) ?? [])]);
  };
  const subscribe = (): Promise<Unlisten | null> => {
    subscription ??= db.listen(EVENTS_CHANNEL, onNotification).catch(() => {
      subscription = null;
      if (!retry && watchers.size > 0) {
        retry = setTimeout(() => {
          retry = null;
          if (watchers.size > 0) void subscribe();
        }, RESUBSCRIBE_MS);
        retry.unref();
      }
      return null;
    });
    return subscription;
  };

  return {
    async watch(jobId: string, waker: () => void): Promise<Unwatch> {
      let set = watchers.get(jobId);
      if (!set) {
        set = new Set();
        watchers.set(jobId, set);
      }
      // A function of its own, so that one waker watching twice is two watches.
      const entry = () => waker();
      set.add(entry);
      await subscribe();
      return () => {
        const current = watchers.get(jobId);
        current?.delete(entry);
        if (current?.size === 0) watchers.delete(jobId);
      };
    },
  };
}
