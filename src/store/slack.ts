/**
 * Slack's side of the database (docs/slack.md): which channel asks which project and who may ask
 * it, the events Slack delivered (recorded before the answer, once per event id, claimed by the
 * dispatcher under a lease), and the threads jobs were asked in, with the last news posted there.
 */
import type { SlackMessage } from '../domain/slack.js';
import { SLACK_EVENTS_CHANNEL } from './channels.js';
import type { Db } from './db.js';
import type { SlackThreadRow } from './schema.js';

/** How long an event id is remembered: Slack retries within the hour, so a week is ample. */
export const SLACK_EVENT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** An event the dispatcher holds, and how many times one took it, this time included. */
export interface ClaimedSlackEvent {
  eventId: string;
  message: SlackMessage;
  attempts: number;
}

/** A thread a job was asked in, and the job's finish last posted there. */
export interface SlackThread {
  channelId: string;
  threadTs: string;
  projectId: string;
  jobId: string;
  reportedAt: string | null;
}

const toThread = (row: SlackThreadRow): SlackThread => ({
  channelId: row.channel_id,
  threadTs: row.thread_ts,
  projectId: row.project_id,
  jobId: row.job_id,
  reportedAt: row.reported_at,
});

/** The channels mapped to projects, and the users listed for them. */
function mappingQueries(db: Db) {
  /** The project a channel is mapped to; null for none. */
  const channelProject = async (channelId: string): Promise<string | null> => {
    const row = await db
      .read()
      .selectFrom('slack_channels')
      .select('project_id')
      .where('channel_id', '=', channelId)
      .executeTakeFirst();
    return row?.project_id ?? null;
  };
  return {
    /** Maps `channelId` to the project; false when the channel asks another project already. */
    async addChannel(projectId: string, channelId: string, now = new Date()): Promise<boolean> {
      const result = await db.writeStatement((executor) =>
        executor
          .insertInto('slack_channels')
          .values({ channel_id: channelId, project_id: projectId, created_at: now.toISOString() })
          .onConflict((conflict) => conflict.column('channel_id').doNothing())
          .executeTakeFirst(),
      );
      if (Number(result.numInsertedOrUpdatedRows ?? 0n) > 0) return true;
      return (await channelProject(channelId)) === projectId;
    },
    async removeChannel(projectId: string, channelId: string): Promise<boolean> {
      const result = await db.writeStatement((executor) =>
        executor
          .deleteFrom('slack_channels')
          .where('project_id', '=', projectId)
          .where('channel_id', '=', channelId)
          .executeTakeFirst(),
      );
      return Number(result.numDeletedRows) > 0;
    },
    channelProject,
    async addUser(projectId: string, userId: string, now = new Date()): Promise<void> {
      await db.writeStatement((executor) =>
        executor
          .insertInto('slack_users')
          .values({ project_id: projectId, user_id: userId, created_at: now.toISOString() })
          .onConflict((conflict) => conflict.columns(['project_id', 'user_id']).doNothing())
          .execute(),
      );
    },
    async removeUser(projectId: string, userId: string): Promise<boolean> {
      const result = await db.writeStatement((executor) =>
        executor
          .deleteFrom('slack_users')
          .where('project_id', '=', projectId)
          .where('user_id', '=', userId)
          .executeTakeFirst(),
      );
      return Number(result.numDeletedRows) > 0;
    },
    /** The project's channels and listed users, each sorted. */
    async mapping(projectId: string): Promise<{ channels: string[]; users: string[] }> {
      const [channels, users] = await Promise.all([
        db
          .read()
          .selectFrom('slack_channels')
          .select('channel_id')
          .where('project_id', '=', projectId)
          .orderBy('channel_id')
          .execute(),
        db
          .read()
          .selectFrom('slack_users')
          .select('user_id')
          .where('project_id', '=', projectId)
          .orderBy('user_id')
          .execute(),
      ]);
      return { channels: channels.map((row) => row.channel_id), users: users.map((row) => row.user_id) };
    },
  };
}

/** The events Slack delivered, and the dispatcher's claim of them. */
function eventQueries(db: Db) {
  return {
    /**
     * Records an event, or says it is a repeat (a retry, or the same event over HTTP and Socket
     * Mode): one insert that does nothing on a clash of the event id. Wakes the dispatcher on the
     * commit. An id older than the retention is pruned first, so it counts as new.
     */
    async recordEvent(eventId: string, message: SlackMessage, now = new Date()): Promise<boolean> {
      const expired = new Date(now.getTime() - SLACK_EVENT_RETENTION_MS).toISOString();
      return db.write(async (trx) => {
        await trx
          .deleteFrom('slack_events')
          .where('event_id', '=', eventId)
          .where('received_at', '<', expired)
          .execute();
        const inserted = await trx
          .insertInto('slack_events')
          .values({
            event_id: eventId,
            event: JSON.stringify(message),
            received_at: now.toISOString(),
            claimed_until: null,
            processed_at: null,
            attempts: 0,
            outcome: null,
          })
          .onConflict((conflict) => conflict.column('event_id').doNothing())
          .returning('event_id')
          .executeTakeFirst();
        if (inserted) await db.notify(SLACK_EVENTS_CHANNEL, eventId);
        return inserted !== undefined;
      });
    },

    /**
     * Up to `limit` unprocessed events, oldest first, that no other dispatcher holds, now held by
     * this one for `leaseMs`: a dispatcher that dies leaves them to be claimed again. Each claim
     * counts an attempt, so an event that keeps failing is given up after a few.
     */
    async claimEvents(limit: number, leaseMs = 60_000, now = new Date()): Promise<ClaimedSlackEvent[]> {
      const at = now.toISOString();
      const until = new Date(now.getTime() + leaseMs).toISOString();
      return db.write(async (trx) => {
        const due = trx
          .selectFrom('slack_events')
          .select('event_id')
          .where('processed_at', 'is', null)
          .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', at)]))
          .orderBy('received_at')
          .orderBy('event_id')
          .limit(limit);
        const ids = (await db.lockForUpdate(due, { skipLocked: true }).execute()).map((row) => row.event_id);
        if (ids.length === 0) return [];
        const rows = await trx
          .updateTable('slack_events')
          .set((eb) => ({ claimed_until: until, attempts: eb('attempts', '+', 1) }))
          .where('event_id', 'in', ids)
          .returningAll()
          .execute();
        return rows
          .sort((a, b) => a.received_at.localeCompare(b.received_at) || a.event_id.localeCompare(b.event_id))
          .map((row) => ({
            eventId: row.event_id,
            message: JSON.parse(row.event) as SlackMessage,
            attempts: Number(row.attempts),
          }));
      });
    },

    /** Marks an event done with what came of it; no dispatcher claims it again. */
    async markProcessed(eventId: string, outcome: string, now = new Date()): Promise<void> {
      await db.writeStatement((executor) =>
        executor
          .updateTable('slack_events')
          .set({ processed_at: now.toISOString(), claimed_until: null, outcome: outcome.slice(0, 500) })
          .where('event_id', '=', eventId)
          .execute(),
      );
    },

    /** Leaves an event to be claimed again at `retryAt`, with why this try failed. */
    async retryLater(eventId: string, error: string, retryAt: Date): Promise<void> {
      await db.writeStatement((executor) =>
        executor
          .updateTable('slack_events')
          .set({ claimed_until: retryAt.toISOString(), outcome: error.slice(0, 500) })
          .where('event_id', '=', eventId)
          .where('processed_at', 'is', null)
          .execute(),
      );
    },
  };
}

/** What the events came to, and their pruning. */
function eventLogQueries(db: Db) {
  return {
    /** Recorded events, newest first, with what came of each (the dashboard's and the tests' view). */
    async events(limit = 50) {
      const rows = await db
        .read()
        .selectFrom('slack_events')
        .selectAll()
        .orderBy('received_at', 'desc')
        .orderBy('event_id', 'desc')
        .limit(limit)
        .execute();
      return rows.map((row) => ({
        eventId: row.event_id,
        message: JSON.parse(row.event) as SlackMessage,
        receivedAt: row.received_at,
        processedAt: row.processed_at,
        outcome: row.outcome,
      }));
    },

    /** Forgets events received before the retention. Returns how many. */
    async pruneEvents(now = new Date()): Promise<number> {
      const before = new Date(now.getTime() - SLACK_EVENT_RETENTION_MS).toISOString();
      const result = await db.writeStatement((executor) =>
        executor.deleteFrom('slack_events').where('received_at', '<', before).executeTakeFirst(),
      );
      return Number(result.numDeletedRows);
    },
  };
}

/** The threads jobs were asked in, and the news posted there. */
function threadQueries(db: Db) {
  return {
    /** Notes the thread a job was asked in; a thread keeps the first job it asked for. */
    async addThread(thread: Omit<SlackThread, 'reportedAt'>, now = new Date()): Promise<SlackThread> {
      return db.write(async (trx) => {
        await trx
          .insertInto('slack_threads')
          .values({
            channel_id: thread.channelId,
            thread_ts: thread.threadTs,
            project_id: thread.projectId,
            job_id: thread.jobId,
            reported_at: null,
            created_at: now.toISOString(),
          })
          .onConflict((conflict) => conflict.columns(['channel_id', 'thread_ts']).doNothing())
          .execute();
        const row = await trx
          .selectFrom('slack_threads')
          .selectAll()
          .where('channel_id', '=', thread.channelId)
          .where('thread_ts', '=', thread.threadTs)
          .executeTakeFirstOrThrow();
        return toThread(row);
      });
    },
    async thread(channelId: string, threadTs: string): Promise<SlackThread | null> {
      const row = await db
        .read()
        .selectFrom('slack_threads')
        .selectAll()
        .where('channel_id', '=', channelId)
        .where('thread_ts', '=', threadTs)
        .executeTakeFirst();
      return row ? toThread(row) : null;
    },

    /**
     * Threads whose job finished (completed or failed) since the news last posted there, oldest
     * finish first, with the finish each is to report.
     */
    async unreported(limit: number): Promise<(SlackThread & { completedAt: string })[]> {
      const rows = await db
        .read()
        .selectFrom('slack_threads')
        .innerJoin('jobs', 'jobs.id', 'slack_threads.job_id')
        .selectAll('slack_threads')
        .select('jobs.completed_at')
        .where('jobs.completed_at', 'is not', null)
        .where('jobs.status', 'in', ['completed', 'failed'])
        .where((eb) =>
          eb.or([
            eb('slack_threads.reported_at', 'is', null),
            eb('slack_threads.reported_at', '<>', eb.ref('jobs.completed_at')),
          ]),
        )
        .orderBy('jobs.completed_at')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ ...toThread(row), completedAt: row.completed_at ?? '' }));
    },

    /**
     * Takes the report of a finish for this process: true for exactly one caller, which then posts
     * it (and gives it back with `unreport` when the post failed).
     */
    async markReported(thread: SlackThread, completedAt: string): Promise<boolean> {
      const result = await db.writeStatement((executor) =>
        executor
          .updateTable('slack_threads')
          .set({ reported_at: completedAt })
          .where('channel_id', '=', thread.channelId)
          .where('thread_ts', '=', thread.threadTs)
          .where((eb) =>
            thread.reportedAt === null
              ? eb('reported_at', 'is', null)
              : eb('reported_at', '=', thread.reportedAt),
          )
          .executeTakeFirst(),
      );
      return Number(result.numUpdatedRows) > 0;
    },
    async unreport(thread: SlackThread): Promise<void> {
      await db.writeStatement((executor) =>
        executor
          .updateTable('slack_threads')
          .set({ reported_at: thread.reportedAt })
          .where('channel_id', '=', thread.channelId)
          .where('thread_ts', '=', thread.threadTs)
          .execute(),
      );
    },
  };
}

export function slackQueries(db: Db) {
  return { ...mappingQueries(db), ...eventQueries(db), ...eventLogQueries(db), ...threadQueries(db) };
}
