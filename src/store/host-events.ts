/**
 * The code hosts' events (docs/api.md#code-host-webhooks): each delivery recorded
 * before the receiver answers, so a crash loses none, and once only: a delivery id seen for the
 * project and host in the last 7 days is a duplicate, recorded nowhere new. The automations'
 * dispatcher claims unprocessed events under a lease (one process at a time holds one) and marks
 * them processed.
 */
import { sql } from 'kysely';
import type { HostEvent, ReceivedHostEvent } from '../domain/host-event.js';
import { newId } from '../domain/ids.js';
import { HOST_EVENTS_CHANNEL } from './channels.js';
import type { Db, Transaction } from './db.js';
import type { HostEventRow } from './schema.js';

/** How long a delivery id is remembered: a repeat within it is a duplicate. */
export const HOST_EVENT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** What `record` did: stored the event, or found the delivery already there. */
export type RecordResult =
  | { duplicate: false; event: ReceivedHostEvent }
  | {
      duplicate: true;
      /** The event as first recorded (its id, when it came, and what it was). */
      event: ReceivedHostEvent;
    };

export type NewHostEvent = Omit<ReceivedHostEvent, 'id' | 'receivedAt'>;

/** An event a dispatcher holds, and how many times one took it, this time included. */
export type ClaimedHostEvent = ReceivedHostEvent & { attempts: number };

/**
 * What an event is whatever its delivery: a comment is its own URL (which carries the host's
 * comment id: a comment is only read when made, never when edited), so the same comment delivered
 * again under a new delivery id is a duplicate. Null for the rest: a push or a merge is one run
 * per head whatever the number of its deliveries (`claimHead`).
 */
export function eventKey(event: HostEvent): string | null {
  return event.kind === 'comment' ? `comment:${event.url}` : null;
}

export function toHostEvent(row: HostEventRow): ReceivedHostEvent {
  return {
    id: row.id,
    projectId: row.project_id,
    host: row.host as ReceivedHostEvent['host'],
    deliveryId: row.delivery_id,
    event: JSON.parse(row.event) as HostEvent,
    receivedAt: row.received_at,
  };
}

export function hostEventQueries(db: Db) {
  return {
    /**
     * Records a delivery, or says it is a repeat. One write: the insert does nothing on a clash of
     * the unique key, so concurrent repeats leave exactly one row; on a clash with a row older
     * than the retention (not pruned yet), that row goes and the delivery is recorded anew. Wakes
     * the dispatcher's listeners on the commit.
     */
    record: (input: NewHostEvent, now = new Date()): Promise<RecordResult> => recordEvent(db, input, now),
    ...dispatchQueries(db),
    ...historyQueries(db),
  };
}

async function recordEvent(db: Db, input: NewHostEvent, now: Date): Promise<RecordResult> {
  const receivedAt = now.toISOString();
  const expired = new Date(now.getTime() - HOST_EVENT_RETENTION_MS).toISOString();
  const key = eventKey(input.event);
  return db.write(async (trx) => {
    const recorded = await insertEvent(db, trx, input, receivedAt, key);
    if (recorded) return recorded;
    const seen = await firstRecorded(trx, input, key);
    if (seen.received_at >= expired) return { duplicate: true, event: toHostEvent(seen) };
    await trx.deleteFrom('host_events').where('id', '=', seen.id).execute();
    // The other key may still clash with a younger event: then this one is its repeat.
    return (
      (await insertEvent(db, trx, input, receivedAt, key)) ?? {
        duplicate: true,
        event: toHostEvent(await firstRecorded(trx, input, key)),
      }
    );
  });
}

/** Inserts the event and wakes the dispatchers; undefined when either key clashes. */
async function insertEvent(
  db: Db,
  trx: Transaction,
  input: NewHostEvent,
  receivedAt: string,
  key: string | null,
): Promise<RecordResult | undefined> {
  const id = newId();
  const inserted = await trx
    .insertInto('host_events')
    .values({
      id,
      project_id: input.projectId,
      host: input.host,
      delivery_id: input.deliveryId,
      event: JSON.stringify(input.event),
      received_at: receivedAt,
      claimed_until: null,
      processed_at: null,
      attempts: 0,
      last_error: null,
      event_key: key,
    })
    // Either key clashing: the delivery id, or the comment's own.
    .onConflict((conflict) => conflict.doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!inserted) return undefined;
  await db.notify(HOST_EVENTS_CHANNEL, id);
  return { duplicate: false as const, event: { ...input, id, receivedAt } };
}

/** The oldest event recorded under the delivery id or the event's own key. */
function firstRecorded(trx: Transaction, input: NewHostEvent, key: string | null) {
  return trx
    .selectFrom('host_events')
    .selectAll()
    .where('project_id', '=', input.projectId)
    .where((eb) =>
      eb.or([
        eb.and([eb('host', '=', input.host), eb('delivery_id', '=', input.deliveryId)]),
        ...(key === null ? [] : [eb('event_key', '=', key)]),
      ]),
    )
    .orderBy('received_at')
    .executeTakeFirstOrThrow();
}

/** The dispatchers' side: claiming events, and marking them done or for a later try. */
function dispatchQueries(db: Db) {
  return {
    /**
     * Up to `limit` unprocessed events, oldest first, that no other dispatcher holds, now held by
     * this one for `leaseMs` (default a minute): a dispatcher that dies leaves them to be claimed
     * again when the lease runs out (at least once, never lost). Each claim counts an attempt, so
     * an event whose processing kills its process is bounded too. `skip locked` where writes run
     * side by side; the write lock where they run one at a time.
     */
    async claimUnprocessed(limit: number, leaseMs = 60_000, now = new Date()): Promise<ClaimedHostEvent[]> {
      if (limit <= 0) return [];
      const at = now.toISOString();
      const until = new Date(now.getTime() + leaseMs).toISOString();
      return db.write(async (trx) => {
        const due = trx
          .selectFrom('host_events')
          .select('id')
          .where('processed_at', 'is', null)
          .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', at)]))
          .orderBy('received_at')
          .orderBy('id')
          .limit(limit);
        const ids = (await db.lockForUpdate(due, { skipLocked: true }).execute()).map((row) => row.id);
        if (ids.length === 0) return [];
        const rows = await trx
          .updateTable('host_events')
          .set((eb) => ({ claimed_until: until, attempts: eb('attempts', '+', 1) }))
          .where('id', 'in', ids)
          .returningAll()
          .execute();
        return rows
          .sort((a, b) => a.received_at.localeCompare(b.received_at) || a.id.localeCompare(b.id))
          .map((row) => ({ ...toHostEvent(row), attempts: Number(row.attempts) }));
      });
    },

    /** Marks an event done (given up on, with `error`): no dispatcher claims it again. False when there is no such event. */
    async markProcessed(id: string, now = new Date(), error: string | null = null): Promise<boolean> {
      const result = await db.writeStatement((executor) =>
        executor
          .updateTable('host_events')
          .set({
            processed_at: now.toISOString(),
            claimed_until: null,
            ...(error === null ? {} : { last_error: error.slice(0, 500) }),
          })
          .where('id', '=', id)
          .executeTakeFirst(),
      );
      return Number(result.numUpdatedRows) > 0;
    },

    /**
     * Leaves an event whose try failed to be claimed again at `retryAt` (not at once: the cause,
     * a database or host out of reach, needs time), with the error that stopped it.
     */
    async retryLater(id: string, error: string, retryAt: Date): Promise<void> {
      await db.writeStatement((executor) =>
        executor
          .updateTable('host_events')
          .set({ claimed_until: retryAt.toISOString(), last_error: error.slice(0, 500) })
          .where('id', '=', id)
          .where('processed_at', 'is', null)
          .execute(),
      );
    },
  };
}

/** What was recorded, and dropping it after the retention. */
function historyQueries(db: Db) {
  return {
    /** The project's events, newest first (the dashboard's and the tests' view). */
    async list(
      projectId: string,
      limit = 50,
    ): Promise<(ReceivedHostEvent & { processedAt: string | null })[]> {
      const rows = await db
        .read()
        .selectFrom('host_events')
        .selectAll()
        .where('project_id', '=', projectId)
        .orderBy('received_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ ...toHostEvent(row), processedAt: row.processed_at }));
    },

    /** How many events the project has recorded (those within the retention). */
    async count(projectId: string): Promise<number> {
      const row = await db
        .read()
        .selectFrom('host_events')
        .select(sql<number>`count(*)`.as('count'))
        .where('project_id', '=', projectId)
        .executeTakeFirst();
      return Number(row?.count ?? 0);
    },

    /** Drops events received before the retention (their delivery ids are forgotten). Returns how many. */
    async prune(now = new Date()): Promise<number> {
      const before = new Date(now.getTime() - HOST_EVENT_RETENTION_MS).toISOString();
      const result = await db.writeStatement((executor) =>
        executor.deleteFrom('host_events').where('received_at', '<', before).executeTakeFirst(),
      );
      return Number(result.numDeletedRows);
    },
  };
}
